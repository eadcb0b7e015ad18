/**
 * `kubectl auth whoami`: a SelfSubjectReview answers with the caller's own user info, as upstream's
 * `pkg/registry/authentication/selfsubjectreview/rest.go`: nothing is stored, the answer (201) carries a
 * `creationTimestamp` of now and `status.userInfo` (username, uid, groups, extra; empty ones omitted).
 */
import type { KObject } from "../../../src/api/Object.js"
import type { WriteResult } from "../../../src/api/Requests.js"
import { SelfSubjectReviews } from "../../../src/api/Resources.js"
import { rfc3339 } from "../SystemMeta.js"
import type { UserInfo } from "./UserInfo.js"

export const selfSubjectReview = (caller: UserInfo, now: number): WriteResult => {
  const extra = caller.extra ?? {}
  const userInfo = {
    ...(caller.name !== "" ? { username: caller.name } : {}),
    ...(caller.uid !== "" ? { uid: caller.uid } : {}),
    ...(caller.groups.length > 0 ? { groups: caller.groups } : {}),
    ...(Object.keys(extra).length > 0 ? { extra } : {})
  }
  const object = { kind: SelfSubjectReviews.kind, apiVersion: SelfSubjectReviews.apiVersion, metadata: { creationTimestamp: rfc3339(now) }, status: { userInfo } }
  return { code: 201, object: object as unknown as KObject, warnings: [] }
}

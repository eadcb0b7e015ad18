/**
 * Acting as another user (`kubectl --as bob --as-group devs`), as upstream's impersonation filter
 * (`k8s.io/apiserver/pkg/endpoints/filters/impersonation.go`): the requester must be allowed the `impersonate` verb
 * on `users` (or `serviceaccounts` for a service-account name) and on each `groups` entry; the request then runs as
 * the impersonated user, with `system:authenticated` added (unless a catch-all group was asked for).
 */
import { Either } from "effect"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { AccessControl } from "./AccessControl.js"
import type { ResourceAttributes } from "./RequestAttributes.js"
import { anonymousUserName, authenticatedGroup, serviceAccountGroups, unauthenticatedGroup, type UserInfo } from "./UserInfo.js"

export interface ImpersonationRequest {
  readonly user: string | undefined
  readonly groups: ReadonlyArray<string>
}

const impersonate = (resource: string, name: string, namespace = ""): ResourceAttributes => ({
  resourceRequest: true,
  verb: "impersonate",
  apiGroup: "",
  apiVersion: "",
  resource,
  subresource: "",
  namespace,
  name
})

/** The user the request acts as: `requester` itself when nothing is impersonated; 400 or 403 when not allowed. */
export const impersonatedUser = (access: AccessControl, requester: UserInfo, asked: ImpersonationRequest): Either.Either<UserInfo, ApiError> => {
  if (asked.user === undefined) {
    if (asked.groups.length === 0) return Either.right(requester)
    return Either.left(Status.badRequest(`requested [${asked.groups.map((g) => `{Group  ${g}   }`).join(" ")}] without impersonating a user`))
  }
  const sa = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(asked.user)
  const checks = [sa ? impersonate("serviceaccounts", sa[2]!, sa[1]!) : impersonate("users", asked.user), ...asked.groups.map((g) => impersonate("groups", g))]
  for (const attrs of checks) {
    const denied = access.authorize(requester, attrs)
    if (denied) return Either.left(denied)
  }
  const groups = asked.groups.length === 0 && sa ? [...serviceAccountGroups(sa[1]!)] : [...asked.groups]
  if (asked.user !== anonymousUserName && !groups.includes(authenticatedGroup) && !groups.includes(unauthenticatedGroup)) groups.push(authenticatedGroup)
  return Either.right({ name: asked.user, uid: "", groups })
}

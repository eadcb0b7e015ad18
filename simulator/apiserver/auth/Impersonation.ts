/**
 * Acting as another user (`kubectl --as bob --as-group devs --as-uid 7`), as upstream's impersonation filter
 * (`k8s.io/apiserver/pkg/endpoints/filters/impersonation.go`, `buildImpersonationRequests`): the requester must be
 * allowed the `impersonate` verb on each thing asked for, in this order — `users` (or `serviceaccounts` in the
 * account's namespace, for a valid service-account name), `groups`, `userextras/<key>` for each extra value and
 * `uids` (the last two in API group `authentication.k8s.io`); the first refusal is the 403. An empty
 * `Impersonate-User` or `Impersonate-Uid` asks for nothing (Go's `Header.Get` then `len > 0`); groups, extras or a
 * uid without a user are a 400. The request then runs as the impersonated user, with `system:authenticated` added
 * (`system:unauthenticated` for `system:anonymous`) unless a catch-all group was asked for.
 */
import { Either } from "effect"
import { isDNS1123Label, isDNS1123Subdomain } from "../../../src/api/kinds/Names.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { AccessControl } from "./AccessControl.js"
import type { ResourceAttributes } from "./RequestAttributes.js"
import { authenticationGroup } from "./TokenRequest.js"
import { anonymousUserName, authenticatedGroup, serviceAccountGroups, unauthenticatedGroup, type UserInfo } from "./UserInfo.js"

/** What the `Impersonate-*` headers ask for. */
export interface ImpersonationRequest {
  /** `Impersonate-User`'s first value ("" asks for no user). */
  readonly user: string
  /** `Impersonate-Group`, each value. */
  readonly groups: ReadonlyArray<string>
  /** `Impersonate-Extra-<key>`: the key lower-cased and %-unescaped, once per value, in header order. */
  readonly extras: ReadonlyArray<readonly [key: string, value: string]>
  /** `Impersonate-Uid`'s first value ("" asks for none). */
  readonly uid: string
}

/** One thing impersonated, as upstream's `v1.ObjectReference` of it (printed in the 400). */
interface Impersonated {
  readonly kind: "ServiceAccount" | "User" | "Group" | "UserExtra" | "UID"
  readonly namespace: string
  readonly name: string
  readonly apiVersion: string
  readonly fieldPath: string
}

const authenticationV1 = `${authenticationGroup}/v1`

/** `serviceaccount.SplitUsername`: `system:serviceaccount:<namespace>:<name>` with a valid namespace and name. */
const splitServiceAccount = (user: string): { readonly namespace: string; readonly name: string } | undefined => {
  const prefix = "system:serviceaccount:"
  if (!user.startsWith(prefix)) return undefined
  const parts = user.slice(prefix.length).split(":")
  if (parts.length !== 2) return undefined
  const [namespace, name] = parts as [string, string]
  if (isDNS1123Label(namespace).length > 0 || isDNS1123Subdomain(name).length > 0) return undefined
  return { namespace, name }
}

const requests = (asked: ImpersonationRequest): ReadonlyArray<Impersonated> => {
  const out: Impersonated[] = []
  const ref = (kind: Impersonated["kind"], name: string, namespace = "", apiVersion = "", fieldPath = "") => out.push({ kind, namespace, name, apiVersion, fieldPath })
  if (asked.user !== "") {
    const sa = splitServiceAccount(asked.user)
    if (sa) ref("ServiceAccount", sa.name, sa.namespace)
    else ref("User", asked.user)
  }
  for (const group of asked.groups) ref("Group", group)
  for (const [key, value] of asked.extras) ref("UserExtra", value, "", authenticationV1, key)
  if (asked.uid !== "") ref("UID", asked.uid, "", authenticationV1)
  return out
}

/** Go's `%v` of a `v1.ObjectReference`: its seven fields space-separated (Kind Namespace Name UID APIVersion ResourceVersion FieldPath). */
const goObjectReference = (r: Impersonated) => `{${[r.kind, r.namespace, r.name, "", r.apiVersion, "", r.fieldPath].join(" ")}}`

/** The `impersonate` check of one thing asked for (`actingAsAttributes`). */
const attributesOf = (r: Impersonated): ResourceAttributes => {
  const group = r.apiVersion === "" ? "" : authenticationGroup
  const version = r.apiVersion === "" ? "" : "v1"
  const attrs = (resource: string, subresource = "", namespace = ""): ResourceAttributes => ({
    resourceRequest: true,
    verb: "impersonate",
    apiGroup: group,
    apiVersion: version,
    resource,
    subresource,
    namespace,
    name: r.name
  })
  switch (r.kind) {
    case "ServiceAccount":
      return attrs("serviceaccounts", "", r.namespace)
    case "User":
      return attrs("users")
    case "Group":
      return attrs("groups")
    case "UserExtra":
      return attrs("userextras", r.fieldPath)
    case "UID":
      return attrs("uids")
  }
}

/** Whether any `Impersonate-*` header asks for something (most requests: none, and nothing is allocated). */
export const asksToImpersonate = (asked: ImpersonationRequest): boolean =>
  asked.user !== "" || asked.groups.length > 0 || asked.extras.length > 0 || asked.uid !== ""

/** The user the request acts as: `requester` itself when nothing is impersonated; 400 or 403 when not allowed. */
export const impersonatedUser = (access: AccessControl, requester: UserInfo, asked: ImpersonationRequest): Either.Either<UserInfo, ApiError> => {
  if (!asksToImpersonate(asked)) return Either.right(requester)
  const refs = requests(asked)
  if (asked.user === "") return Either.left(Status.badRequest(`requested [${refs.map(goObjectReference).join(" ")}] without impersonating a user`))
  let name = ""
  let groups: string[] = []
  const extra: Record<string, string[]> = {}
  for (const r of refs) {
    const denied = access.authorize(requester, attributesOf(r))
    if (denied) return Either.left(denied)
    switch (r.kind) {
      case "ServiceAccount":
        name = `system:serviceaccount:${r.namespace}:${r.name}`
        // An account's groups are known; asked-for groups replace them.
        if (asked.groups.length === 0) groups = [...serviceAccountGroups(r.namespace)]
        break
      case "User":
        name = r.name
        break
      case "Group":
        groups.push(r.name)
        break
      case "UserExtra":
        ;(extra[r.fieldPath] ??= []).push(r.name)
        break
      case "UID":
        break
    }
  }
  if (name !== anonymousUserName) {
    if (!groups.includes(authenticatedGroup) && !groups.includes(unauthenticatedGroup)) groups.push(authenticatedGroup)
  } else if (!groups.includes(unauthenticatedGroup)) groups.push(unauthenticatedGroup)
  return Either.right({ name, uid: asked.uid, groups, ...(asked.extras.length > 0 ? { extra } : {}) })
}

/** `unescapeExtraKey`: %-decoded (`url.PathUnescape`), or as it is when that fails. */
export const unescapeExtraKey = (encoded: string): string => {
  try {
    return decodeURIComponent(encoded)
  } catch {
    return encoded
  }
}

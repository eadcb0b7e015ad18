/**
 * Who a request comes from, as upstream's `user.Info`: name, uid, groups and the well-known system names
 * (`k8s.io/apiserver/pkg/authentication/user/user.go`).
 */
export interface UserInfo {
  readonly name: string
  readonly uid: string
  readonly groups: ReadonlyArray<string>
  /** Extra attributes (`Impersonate-Extra-<key>`); no authorizer here reads them. */
  readonly extra?: Readonly<Record<string, ReadonlyArray<string>>>
}

export const anonymousUserName = "system:anonymous"
export const unauthenticatedGroup = "system:unauthenticated"
export const authenticatedGroup = "system:authenticated"
/** Members are allowed everything, before and whatever the authorizer says (upstream `SystemPrivilegedGroup`). */
export const privilegedGroup = "system:masters"

export const anonymousUser: UserInfo = { name: anonymousUserName, uid: "", groups: [unauthenticatedGroup] }

/**
 * Adds `system:authenticated` to an authenticated user, as upstream's `AuthenticatedGroupAdder` does (not to
 * the anonymous user, nor to one already in either catch-all group).
 */
export const withAuthenticatedGroup = (user: UserInfo): UserInfo =>
  user.name === anonymousUserName || user.groups.includes(authenticatedGroup) || user.groups.includes(unauthenticatedGroup)
    ? user
    : { ...user, groups: [...user.groups, authenticatedGroup] }

/** A service account's user name (`serviceaccount.MakeUsername`). */
export const serviceAccountUserName = (namespace: string, name: string): string => `system:serviceaccount:${namespace}:${name}`

/** A service account's groups (`serviceaccount.MakeGroupNames`). */
export const serviceAccountGroups = (namespace: string): ReadonlyArray<string> => ["system:serviceaccounts", `system:serviceaccounts:${namespace}`]

/** A node agent's identity (`system:node:<name>` in `system:nodes`), as the node authorizer expects it. */
export const nodeUser = (nodeName: string): UserInfo => ({ name: `system:node:${nodeName}`, uid: "", groups: ["system:nodes", authenticatedGroup] })

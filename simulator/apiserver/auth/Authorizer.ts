/**
 * The authorization chain (`pkg/kubeapiserver/authorizer/config.go`): members of `system:masters` are allowed
 * everything first, then the configured mode decides — `AlwaysAllow` (the default: the open loopback quick start)
 * or `RBAC` (the stored roles and bindings, see RbacAuthorizer.ts).
 */
import type { PolicyRule } from "../../../src/api/kinds/Rbac.js"
import type { Store } from "../Store.js"
import { RbacAuthorizer, type Decision, type Permissions, type RulesReview } from "./RbacAuthorizer.js"
import type { RequestAttributes } from "./RequestAttributes.js"
import { privilegedGroup, type UserInfo } from "./UserInfo.js"

export type { Decision, Permissions, RulesReview } from "./RbacAuthorizer.js"

export const authorizationModes = ["AlwaysAllow", "RBAC"] as const
export type AuthorizationMode = (typeof authorizationModes)[number]

const everything: RulesReview = {
  resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }] as ReadonlyArray<PolicyRule>,
  nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
  incomplete: false
}
const allowed: Decision = { allowed: true, reason: "" }
const allowedEverything: Permissions = { allows: () => true }

export class Authorizer {
  /** The RBAC index, present in `RBAC` mode. */
  readonly rbac: RbacAuthorizer | undefined

  constructor(
    readonly mode: AuthorizationMode,
    store: Store
  ) {
    this.rbac = mode === "RBAC" ? new RbacAuthorizer(store) : undefined
  }

  authorize(user: UserInfo, attrs: RequestAttributes): Decision {
    if (this.rbac === undefined || user.groups.includes(privilegedGroup)) return allowed
    return this.rbac.authorize(user, attrs)
  }

  /** Whether `user` may make the request: the per-request check (the reason is only worked out for a denial). */
  allows(user: UserInfo, attrs: RequestAttributes): boolean {
    return this.rbac === undefined || user.groups.includes(privilegedGroup) || this.rbac.allows(user, attrs)
  }

  /** What `user` may do, for a caller acting as that user throughout: the privileged-group check made once. */
  permissionsOf(user: UserInfo): Permissions {
    return this.rbac === undefined || user.groups.includes(privilegedGroup) ? allowedEverything : this.rbac.permissionsOf(user)
  }

  /** The rules the user has in `namespace` (SelfSubjectRulesReview). */
  rulesFor(user: UserInfo, namespace: string): RulesReview {
    return this.rbac === undefined ? everything : this.rbac.rulesFor(user, namespace)
  }
}

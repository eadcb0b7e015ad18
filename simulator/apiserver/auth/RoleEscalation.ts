/**
 * RBAC's privilege-escalation prevention, as upstream's policy-based storage of the four RBAC kinds
 * (`pkg/registry/rbac/{role,clusterrole,rolebinding,clusterrolebinding}/policybased/storage.go`, with
 * `pkg/registry/rbac/escalation_check.go` and `validation/rule.go`): a user may write a Role or ClusterRole only
 * with rules it already holds (in the request's namespace; cluster-wide for a ClusterRole) unless it may `escalate`
 * that resource, and a binding only to a role whose rules it holds unless it may `bind` that role. Members of
 * `system:masters` are never checked (`EscalationAllowed`), nor the server's own in-process writes (they carry no
 * user). Updates that change only what garbage collection changes pass (`IsOnlyMutatingGCFields`).
 *
 * Runs on the candidate object of a create, update, patch or apply (after decoding and defaults, before validation,
 * as upstream's storage wrapper before `BeforeCreate` / inside `UpdatedObjectInfo`); only in RBAC mode (under
 * `AlwaysAllow` the `escalate`/`bind` checks always pass). A ClusterRole's aggregation rule (stored, not acted on:
 * docs/auth.md) needs full authority, as upstream's: it could gather any rule.
 */
import { ClusterRoles, Roles, type ResourceType } from "../../../src/api/Resources.js"
import { hasAggregationRule, roleRefOf, rulesOf, type PolicyRule, type RoleRef } from "../../../src/api/kinds/Rbac.js"
import type { KObject } from "../../../src/api/Object.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import { sameObject } from "../../../src/api/SameObject.js"
import { goQuote } from "../../../src/api/go/Quote.js"
import type { Authorizer } from "./Authorizer.js"
import { covers, describeMissing, goQuotedList, maxBrokenDownRules } from "./PolicyCovers.js"
import type { RbacAuthorizer, RoleReferenceError } from "./RbacAuthorizer.js"
import type { ResourceAttributes } from "./RequestAttributes.js"
import { privilegedGroup, type UserInfo } from "./UserInfo.js"

/** One write of an RBAC object, as the check sees it. */
export interface RbacWrite {
  readonly resource: ResourceType
  /** The object to store (decoded and defaulted). */
  readonly object: KObject
  /** The stored object an update replaces; undefined for a create. */
  readonly previous: KObject | undefined
  /** The request's namespace ("" for the cluster-scoped kinds). */
  readonly namespace: string
  /** The name the request's URL gives ("" for a create: upstream's RequestInfo has none). */
  readonly requestName: string
  /** The object's name, as the 403 names it ("" for a create with generateName: not generated yet). */
  readonly objectName: string
  readonly user: UserInfo
}

/** Upstream's `fullAuthority`: what cluster-admin holds. */
const fullAuthority: ReadonlyArray<PolicyRule> = [
  { verbs: ["*"], apiGroups: ["*"], resources: ["*"], resourceNames: [], nonResourceURLs: [] },
  { verbs: ["*"], apiGroups: [], resources: [], resourceNames: [], nonResourceURLs: ["*"] }
]

/** `EscalationAllowed`: the privileged group can do anything, grant included. */
const escalationAllowed = (user: UserInfo): boolean => user.groups.includes(privilegedGroup)

/** The `rbac.authorization.*` resource a 403 or 404 names. */
const groupResource = (resource: ResourceType) => ({ group: resource.group, plural: resource.plural })

/**
 * `IsOnlyMutatingGCFields`: the update changes nothing but owner references and finalizers (and selfLink, managed
 * fields), which the garbage collector must be able to change on any object.
 */
export const isOnlyMutatingGCFields = (object: KObject, previous: KObject): boolean => sameObject(withoutGcFields(object), withoutGcFields(previous))

const withoutGcFields = (obj: KObject): Record<string, unknown> => {
  const { kind: _k, apiVersion: _a, metadata, ...rest } = obj
  const { ownerReferences: _o, finalizers: _f, selfLink: _s, managedFields: _m, ...meta } = metadata
  return { ...rest, metadata: meta }
}

const resourceAttributes = (verb: string, apiGroup: string, resource: string, namespace: string, name: string): ResourceAttributes => ({
  resourceRequest: true,
  verb,
  apiGroup,
  apiVersion: "*",
  resource,
  subresource: "",
  namespace,
  name
})

/** The 404, 400 or plain Go error a role reference resolves to, as upstream's role registries answer. */
const referenceError = (error: RoleReferenceError): ApiError => {
  if ("missing" in error) return Status.notFound(error.missing.kind === "Role" ? Roles : ClusterRoles, error.missing.name)
  if ("namespaceRequired" in error) return Status.badRequest(namespaceRequired)
  return Status.internalError(unsupportedKind(error.unsupportedKind))
}

const namespaceRequired = "Namespace parameter required."
const unsupportedKind = (kind: string) => `unsupported role reference kind: ${goQuote(kind)}`

/** The error's own text (`err.Error()`), as a list of resolution errors prints it. */
const referenceErrorText = (error: RoleReferenceError): string =>
  "missing" in error ? referenceError(error).status.message ?? "" : "namespaceRequired" in error ? namespaceRequired : unsupportedKind(error.unsupportedKind)

export class RoleEscalation {
  constructor(
    private readonly authorizer: Authorizer,
    private readonly rbac: RbacAuthorizer
  ) {}

  /** undefined when the write grants nothing the user lacks, else its 403 (or the bound role's 404). */
  refusal(write: RbacWrite): ApiError | undefined {
    const { resource, object, previous, user } = write
    if (escalationAllowed(user)) return undefined
    switch (resource.kind) {
      case "Role":
      case "ClusterRole": {
        if (this.roleEscalationAuthorized(write)) return undefined
        if (previous !== undefined && isOnlyMutatingGCFields(object, previous)) return undefined
        const refused = this.confirmNoEscalation(write, rulesOf(object))
        if (refused !== undefined || resource.kind !== "ClusterRole") return refused
        // Setting, changing or dropping an aggregation rule (it can gather anything and stop a tightening).
        if (!hasAggregationRule(object) && (previous === undefined || !hasAggregationRule(previous))) return undefined
        return this.holdsFullAuthority(write)
          ? undefined
          : Status.forbidden(groupResource(resource), write.objectName, "must have cluster-admin privileges to use the aggregationRule")
      }
      case "RoleBinding":
      case "ClusterRoleBinding": {
        if (previous !== undefined && isOnlyMutatingGCFields(object, previous)) return undefined
        const roleRef = roleRefOf(object)
        if (this.bindingAuthorized(user, roleRef, write.namespace)) return undefined
        const rules = this.rbac.roleReferenceRules(roleRef, write.namespace)
        if (!Array.isArray(rules)) return referenceError(rules as RoleReferenceError)
        return this.confirmNoEscalation(write, rules as ReadonlyArray<PolicyRule>)
      }
      default:
        return undefined
    }
  }

  /** `RoleEscalationAuthorized`: the `escalate` verb on the role resource the request names. */
  private roleEscalationAuthorized(write: RbacWrite): boolean {
    return this.authorizer.allows(write.user, resourceAttributes("escalate", write.resource.group, write.resource.plural, write.namespace, write.requestName))
  }

  /** `BindingAuthorized`: the `bind` verb on the referenced role, in the binding's namespace. */
  private bindingAuthorized(user: UserInfo, roleRef: RoleRef, namespace: string): boolean {
    const resource = roleRef.kind === "ClusterRole" ? "clusterroles" : roleRef.kind === "Role" ? "roles" : undefined
    if (resource === undefined) return false
    return this.authorizer.allows(user, resourceAttributes("bind", roleRef.apiGroup, resource, namespace, roleRef.name))
  }

  /** `ConfirmNoEscalation` of `fullAuthority` (`*` on every resource and non-resource URL). */
  private holdsFullAuthority(write: RbacWrite): boolean {
    const { missing, truncated } = covers(this.rbac.heldRules(write.user, write.namespace).rules, fullAuthority)
    return missing.length === 0 && !truncated
  }

  /** `ConfirmNoEscalation`: the user's own rules in the request's namespace must cover `rules`; else the 403 listing what is missing. */
  private confirmNoEscalation(write: RbacWrite, rules: ReadonlyArray<PolicyRule>): ApiError | undefined {
    const { user } = write
    const held = this.rbac.heldRules(user, write.namespace)
    const { missing, truncated } = covers(held.rules, rules)
    if (missing.length === 0 && !truncated) return undefined
    let message = `user ${goQuote(user.name)} (groups=${goQuotedList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${describeMissing(missing)}`
    // Not upstream's (it would break the rules down however many there are): refused unchecked past the bound.
    if (truncated) message += `${missing.length > 0 ? "\n" : ""}(more than ${maxBrokenDownRules} rules once broken down: the rest were not checked)`
    if (held.errors.length > 0) {
      const texts = held.errors.map(referenceErrorText)
      // `%v` of a one-element []error holding utilerrors' aggregate (one message as it is, several as `[a, b]`).
      message += `; resolution errors: [${texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`}]`
    }
    return Status.forbidden(groupResource(write.resource), write.objectName, message)
  }
}

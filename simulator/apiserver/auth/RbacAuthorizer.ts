/**
 * The RBAC authorizer (`plugin/pkg/auth/authorizer/rbac`): a request is allowed when a rule of a role bound to the
 * user allows it — ClusterRoleBindings first, then the RoleBindings of the request's namespace. Denials carry the
 * missing roles as the reason (`RBAC: clusterrole.rbac.authorization.platform "x" not found`).
 *
 * The stored Roles and bindings are indexed as they change (a store subscription): bindings by subject
 * (`User`/`ServiceAccount` by user name, `Group` by group) and roles with their rules compiled, so a check
 * touches only the bindings of the user's name and groups.
 */
import { rbacGroup, roleRefOf, rulesOf, subjectsOf, type PolicyRule, type RoleRef, type Subject } from "../../../src/api/kinds/Rbac.js"
import type { KObject } from "../../../src/api/Object.js"
import type { Change, Store } from "../Store.js"
import { canonicalGroup, compileRule, ruleAllows, type CompiledRule } from "./PolicyRules.js"
import type { RequestAttributes } from "./RequestAttributes.js"
import { serviceAccountUserName, type UserInfo } from "./UserInfo.js"

export interface Decision {
  readonly allowed: boolean
  readonly reason: string
}

export interface RulesReview {
  readonly resourceRules: ReadonlyArray<PolicyRule>
  readonly nonResourceRules: ReadonlyArray<PolicyRule>
  readonly incomplete: boolean
  readonly evaluationError?: string
}

/** One subject of one binding, as the index holds it. */
interface Grant {
  /** `name` for ClusterRoleBindings, `name/namespace` for RoleBindings (as upstream's describer prints it). */
  readonly bindingName: string
  readonly bindingKey: string
  readonly clusterScoped: boolean
  readonly namespace: string
  readonly roleRef: RoleRef
  readonly subject: Subject
}

type GrantIndex = Map<string, Array<Grant>>

const userKey = (name: string) => `u:${name}`
const groupKey = (name: string) => `g:${name}`

/** The index key a subject is found under; undefined for a subject that can never match. */
const subjectKey = (subject: Subject, bindingNamespace: string): string | undefined => {
  switch (subject.kind) {
    case "User":
      return userKey(subject.name)
    case "Group":
      return groupKey(subject.name)
    case "ServiceAccount": {
      const namespace = subject.namespace ?? bindingNamespace
      return namespace === "" ? undefined : userKey(serviceAccountUserName(namespace, subject.name))
    }
    default:
      return undefined
  }
}

const describeSubject = (s: Subject, bindingNamespace: string) =>
  s.kind === "ServiceAccount" ? `${s.kind} "${s.name}/${s.namespace ?? bindingNamespace}"` : `${s.kind} "${s.name}"`

const describeGrant = (g: Grant) =>
  `${g.clusterScoped ? "ClusterRoleBinding" : "RoleBinding"} "${g.bindingName}" of ${g.roleRef.kind} "${g.roleRef.name}" to ${describeSubject(g.subject, g.namespace)}`

/** Upstream's `utilerrors.NewAggregate(...).Error()`: one message as it is, several as `[a, b]`. */
const aggregate = (messages: ReadonlyArray<string>) => (messages.length === 1 ? messages[0]! : `[${messages.join(", ")}]`)

export class RbacAuthorizer {
  private readonly clusterRoles = new Map<string, ReadonlyArray<CompiledRule>>()
  /** `namespace/name` → rules. */
  private readonly roles = new Map<string, ReadonlyArray<CompiledRule>>()
  private readonly clusterGrants: GrantIndex = new Map()
  /** namespace → subject key → grants. */
  private readonly namespaceGrants = new Map<string, GrantIndex>()

  /** Follows `store` from now on: create it before any RBAC object is stored. */
  constructor(store: Store) {
    store.subscribe((change: Change) => {
      const kind = change.resource.kind
      if (change.resource.group !== rbacGroup) return
      this.apply(kind, change.type === "DELETED" ? undefined : change.object, change.previous ?? (change.type === "DELETED" ? change.object : undefined))
    })
  }

  private apply(kind: string, obj: KObject | undefined, previous: KObject | undefined): void {
    const ref = obj ?? previous
    if (ref === undefined) return
    const name = ref.metadata.name ?? ""
    const namespace = ref.metadata.namespace ?? ""
    switch (kind) {
      case "ClusterRole":
        if (obj) this.clusterRoles.set(name, rulesOf(obj).map(compileRule))
        else this.clusterRoles.delete(name)
        return
      case "Role":
        if (obj) this.roles.set(`${namespace}/${name}`, rulesOf(obj).map(compileRule))
        else this.roles.delete(`${namespace}/${name}`)
        return
      case "ClusterRoleBinding":
      case "RoleBinding": {
        const clusterScoped = kind === "ClusterRoleBinding"
        const index = clusterScoped ? this.clusterGrants : this.namespaceIndex(namespace)
        const bindingKey = `${namespace}/${name}`
        if (previous) this.unindex(index, previous, namespace, bindingKey)
        if (obj) {
          const roleRef = roleRefOf(obj)
          for (const subject of subjectsOf(obj)) {
            const key = subjectKey(subject, namespace)
            if (key === undefined) continue
            const grant: Grant = { bindingName: clusterScoped ? name : `${name}/${namespace}`, bindingKey, clusterScoped, namespace, roleRef, subject }
            const list = index.get(key)
            if (list) list.push(grant)
            else index.set(key, [grant])
          }
        }
        return
      }
    }
  }

  private namespaceIndex(namespace: string): GrantIndex {
    let index = this.namespaceGrants.get(namespace)
    if (!index) this.namespaceGrants.set(namespace, (index = new Map()))
    return index
  }

  private unindex(index: GrantIndex, previous: KObject, namespace: string, bindingKey: string): void {
    for (const subject of subjectsOf(previous)) {
      const key = subjectKey(subject, namespace)
      const list = key === undefined ? undefined : index.get(key)
      if (!list) continue
      const kept = list.filter((g) => g.bindingKey !== bindingKey)
      if (kept.length > 0) index.set(key!, kept)
      else index.delete(key!)
    }
  }

  /** The rules a grant's role holds, or why it has none (`role... not found`). */
  private rulesOf(grant: Grant): ReadonlyArray<CompiledRule> | string {
    const ref = grant.roleRef
    if (ref.kind === "ClusterRole") return this.clusterRoles.get(ref.name) ?? `clusterrole.${rbacGroup} "${ref.name}" not found`
    if (ref.kind === "Role" && !grant.clusterScoped) return this.roles.get(`${grant.namespace}/${ref.name}`) ?? `role.${rbacGroup} "${ref.name}" not found`
    return `unsupported role reference kind: "${ref.kind}"`
  }

  /** Visits the user's grants in upstream's order; `visit` returns true to stop. */
  private visitGrants(user: UserInfo, namespace: string, visit: (grant: Grant) => boolean): void {
    const indexes = namespace === "" ? [this.clusterGrants] : [this.clusterGrants, this.namespaceGrants.get(namespace)]
    for (const index of indexes) {
      if (index === undefined || index.size === 0) continue
      const own = index.get(userKey(user.name))
      if (own) for (const g of own) if (visit(g)) return
      for (const group of user.groups) {
        const grants = index.get(groupKey(group))
        if (grants) for (const g of grants) if (visit(g)) return
      }
    }
  }

  authorize(user: UserInfo, attrs: RequestAttributes): Decision {
    const apiGroup = attrs.resourceRequest ? canonicalGroup(attrs.apiGroup) : ""
    const namespace = attrs.resourceRequest ? attrs.namespace : ""
    let allowedBy: Grant | undefined
    const errors: string[] = []
    this.visitGrants(user, namespace, (grant) => {
      const rules = this.rulesOf(grant)
      if (typeof rules === "string") {
        errors.push(rules)
        return false
      }
      for (const rule of rules)
        if (ruleAllows(rule, attrs, apiGroup)) {
          allowedBy = grant
          return true
        }
      return false
    })
    if (allowedBy) return { allowed: true, reason: `RBAC: allowed by ${describeGrant(allowedBy)}` }
    return { allowed: false, reason: errors.length > 0 ? `RBAC: ${aggregate(errors)}` : "" }
  }

  /** Every rule that applies to the user in `namespace` (SelfSubjectRulesReview), upstream's `RulesFor`. */
  rulesFor(user: UserInfo, namespace: string): RulesReview {
    const resourceRules: PolicyRule[] = []
    const nonResourceRules: PolicyRule[] = []
    const errors: string[] = []
    this.visitGrants(user, namespace, (grant) => {
      const rules = this.rulesOf(grant)
      if (typeof rules === "string") errors.push(rules)
      else
        for (const { rule } of rules) {
          if ((rule.resources ?? []).length > 0) resourceRules.push(rule)
          if ((rule.nonResourceURLs ?? []).length > 0) nonResourceRules.push(rule)
        }
      return false
    })
    return { resourceRules, nonResourceRules, incomplete: errors.length > 0, ...(errors.length > 0 ? { evaluationError: aggregate(errors) } : {}) }
  }
}

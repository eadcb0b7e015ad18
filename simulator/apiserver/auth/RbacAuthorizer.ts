/**
 * The RBAC authorizer (`plugin/pkg/auth/authorizer/rbac`): a request is allowed when a rule of a role bound to the
 * user allows it — ClusterRoleBindings first, then the RoleBindings of the request's namespace. Denials carry the
 * missing roles as the reason (`RBAC: clusterrole.rbac.authorization.platform "x" not found`).
 *
 * The stored Roles and bindings are indexed as they change (a store subscription): bindings by subject
 * (`User`/`ServiceAccount` by user name, `Group` by group) and roles with their rules compiled, so a check
 * touches only the bindings of the user's name and groups. The per-request check (`allows`) remembers its verdicts
 * per user until the policy changes (DecisionCache.ts, a simulator speed device).
 */
import { goQuote } from "../../../src/api/go/Quote.js"
import { rbacGroup, roleRefOf, rulesOf, subjectsOf, type PolicyRule, type RoleRef, type Subject } from "../../../src/api/kinds/Rbac.js"
import type { KObject } from "../../../src/api/Object.js"
import type { Change, Store } from "../Store.js"
import { DecisionCache } from "./DecisionCache.js"
import { canonicalGroup, compileRule, ruleAllows, ruleMatch, RuleMatch, type CompiledRule } from "./PolicyRules.js"
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

/** Why a role reference has no rules: the role is missing, a Role named without a namespace, or an unknown kind. */
export type RoleReferenceError =
  | { readonly missing: { readonly kind: "Role" | "ClusterRole"; readonly name: string } }
  | { readonly namespaceRequired: true }
  | { readonly unsupportedKind: string }

/** One subject of one binding, as the index holds it. */
interface Grant {
  /** `name` for ClusterRoleBindings, `name/namespace` for RoleBindings (as upstream's describer prints it). */
  readonly bindingName: string
  readonly bindingKey: string
  readonly clusterScoped: boolean
  readonly namespace: string
  readonly roleRef: RoleRef
  /** The role's key in its map (`namespace/name` for a Role), made once. */
  readonly roleKey: string
  readonly subject: Subject
}

/** Grants by subject key (`u:<user>` or `g:<group>`) — the key is built when a binding is indexed, never per request. */
interface GrantIndex {
  readonly users: Map<string, Array<Grant>>
  readonly groups: Map<string, Array<Grant>>
}

const newIndex = (): GrantIndex => ({ users: new Map(), groups: new Map() })
const userKey = (name: string) => `u:${name}`
const groupKey = (name: string) => `g:${name}`
const mapOf = (index: GrantIndex, key: string) => (key.startsWith("u:") ? index.users : index.groups)

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

/** What one identity may do: the per-request check of a caller that acts as one user throughout. */
export interface Permissions {
  allows(attrs: RequestAttributes): boolean
}

/** A verdict of the rule walk: bit 0 allowed, bit 1 a rule's `resourceNames` took part (the name matters). */
const allowedBit = 1
const byNameBit = 2

const sameGroups = (a: ReadonlyArray<string>, b: ReadonlyArray<string>): boolean => {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** How many users' permissions `allows` keeps before it starts again (each cache is bounded too). */
const cachedUsers = 1_000

/** One identity's `Permissions`: a few fields, its code shared (thousands of node agents hold one each). */
class UserPermissions implements Permissions {
  cache: DecisionCache | undefined = undefined
  /** The policy generation `cache` was chosen in. */
  chosenIn = -1

  constructor(
    private readonly authorizer: RbacAuthorizer,
    readonly user: UserInfo
  ) {}

  allows(attrs: RequestAttributes): boolean {
    return this.authorizer.allowsAs(this, attrs)
  }
}

/** Upstream's `utilerrors.NewAggregate(...).Error()`: one message as it is, several as `[a, b]`. */
const aggregate = (messages: ReadonlyArray<string>) => (messages.length === 1 ? messages[0]! : `[${messages.join(", ")}]`)

export class RbacAuthorizer {
  private readonly clusterRoles = new Map<string, ReadonlyArray<CompiledRule>>()
  /** `namespace/name` → rules. */
  private readonly roles = new Map<string, ReadonlyArray<CompiledRule>>()
  private readonly clusterGrants: GrantIndex = newIndex()
  /** namespace → subject key → grants. */
  private readonly namespaceGrants = new Map<string, GrantIndex>()
  /** Bumped on every change of a role or binding: remembered verdicts of an older generation are void. */
  private generation = 0
  /** The permissions of the users `allows` was asked about, by user name (then compared by groups). */
  private known = new Map<string, Array<UserPermissions>>()
  private knownUserCount = 0
  /** Caches by group list (joined), for users bound by nothing under their own names (`permissionsOf`). */
  private readonly groupCaches = new Map<string, DecisionCache>()

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
    this.generation++
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
            const roleKey = roleRef.kind === "Role" ? `${namespace}/${roleRef.name}` : roleRef.name
            const grant: Grant = { bindingName: clusterScoped ? name : `${name}/${namespace}`, bindingKey, clusterScoped, namespace, roleRef, roleKey, subject }
            const map = mapOf(index, key)
            const subjectName = key.slice(2)
            const list = map.get(subjectName)
            if (list) list.push(grant)
            else map.set(subjectName, [grant])
          }
        }
        return
      }
    }
  }

  private namespaceIndex(namespace: string): GrantIndex {
    let index = this.namespaceGrants.get(namespace)
    if (!index) this.namespaceGrants.set(namespace, (index = newIndex()))
    return index
  }

  private unindex(index: GrantIndex, previous: KObject, namespace: string, bindingKey: string): void {
    for (const subject of subjectsOf(previous)) {
      const key = subjectKey(subject, namespace)
      if (key === undefined) continue
      const map = mapOf(index, key)
      const name = key.slice(2)
      const list = map.get(name)
      if (!list) continue
      const kept = list.filter((g) => g.bindingKey !== bindingKey)
      if (kept.length > 0) map.set(name, kept)
      else map.delete(name)
    }
  }

  /** The rules a grant's role holds, or why it has none (`role... not found`). */
  private rulesOf(grant: Grant): ReadonlyArray<CompiledRule> | string {
    const ref = grant.roleRef
    if (ref.kind === "ClusterRole") return this.clusterRoles.get(grant.roleKey) ?? `clusterrole.${rbacGroup} ${goQuote(ref.name)} not found`
    if (ref.kind === "Role" && !grant.clusterScoped) return this.roles.get(grant.roleKey) ?? `role.${rbacGroup} ${goQuote(ref.name)} not found`
    return `unsupported role reference kind: "${ref.kind}"`
  }

  /** Visits the user's grants in upstream's order; `visit` returns true to stop. */
  private visitGrants(user: UserInfo, namespace: string, visit: (grant: Grant) => boolean): void {
    const indexes = namespace === "" ? [this.clusterGrants] : [this.clusterGrants, this.namespaceGrants.get(namespace)]
    for (const index of indexes) {
      if (index === undefined) continue
      const own = index.users.get(user.name)
      if (own) for (const g of own) if (visit(g)) return
      for (const group of user.groups) {
        const grants = index.groups.get(group)
        if (grants) for (const g of grants) if (visit(g)) return
      }
    }
  }

  /**
   * Whether a rule of the user's grants allows `attrs` — the per-request path: no reason text, and the verdict
   * remembered for the same request shape (DecisionCache.ts), so a repeated request allocates nothing.
   */
  allows(user: UserInfo, attrs: RequestAttributes): boolean {
    return this.allowsAs(this.rememberedPermissions(user), attrs)
  }

  /**
   * The per-request check of a caller acting as `user` throughout (a node agent): its cache found once per policy
   * generation, not per request. A user bound by nothing under its own name gets the verdicts of its groups, so the
   * thousands of node agents (`system:nodes`) share one small cache instead of each filling its own.
   */
  permissionsOf(user: UserInfo): Permissions {
    return new UserPermissions(this, user)
  }

  /** `permissions.allows`: its cache chosen again when the policy changed (a shared cache's generation moves with its other users). */
  allowsAs(permissions: UserPermissions, attrs: RequestAttributes): boolean {
    const user = permissions.user
    if (permissions.chosenIn !== this.generation) {
      permissions.cache = this.boundByName(user.name) ? new DecisionCache(this.generation) : this.groupCacheOf(user.groups)
      permissions.chosenIn = this.generation
    }
    const cache = permissions.cache!
    if (cache.generation !== this.generation) cache.clear(this.generation)
    const remembered = cache.get(attrs)
    if (remembered !== undefined) return remembered
    const verdict = this.verdict(user, attrs)
    const allowed = (verdict & allowedBit) !== 0
    cache.set(attrs, allowed, (verdict & byNameBit) !== 0)
    return allowed
  }

  /** Whether a binding names `name` (a User, or a ServiceAccount's user) in any scope. */
  private boundByName(name: string): boolean {
    if (this.clusterGrants.users.has(name)) return true
    for (const index of this.namespaceGrants.values()) if (index.users.has(name)) return true
    return false
  }

  /** The cache shared by users of these groups bound by nothing under their own names. */
  private groupCacheOf(groups: ReadonlyArray<string>): DecisionCache {
    const key = groups.join("\n")
    let cache = this.groupCaches.get(key)
    if (cache === undefined) this.groupCaches.set(key, (cache = new DecisionCache(this.generation)))
    return cache
  }

  /** The permissions `allows` keeps for a user (a caller that names the user on every request). */
  private rememberedPermissions(user: UserInfo): UserPermissions {
    let entries = this.known.get(user.name)
    if (entries !== undefined) for (let i = 0; i < entries.length; i++) if (sameGroups(entries[i]!.user.groups, user.groups)) return entries[i]!
    if (this.knownUserCount >= cachedUsers) {
      this.known = new Map()
      this.knownUserCount = 0
      entries = undefined
    }
    const permissions = new UserPermissions(this, user)
    if (entries === undefined) this.known.set(user.name, (entries = []))
    entries.push(permissions)
    this.knownUserCount++
    return permissions
  }

  /** The rule walk of `allows` (upstream's order: cluster grants, then the namespace's), as verdict bits. */
  private verdict(user: UserInfo, attrs: RequestAttributes): number {
    const apiGroup = attrs.resourceRequest ? canonicalGroup(attrs.apiGroup) : ""
    const cluster = this.verdictIn(this.clusterGrants, user, attrs, apiGroup)
    if ((cluster & allowedBit) !== 0 || !attrs.resourceRequest || attrs.namespace === "") return cluster
    const index = this.namespaceGrants.get(attrs.namespace)
    return index === undefined ? cluster : cluster | this.verdictIn(index, user, attrs, apiGroup)
  }

  private verdictIn(index: GrantIndex, user: UserInfo, attrs: RequestAttributes, apiGroup: string): number {
    let verdict = 0
    const own = index.users.get(user.name)
    if (own !== undefined) verdict |= this.verdictOf(own, attrs, apiGroup)
    const groups = user.groups
    for (let i = 0; i < groups.length && (verdict & allowedBit) === 0; i++) {
      const grants = index.groups.get(groups[i]!)
      if (grants !== undefined) verdict |= this.verdictOf(grants, attrs, apiGroup)
    }
    return verdict
  }

  private verdictOf(grants: ReadonlyArray<Grant>, attrs: RequestAttributes, apiGroup: string): number {
    let byName = 0
    for (let g = 0; g < grants.length; g++) {
      const rules = this.rulesOf(grants[g]!)
      if (typeof rules === "string") continue
      for (let r = 0; r < rules.length; r++) {
        const match = ruleMatch(rules[r]!, attrs, apiGroup)
        // allowed whatever the name: the name had no part in the verdict
        if (match === RuleMatch.Any) return allowedBit
        if (match === RuleMatch.NameListed) return allowedBit | byNameBit
        if (match === RuleMatch.NameNotListed) byName = byNameBit
      }
    }
    return byName
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

  /**
   * The rules a binding's role reference names, as upstream's registry-backed `GetRoleReferenceRules`
   * (`pkg/registry/rbac/validation/rule.go`): a missing role is the role registry's 404 text.
   */
  roleReferenceRules(ref: RoleRef, bindingNamespace: string): ReadonlyArray<PolicyRule> | RoleReferenceError {
    switch (ref.kind) {
      case "ClusterRole": {
        const rules = this.clusterRoles.get(ref.name)
        return rules ? rules.map((r) => r.rule) : { missing: { kind: "ClusterRole", name: ref.name } }
      }
      case "Role": {
        // The role registry's Get without a namespace (a ClusterRoleBinding naming a Role): `NamespaceKeyFunc`'s 400.
        if (bindingNamespace === "") return { namespaceRequired: true }
        const rules = this.roles.get(`${bindingNamespace}/${ref.name}`)
        return rules ? rules.map((r) => r.rule) : { missing: { kind: "Role", name: ref.name } }
      }
      default:
        return { unsupportedKind: ref.kind }
    }
  }

  /**
   * Every rule bound to the user in `namespace` (only ClusterRoleBindings for ""), each binding once, and the role
   * references that failed — upstream's registry-backed `RulesFor`, which the escalation check compares against.
   */
  heldRules(user: UserInfo, namespace: string): { readonly rules: ReadonlyArray<PolicyRule>; readonly errors: ReadonlyArray<RoleReferenceError> } {
    const rules: PolicyRule[] = []
    const errors: RoleReferenceError[] = []
    const seen = new Set<Grant["bindingKey"]>()
    this.visitGrants(user, namespace, (grant) => {
      const key = `${grant.clusterScoped ? "c" : "n"}${grant.bindingKey}`
      if (seen.has(key)) return false
      seen.add(key)
      const found = this.roleReferenceRules(grant.roleRef, grant.clusterScoped ? "" : grant.namespace)
      if (Array.isArray(found)) rules.push(...found)
      else errors.push(found as RoleReferenceError)
      return false
    })
    return { rules, errors }
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

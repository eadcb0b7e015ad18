/**
 * `rbac.authorization.platform/v1` Role, ClusterRole, RoleBinding and ClusterRoleBinding: their shapes, defaults and
 * validation as upstream's `pkg/apis/rbac/validation/validation.go` and `v1/defaults.go`. The group is also served
 * under its upstream name `rbac.authorization.k8s.io` (docs/upstream-names.md), so both spellings are accepted
 * where an object names the group (`roleRef.apiGroup`, a subject's `apiGroup`). Their field schemas come from the
 * protobuf messages (`BuiltinSchemas.ts`): upstream's lists here carry no patch tags, so apply replaces them whole.
 */
import { GoPrinted, invalid, notSupported, required, type FieldError } from "../FieldError.js"
import { isRecord, type KObject } from "../Object.js"
import { clusterRoleBindingSchema, clusterRoleSchema, roleBindingSchema, roleSchema } from "./BuiltinSchemas.js"
import type { KindRules } from "./KindRules.js"
import { validateLabelSelector } from "./LabelSelectorObject.js"
import type { NameRule } from "./Names.js"

export const rbacGroup = "rbac.authorization.platform"
export const rbacUpstreamGroup = "rbac.authorization.k8s.io"
const rbacGroups: ReadonlySet<string> = new Set([rbacGroup, rbacUpstreamGroup])

export interface PolicyRule {
  readonly verbs: ReadonlyArray<string>
  readonly apiGroups?: ReadonlyArray<string>
  readonly resources?: ReadonlyArray<string>
  readonly resourceNames?: ReadonlyArray<string>
  readonly nonResourceURLs?: ReadonlyArray<string>
}

export interface RoleRef {
  readonly apiGroup: string
  readonly kind: string
  readonly name: string
}

export interface Subject {
  readonly kind: string
  readonly apiGroup?: string
  readonly name: string
  readonly namespace?: string
}

/** RBAC object names are path segments (`ValidateRBACName` = `path.IsValidPathSegmentName`): `system:node` is fine. */
export const pathSegmentName: NameRule = (name, prefix) => {
  const errs: string[] = []
  if (!prefix) {
    if (name === ".") errs.push("may not be '.'")
    if (name === "..") errs.push("may not be '..'")
  }
  if (name.includes("/")) errs.push("may not contain '/'")
  if (name.includes("%")) errs.push("may not contain '%'")
  return errs
}

const strings = (v: unknown): ReadonlyArray<string> => (Array.isArray(v) ? v.filter((s): s is string => typeof s === "string") : [])
const str = (v: unknown): string => (typeof v === "string" ? v : "")

/** The rules of a Role or ClusterRole object, as typed values. */
export const rulesOf = (obj: KObject): ReadonlyArray<PolicyRule> =>
  (Array.isArray(obj.rules) ? obj.rules : []).filter(isRecord).map((r) => ({
    verbs: strings(r.verbs),
    apiGroups: strings(r.apiGroups),
    resources: strings(r.resources),
    resourceNames: strings(r.resourceNames),
    nonResourceURLs: strings(r.nonResourceURLs)
  }))

export const roleRefOf = (obj: KObject): RoleRef => {
  const r = isRecord(obj.roleRef) ? obj.roleRef : {}
  return { apiGroup: str(r.apiGroup), kind: str(r.kind), name: str(r.name) }
}

export const subjectsOf = (obj: KObject): ReadonlyArray<Subject> =>
  (Array.isArray(obj.subjects) ? obj.subjects : []).filter(isRecord).map((s) => ({
    kind: str(s.kind),
    apiGroup: str(s.apiGroup),
    name: str(s.name),
    ...(typeof s.namespace === "string" && s.namespace !== "" ? { namespace: s.namespace } : {})
  }))

const validatePolicyRule = (rule: Record<string, unknown>, namespaced: boolean, at: string): FieldError[] => {
  const errs: FieldError[] = []
  if (strings(rule.verbs).length === 0) errs.push(required(`${at}.verbs`, "verbs must contain at least one value"))
  const urls = strings(rule.nonResourceURLs)
  if (urls.length > 0) {
    if (namespaced) errs.push(invalid(`${at}.nonResourceURLs`, urls, "namespaced rules cannot apply to non-resource URLs"))
    if (strings(rule.apiGroups).length > 0 || strings(rule.resources).length > 0 || strings(rule.resourceNames).length > 0)
      errs.push(invalid(`${at}.nonResourceURLs`, urls, "rules cannot apply to both regular resources and non-resource URLs"))
    return errs
  }
  if (strings(rule.apiGroups).length === 0) errs.push(required(`${at}.apiGroups`, "resource rules must supply at least one api group"))
  if (strings(rule.resources).length === 0) errs.push(required(`${at}.resources`, "resource rules must supply at least one resource"))
  return errs
}

const validateRules = (namespaced: boolean) => (obj: KObject): FieldError[] =>
  (Array.isArray(obj.rules) ? obj.rules : []).flatMap((rule, i) => validatePolicyRule(isRecord(rule) ? rule : {}, namespaced, `rules[${i}]`))

/**
 * `ValidateClusterRole`'s aggregation rule: stored as sent (no controller aggregates here, docs/auth.md), so
 * checked as upstream checks it: at least one selector, each a valid label selector.
 */
const validateClusterRole = (obj: KObject): FieldError[] => {
  const errs = validateRules(false)(obj)
  const rule = obj.aggregationRule
  if (rule === undefined || rule === null) return errs
  const selectors = isRecord(rule) && Array.isArray(rule.clusterRoleSelectors) ? rule.clusterRoleSelectors : []
  if (selectors.length === 0) errs.push(required("aggregationRule.clusterRoleSelectors", "at least one clusterRoleSelector required if aggregationRule is non-nil"))
  selectors.forEach((selector, i) => errs.push(...validateLabelSelector(selector, `aggregationRule.clusterRoleSelectors[${i}]`)))
  return errs
}

/** `hasAggregationRule` (clusterrole policybased storage): a rule with at least one selector. */
export const hasAggregationRule = (obj: KObject): boolean =>
  isRecord(obj.aggregationRule) && Array.isArray(obj.aggregationRule.clusterRoleSelectors) && obj.aggregationRule.clusterRoleSelectors.length > 0

const validateSubject = (subject: Record<string, unknown>, namespaced: boolean, at: string): FieldError[] => {
  const errs: FieldError[] = []
  const name = str(subject.name)
  const apiGroup = str(subject.apiGroup)
  if (name === "") errs.push(required(`${at}.name`))
  switch (subject.kind) {
    case "ServiceAccount":
      if (apiGroup !== "") errs.push(notSupported(`${at}.apiGroup`, apiGroup, [""]))
      if (!namespaced && str(subject.namespace) === "") errs.push(required(`${at}.namespace`))
      break
    case "User":
    case "Group":
      if (!rbacGroups.has(apiGroup)) errs.push(notSupported(`${at}.apiGroup`, apiGroup, [rbacGroup]))
      break
    default:
      errs.push(notSupported(`${at}.kind`, str(subject.kind), ["ServiceAccount", "User", "Group"]))
  }
  return errs
}

const validateBinding = (namespaced: boolean) => (obj: KObject): FieldError[] => {
  const errs: FieldError[] = []
  const ref = roleRefOf(obj)
  if (!rbacGroups.has(ref.apiGroup)) errs.push(notSupported("roleRef.apiGroup", ref.apiGroup, [rbacGroup]))
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"]
  if (!kinds.includes(ref.kind)) errs.push(notSupported("roleRef.kind", ref.kind, kinds))
  if (ref.name === "") errs.push(required("roleRef.name"))
  else errs.push(...pathSegmentName(ref.name, false).map((m) => invalid("roleRef.name", ref.name, m)))
  ;(Array.isArray(obj.subjects) ? obj.subjects : []).forEach((s, i) => errs.push(...validateSubject(isRecord(s) ? s : {}, namespaced, `subjects[${i}]`)))
  return errs
}

const sameRoleRef = (a: RoleRef, b: RoleRef) => a.apiGroup === b.apiGroup && a.kind === b.kind && a.name === b.name

/** Go's `%v` of a RoleRef, as the immutability error prints it. */
const goRoleRef = (r: RoleRef) => `rbac.RoleRef{APIGroup:"${r.apiGroup}", Kind:"${r.kind}", Name:"${r.name}"}`

const bindingUpdate = (namespaced: boolean) => (obj: KObject, old: KObject): FieldError[] => {
  const ref = roleRefOf(obj)
  const errs = validateBinding(namespaced)(obj)
  if (!sameRoleRef(ref, roleRefOf(old))) errs.push(invalid("roleRef", new GoPrinted(goRoleRef(ref)), "cannot change roleRef"))
  return errs
}

/** `SetDefaults_Subject` and the roleRef group default: `apiGroup` of User and Group subjects is the RBAC group. */
export const defaultBinding = (obj: KObject): KObject => {
  const subjects = Array.isArray(obj.subjects) ? obj.subjects : undefined
  const needs = subjects?.some((s) => isRecord(s) && (s.kind === "User" || s.kind === "Group") && !s.apiGroup)
  const ref = isRecord(obj.roleRef) ? obj.roleRef : undefined
  if (!needs && (ref === undefined || ref.apiGroup)) return obj
  return {
    ...obj,
    ...(ref !== undefined && !ref.apiGroup ? { roleRef: { ...ref, apiGroup: rbacGroup } } : {}),
    ...(needs ? { subjects: subjects!.map((s) => (isRecord(s) && (s.kind === "User" || s.kind === "Group") && !s.apiGroup ? { ...s, apiGroup: rbacGroup } : s)) } : {})
  }
}

export const roleRules: KindRules = { schema: roleSchema, nameRule: pathSegmentName, validateCreate: validateRules(true), validateUpdate: validateRules(true) }
export const clusterRoleRules: KindRules = { schema: clusterRoleSchema, nameRule: pathSegmentName, validateCreate: validateClusterRole, validateUpdate: validateClusterRole }
export const roleBindingRules: KindRules = { schema: roleBindingSchema, defaults: defaultBinding, nameRule: pathSegmentName, validateCreate: validateBinding(true), validateUpdate: bindingUpdate(true) }
export const clusterRoleBindingRules: KindRules = { schema: clusterRoleBindingSchema, defaults: defaultBinding, nameRule: pathSegmentName, validateCreate: validateBinding(false), validateUpdate: bindingUpdate(false) }

/**
 * Which audit level a request gets: upstream's policy rule evaluator (`apiserver/pkg/audit/policy/checker.go`). The
 * rules are tried in order and the first that matches decides (no match: level None, the policy's own `omitStages`);
 * a rule's `omitStages` is the union of its own and the policy's; `omitManagedFields` of a rule, when set, overrides
 * the policy's. A rule matches when each of its lists that is not empty matches: `users` the requesting user's name
 * (the authenticated user, not an impersonated one: upstream's audit filter runs before impersonation), `userGroups`
 * one of its groups, `verbs` the RequestInfo verb, `namespaces` and `resources` a resource request
 * (`group` + `resources`: a resource, `resource/subresource`, the wildcard, a resource's every subresource, a
 * subresource of every resource; and `resourceNames`), `nonResourceURLs`
 * a non-resource path (exact, `*`, or a `prefix*`). One deviation: a group's `.k8s.io` and `.platform` names are the
 * same group, as for RBAC (docs/auth.md). Pure.
 */
import type { Level, Stage } from "../../../src/api/audit/Event.js"
import type { Policy, PolicyRule } from "../../../src/api/audit/Policy.js"
import { canonicalGroup } from "../auth/PolicyRules.js"
import type { RequestAttributes } from "../auth/RequestAttributes.js"
import type { UserInfo } from "../auth/UserInfo.js"

/** `RequestAuditConfig`: what the policy decided for one request. */
export interface RequestAuditConfig {
  readonly level: Level
  readonly omitStages: ReadonlyArray<Stage>
  readonly omitManagedFields: boolean
}

/** A policy ready to evaluate (`NewPolicyRuleEvaluator`: each rule's stages unioned with the policy's once). */
export interface PolicyRuleEvaluator {
  readonly evaluate: (user: UserInfo | undefined, attrs: RequestAttributes) => RequestAuditConfig
}

const union = (a: ReadonlyArray<Stage>, b: ReadonlyArray<Stage>): ReadonlyArray<Stage> => [...new Set([...a, ...b])]

/** Go's `strings.TrimLeft(s, cutset)` / `TrimRight`: every leading (trailing) character in the cut set goes. */
const trimLeft = (s: string, cutset: string) => {
  let i = 0
  while (i < s.length && cutset.includes(s[i]!)) i++
  return s.slice(i)
}
const trimRight = (s: string, cutset: string) => {
  let i = s.length
  while (i > 0 && cutset.includes(s[i - 1]!)) i--
  return s.slice(0, i)
}

/** `pathMatches`: `*`, the path itself, or a spec ending in `*` whose rest starts the path. */
export const pathMatches = (path: string, spec: string): boolean =>
  spec === "*" || spec === path || (spec.endsWith("*") && path.startsWith(trimRight(spec, "*")))

const ruleMatchesNonResource = (rule: PolicyRule, attrs: RequestAttributes): boolean =>
  !attrs.resourceRequest && (rule.nonResourceURLs ?? []).some((spec) => pathMatches(attrs.path, spec))

const ruleMatchesResource = (rule: PolicyRule, attrs: RequestAttributes): boolean => {
  if (!attrs.resourceRequest) return false
  // A cluster-scoped resource's namespace is "", which an empty string in the list matches.
  if ((rule.namespaces?.length ?? 0) > 0 && !rule.namespaces!.includes(attrs.namespace)) return false
  if ((rule.resources?.length ?? 0) === 0) return true
  const group = canonicalGroup(attrs.apiGroup)
  const { resource, subresource, name } = attrs
  const combined = subresource === "" ? resource : `${resource}/${subresource}`
  for (const gr of rule.resources!) {
    if (canonicalGroup(gr.group ?? "") !== group) continue
    if ((gr.resources?.length ?? 0) === 0) return true
    const names = gr.resourceNames ?? []
    for (const res of gr.resources!) {
      if (names.length > 0 && !names.includes(name)) continue
      if (res === combined || res === "*") return true
      if (subresource !== "" && res.startsWith("*/") && subresource === trimLeft(res, "*/")) return true
      if (res.endsWith("/*") && resource === trimRight(res, "/*")) return true
    }
  }
  return false
}

/** `ruleMatches`. */
export const ruleMatches = (rule: PolicyRule, user: UserInfo | undefined, attrs: RequestAttributes): boolean => {
  if ((rule.users?.length ?? 0) > 0 && (user === undefined || !rule.users!.includes(user.name))) return false
  if ((rule.userGroups?.length ?? 0) > 0 && (user === undefined || !user.groups.some((g) => rule.userGroups!.includes(g)))) return false
  if ((rule.verbs?.length ?? 0) > 0 && !rule.verbs!.includes(attrs.verb)) return false
  if ((rule.namespaces?.length ?? 0) > 0 || (rule.resources?.length ?? 0) > 0) return ruleMatchesResource(rule, attrs)
  if ((rule.nonResourceURLs?.length ?? 0) > 0) return ruleMatchesNonResource(rule, attrs)
  return true
}

/** The evaluator of a policy (`NewPolicyRuleEvaluator` then `EvaluatePolicyRule`). */
export const makePolicyRuleEvaluator = (policy: Policy): PolicyRuleEvaluator => {
  const policyStages = policy.omitStages ?? []
  const policyOmitManagedFields = policy.omitManagedFields ?? false
  const rules = policy.rules.map((rule) => ({
    rule,
    config: {
      level: rule.level,
      omitStages: union(policyStages, rule.omitStages ?? []),
      omitManagedFields: rule.omitManagedFields ?? policyOmitManagedFields
    } satisfies RequestAuditConfig
  }))
  const none: RequestAuditConfig = { level: "None", omitStages: policyStages, omitManagedFields: policyOmitManagedFields }
  return {
    evaluate: (user, attrs) => {
      for (const { rule, config } of rules) if (ruleMatches(rule, user, attrs)) return config
      return none
    }
  }
}

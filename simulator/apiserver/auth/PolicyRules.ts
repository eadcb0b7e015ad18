/**
 * Whether one RBAC rule allows a request, as upstream's `rbac.RuleAllows` (`plugin/pkg/auth/authorizer/rbac/rbac.go`,
 * `pkg/apis/rbac/v1/evaluation_helpers.go`): verbs × apiGroups × resources (`resource/subresource`, `*`, and
 * `*` + `/subresource` for any resource's subresource) × resourceNames for resource requests; verbs × nonResourceURLs (`*` and trailing-`*` prefixes)
 * otherwise. Rules are compiled once when a role is stored, so a check is a few set lookups. Pure.
 */
import type { PolicyRule } from "../../../src/api/kinds/Rbac.js"
import type { RequestAttributes } from "./RequestAttributes.js"

/** A rule ready for matching: `undefined` sets mean "any" (`*`, or no resourceNames). */
export interface CompiledRule {
  readonly rule: PolicyRule
  readonly verbs: ReadonlySet<string> | undefined
  readonly apiGroups: ReadonlySet<string> | undefined
  readonly resources: ReadonlySet<string> | undefined
  /** The subresources of `*` + `/x` entries: that subresource of any resource. */
  readonly anySubresources: ReadonlySet<string>
  readonly resourceNames: ReadonlySet<string> | undefined
  readonly nonResourceURLs: ReadonlySet<string> | undefined
  readonly nonResourcePrefixes: ReadonlyArray<string>
}

/** The `.k8s.io` spelling of a served group is the same group (docs/upstream-names.md). */
export const canonicalGroup = (group: string): string => (group.endsWith(".k8s.io") ? `${group.slice(0, -".k8s.io".length)}.platform` : group)

const anyOr = (values: ReadonlyArray<string> | undefined, map: (s: string) => string = (s) => s): ReadonlySet<string> | undefined =>
  values === undefined || values.includes("*") ? undefined : new Set(values.map(map))

export const compileRule = (rule: PolicyRule): CompiledRule => {
  const resources = rule.resources ?? []
  const urls = rule.nonResourceURLs ?? []
  return {
    rule,
    verbs: anyOr(rule.verbs),
    apiGroups: anyOr(rule.apiGroups ?? [], canonicalGroup),
    resources: anyOr(resources.filter((r) => !r.startsWith("*/")).concat(resources.includes("*") ? ["*"] : [])),
    anySubresources: new Set(resources.filter((r) => r.startsWith("*/")).map((r) => r.slice(2))),
    resourceNames: (rule.resourceNames ?? []).length === 0 ? undefined : new Set(rule.resourceNames),
    nonResourceURLs: anyOr(urls.filter((u) => u === "*" || !u.endsWith("*"))),
    nonResourcePrefixes: urls.filter((u) => u !== "*" && u.endsWith("*")).map((u) => u.slice(0, -1))
  }
}

const resourceMatches = (rule: CompiledRule, resource: string, subresource: string): boolean => {
  if (rule.resources === undefined) return true
  if (subresource === "") return rule.resources.has(resource)
  return rule.resources.has(`${resource}/${subresource}`) || rule.anySubresources.has(subresource)
}

const nonResourceMatches = (rule: CompiledRule, path: string): boolean => {
  if (rule.nonResourceURLs === undefined) return true
  if (rule.nonResourceURLs.has(path)) return true
  for (const prefix of rule.nonResourcePrefixes) if (path.startsWith(prefix)) return true
  return false
}

/**
 * How a rule meets a request: not at all, whatever its name, or only through the rule's `resourceNames` (the request's
 * name listed or not). The two last tell a caller that the verdict depends on the name (DecisionCache.ts).
 */
export const enum RuleMatch {
  None,
  Any,
  NameListed,
  NameNotListed
}

/** `apiGroup` is canonical (see {@link canonicalGroup}). */
export const ruleMatch = (rule: CompiledRule, attrs: RequestAttributes, apiGroup: string): RuleMatch => {
  if (rule.verbs !== undefined && !rule.verbs.has(attrs.verb)) return RuleMatch.None
  if (!attrs.resourceRequest) return (rule.rule.nonResourceURLs ?? []).length > 0 && nonResourceMatches(rule, attrs.path) ? RuleMatch.Any : RuleMatch.None
  if ((rule.rule.resources ?? []).length === 0) return RuleMatch.None
  if (!((rule.apiGroups === undefined || rule.apiGroups.has(apiGroup)) && resourceMatches(rule, attrs.resource, attrs.subresource))) return RuleMatch.None
  if (rule.resourceNames === undefined) return RuleMatch.Any
  return rule.resourceNames.has(attrs.name) ? RuleMatch.NameListed : RuleMatch.NameNotListed
}

/** `apiGroup` is canonical (see {@link canonicalGroup}). */
export const ruleAllows = (rule: CompiledRule, attrs: RequestAttributes, apiGroup: string): boolean => {
  const match = ruleMatch(rule, attrs, apiGroup)
  return match === RuleMatch.Any || match === RuleMatch.NameListed
}

/**
 * Whether one set of RBAC rules covers another, and how the rules not covered are printed: upstream's `Covers` and
 * `BreakdownRule` (`k8s.io/component-helpers/auth/rbac/validation/policy_comparator.go`), `CompactRules`
 * (`pkg/registry/rbac/validation/policy_compact.go`) and `CompactString` (`pkg/apis/rbac/v1/evaluation_helpers.go`).
 * The escalation check (RoleEscalation.ts) asks it whether a user holds every permission a role would grant. Groups
 * compare by their canonical name (`.k8s.io` is the `.platform` group, docs/upstream-names.md). Pure.
 */
import { goQuote } from "../../../src/api/go/Quote.js"
import type { PolicyRule } from "../../../src/api/kinds/Rbac.js"
import { canonicalGroup } from "./PolicyRules.js"

const list = (values: ReadonlyArray<string> | undefined): ReadonlyArray<string> => values ?? []

/** `BreakdownRule`: one rule per group × resource × verb (× name), then per URL × verb. */
export const breakdownRule = (rule: PolicyRule): ReadonlyArray<PolicyRule> => {
  const out: PolicyRule[] = []
  for (const group of list(rule.apiGroups))
    for (const resource of list(rule.resources))
      for (const verb of rule.verbs) {
        const names = list(rule.resourceNames)
        if (names.length > 0) for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] })
        else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] })
      }
  for (const url of list(rule.nonResourceURLs)) for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] })
  return out
}

/** A held rule ready for comparing: its lists as sets (groups canonical), made once per check. */
interface OwnerRule {
  readonly verbs: ReadonlySet<string>
  readonly apiGroups: ReadonlySet<string>
  readonly resources: ReadonlySet<string>
  readonly resourceNames: ReadonlySet<string>
  readonly nonResourceURLs: ReadonlyArray<string>
}

const compileOwner = (rule: PolicyRule): OwnerRule => ({
  verbs: new Set(rule.verbs),
  apiGroups: new Set(list(rule.apiGroups).map(canonicalGroup)),
  resources: new Set(list(rule.resources)),
  resourceNames: new Set(list(rule.resourceNames)),
  nonResourceURLs: list(rule.nonResourceURLs)
})

const hasAll = (set: ReadonlySet<string>, contains: ReadonlyArray<string>): boolean => {
  for (const c of contains) if (!set.has(c)) return false
  return true
}

const resourceCoversAll = (owned: ReadonlySet<string>, covers: ReadonlyArray<string>): boolean => {
  if (owned.has("*")) return true
  for (const path of covers) {
    if (owned.has(path)) continue
    const slash = path.indexOf("/")
    if (slash < 0 || !owned.has(`*/${path.slice(slash + 1)}`)) return false
  }
  return true
}

const nonResourceURLCovers = (owner: string, path: string): boolean =>
  owner === path || (owner.endsWith("*") && path.startsWith(owner.replace(/\*+$/, "")))

/** `ruleCovers` (upstream compares a broken-down `sub`; a whole rule is covered when every part of it is). */
const ruleCovers = (owner: OwnerRule, sub: PolicyRule): boolean => {
  if (!(owner.verbs.has("*") || hasAll(owner.verbs, sub.verbs))) return false
  if (!owner.apiGroups.has("*")) for (const g of list(sub.apiGroups)) if (!owner.apiGroups.has(canonicalGroup(g))) return false
  if (!resourceCoversAll(owner.resources, list(sub.resources))) return false
  for (const path of list(sub.nonResourceURLs)) if (!owner.nonResourceURLs.some((o) => nonResourceURLCovers(o, path))) return false
  const subNames = list(sub.resourceNames)
  return subNames.length === 0 ? owner.resourceNames.size === 0 : owner.resourceNames.size === 0 || hasAll(owner.resourceNames, subNames)
}

/**
 * How many broken-down rules `covers` compares at most. Upstream breaks every rule down (groups × resources × verbs ×
 * names), so a small body can ask for millions — enough to stall this single-threaded server for seconds, or exhaust
 * its memory (docs/auth.md "Escalation prevention"). A rule one held rule covers whole is never broken down.
 */
export const maxBrokenDownRules = 20_000

/** What `covers` found: the broken-down rules not covered, and whether it stopped at {@link maxBrokenDownRules}. */
export interface Coverage {
  readonly missing: ReadonlyArray<PolicyRule>
  readonly truncated: boolean
}

/** One held rule covers all of `rule` (each of its broken-down rules), so it need not be broken down. */
const coveredWhole = (owner: ReadonlyArray<OwnerRule>, rule: PolicyRule): boolean =>
  owner.some((o) => ruleCovers(o, rule) && (list(rule.nonResourceURLs).length === 0 || o.resourceNames.size === 0))

const breakdownSize = (rule: PolicyRule): number =>
  list(rule.apiGroups).length * list(rule.resources).length * rule.verbs.length * Math.max(1, list(rule.resourceNames).length) +
  list(rule.nonResourceURLs).length * rule.verbs.length

/**
 * `Covers`: the broken-down rules of `servant` that no rule of `owner` covers (none: `owner` allows everything
 * `servant` does), comparing at most {@link maxBrokenDownRules} of them.
 */
export const covers = (held: ReadonlyArray<PolicyRule>, servant: ReadonlyArray<PolicyRule>): Coverage => {
  const owner = held.map(compileOwner)
  const missing: PolicyRule[] = []
  let budget = maxBrokenDownRules
  for (const rule of servant) {
    if (coveredWhole(owner, rule)) continue
    const size = breakdownSize(rule)
    if (size > budget) return { missing, truncated: true }
    budget -= size
    for (const sub of breakdownRule(rule)) if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub)
  }
  return { missing, truncated: false }
}

/** A rule with one group, one resource, at most one name and nothing else (`isSimpleResourceRule`): its key. */
const simpleKey = (rule: PolicyRule): string | undefined => {
  const names = list(rule.resourceNames)
  if (names.length > 1 || list(rule.nonResourceURLs).length > 0) return undefined
  const groups = list(rule.apiGroups)
  const resources = list(rule.resources)
  if (groups.length !== 1 || resources.length !== 1) return undefined
  return JSON.stringify([groups[0], resources[0], names.length > 0, names[0] ?? ""])
}

/** `CompactRules`: the simple rules of one group, resource and name merged into one with all their verbs. */
export const compactRules = (rules: ReadonlyArray<PolicyRule>): ReadonlyArray<PolicyRule> => {
  const compacted: PolicyRule[] = []
  const simple = new Map<string, { rule: PolicyRule; verbs: string[] }>()
  for (const rule of rules) {
    const key = simpleKey(rule)
    if (key === undefined) {
      compacted.push(rule)
      continue
    }
    const existing = simple.get(key)
    if (existing === undefined) simple.set(key, { rule, verbs: [...rule.verbs] })
    else for (const verb of rule.verbs) if (!existing.verbs.includes(verb)) existing.verbs.push(verb)
  }
  for (const { rule, verbs } of simple.values()) compacted.push({ ...rule, verbs })
  return compacted
}

/** Go's `%q` of a `[]string`: `["a" "b"]`. */
export const goQuotedList = (values: ReadonlyArray<string>): string => `[${values.map(goQuote).join(" ")}]`

/** `CompactString`: `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}`, the empty fields left out. */
export const compactString = (rule: PolicyRule): string => {
  const parts: string[] = []
  const field = (name: string, values: ReadonlyArray<string> | undefined) => {
    if (values !== undefined && values.length > 0) parts.push(`${name}:${goQuotedList(values)}`)
  }
  field("APIGroups", rule.apiGroups)
  field("Resources", rule.resources)
  field("NonResourceURLs", rule.nonResourceURLs)
  field("ResourceNames", rule.resourceNames)
  field("Verbs", rule.verbs)
  return `{${parts.join(", ")}}`
}

/** The missing rules as `ConfirmNoEscalation` lists them: compacted, printed, de-duplicated and sorted, one a line. */
export const describeMissing = (missing: ReadonlyArray<PolicyRule>): string =>
  [...new Set(compactRules(missing).map(compactString))].sort(goStringLess).join("\n")

/** Go's string order (bytes; UTF-16 code units agree for the ASCII these rules hold). */
const goStringLess = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

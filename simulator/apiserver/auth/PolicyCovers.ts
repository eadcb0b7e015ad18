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

const hasAll = (set: ReadonlyArray<string>, contains: ReadonlyArray<string>): boolean => contains.every((c) => set.includes(c))

const resourceCoversAll = (owned: ReadonlyArray<string>, covers: ReadonlyArray<string>): boolean => {
  if (owned.includes("*") || hasAll(owned, covers)) return true
  for (const path of covers) {
    if (owned.includes(path)) continue
    const slash = path.indexOf("/")
    if (slash < 0) return false
    if (!owned.includes(`*/${path.slice(slash + 1)}`)) return false
  }
  return true
}

const nonResourceURLCovers = (owner: string, path: string): boolean =>
  owner === path || (owner.endsWith("*") && path.startsWith(owner.replace(/\*+$/, "")))

/** `ruleCovers`: `sub` has at most one verb, resource, name or URL (a broken-down rule). */
const ruleCovers = (owner: PolicyRule, sub: PolicyRule): boolean => {
  const ownerVerbs = owner.verbs
  if (!(ownerVerbs.includes("*") || hasAll(ownerVerbs, sub.verbs))) return false
  const ownerGroups = list(owner.apiGroups)
  if (!(ownerGroups.includes("*") || hasAll(ownerGroups.map(canonicalGroup), list(sub.apiGroups).map(canonicalGroup)))) return false
  if (!resourceCoversAll(list(owner.resources), list(sub.resources))) return false
  const ownerUrls = list(owner.nonResourceURLs)
  if (!list(sub.nonResourceURLs).every((path) => ownerUrls.some((o) => nonResourceURLCovers(o, path)))) return false
  const ownerNames = list(owner.resourceNames)
  const subNames = list(sub.resourceNames)
  return subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames)
}

/** `Covers`: whether `owner` allows everything `servant` does, and the broken-down servant rules it does not. */
export const covers = (owner: ReadonlyArray<PolicyRule>, servant: ReadonlyArray<PolicyRule>): ReadonlyArray<PolicyRule> =>
  servant.flatMap(breakdownRule).filter((sub) => !owner.some((o) => ruleCovers(o, sub)))

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

import { describe, expect, it } from "@effect/vitest"
import { breakdownRule, compactRules, compactString, covers, describeMissing, maxBrokenDownRules } from "../../../simulator/apiserver/auth/PolicyCovers.js"
import type { PolicyRule } from "../../../src/api/kinds/Rbac.js"

const rule = (verbs: ReadonlyArray<string>, apiGroups: ReadonlyArray<string>, resources: ReadonlyArray<string>, resourceNames?: ReadonlyArray<string>): PolicyRule => ({
  verbs,
  apiGroups,
  resources,
  ...(resourceNames ? { resourceNames } : {})
})
const urls = (verbs: ReadonlyArray<string>, nonResourceURLs: ReadonlyArray<string>): PolicyRule => ({ verbs, nonResourceURLs })

describe("RBAC rule coverage (upstream Covers, CompactRules, CompactString)", () => {
  it("breaks a rule down to one verb, group, resource and name each; URLs per verb", () => {
    expect(breakdownRule(rule(["get", "list"], ["", "apps"], ["pods"], ["a"]))).toEqual([
      rule(["get"], [""], ["pods"], ["a"]),
      rule(["list"], [""], ["pods"], ["a"]),
      rule(["get"], ["apps"], ["pods"], ["a"]),
      rule(["list"], ["apps"], ["pods"], ["a"])
    ])
    expect(breakdownRule(urls(["get"], ["/a", "/b"]))).toEqual([urls(["get"], ["/a"]), urls(["get"], ["/b"])])
  })

  it("* covers everything of its kind; a resource does not cover its subresources, */x covers every x", () => {
    expect(covers([rule(["*"], ["*"], ["*"])], [rule(["delete"], ["apps"], ["deployments/scale"])]).missing).toEqual([])
    expect(covers([rule(["get"], [""], ["pods"])], [rule(["get"], [""], ["pods/log"])]).missing).toEqual([rule(["get"], [""], ["pods/log"])])
    expect(covers([rule(["get"], [""], ["*/log"])], [rule(["get"], [""], ["pods/log"])]).missing).toEqual([])
    // A resource rule covers no URL, and a URL rule no resource.
    expect(covers([rule(["*"], ["*"], ["*"])], [urls(["get"], ["/metrics"])]).missing).toEqual([urls(["get"], ["/metrics"])])
    expect(covers([urls(["*"], ["*"])], [rule(["get"], [""], ["pods"])]).missing).toEqual([rule(["get"], [""], ["pods"])])
  })

  it("names: an owner without names covers any; with names only those; a servant without names needs an owner without", () => {
    expect(covers([rule(["get"], [""], ["secrets"])], [rule(["get"], [""], ["secrets"], ["a"])]).missing).toEqual([])
    expect(covers([rule(["get"], [""], ["secrets"], ["a"])], [rule(["get"], [""], ["secrets"], ["a", "b"])]).missing).toEqual([rule(["get"], [""], ["secrets"], ["b"])])
    expect(covers([rule(["get"], [""], ["secrets"], ["a"])], [rule(["get"], [""], ["secrets"])]).missing).toEqual([rule(["get"], [""], ["secrets"])])
  })

  it("URL prefixes with a trailing *; the .k8s.io and .platform spellings of a group are one group", () => {
    expect(covers([urls(["get"], ["/api/*"])], [urls(["get"], ["/api/v1"]), urls(["get"], ["/apis"])]).missing).toEqual([urls(["get"], ["/apis"])])
    expect(covers([rule(["get"], ["coordination.k8s.io"], ["leases"])], [rule(["get"], ["coordination.platform"], ["leases"])]).missing).toEqual([])
  })

  it("compacts one group-resource-name's verbs into one rule; prints as CompactString, sorted and de-duplicated", () => {
    const missing = [rule(["get"], [""], ["pods"]), rule(["list"], [""], ["pods"]), rule(["get"], [""], ["pods"]), urls(["get"], ["/x"]), rule(["get"], ["apps"], ["pods"], ["a"])]
    expect(compactRules(missing)).toEqual([urls(["get"], ["/x"]), rule(["get", "list"], [""], ["pods"]), rule(["get"], ["apps"], ["pods"], ["a"])])
    expect(compactString(rule(["get", "list"], [""], ["pods"], ["a"]))).toBe('{APIGroups:[""], Resources:["pods"], ResourceNames:["a"], Verbs:["get" "list"]}')
    expect(compactString(urls(["get"], ["/x"]))).toBe('{NonResourceURLs:["/x"], Verbs:["get"]}')
    expect(describeMissing(missing)).toBe(
      '{APIGroups:[""], Resources:["pods"], Verbs:["get" "list"]}\n{APIGroups:["apps"], Resources:["pods"], ResourceNames:["a"], Verbs:["get"]}\n{NonResourceURLs:["/x"], Verbs:["get"]}'
    )
  })

  it("a rule one held rule covers whole is not broken down; past the bound the comparison stops, marked truncated", () => {
    const many = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
    const huge = rule(many("v", 200), many("g", 200), many("r", 200))
    expect(covers([rule(["*"], ["*"], ["*"])], [huge])).toEqual({ missing: [], truncated: false })
    const past = covers([rule(["get"], ["*"], ["*"])], [rule(["get"], [""], ["pods"]), rule(["list"], [""], ["pods"]), huge])
    expect(past).toEqual({ missing: [rule(["list"], [""], ["pods"])], truncated: true })
    const atBound = rule(["get"], many("g", 10), many("r", maxBrokenDownRules / 10))
    expect(covers([], [atBound]).truncated).toBe(false)
  })
})

import { describe, expect, it } from "@effect/vitest"
import { canonicalGroup, compileRule, ruleAllows } from "../../../simulator/apiserver/auth/PolicyRules.js"
import { callAttributes, type RequestAttributes } from "../../../simulator/apiserver/auth/RequestAttributes.js"
import type { PolicyRule } from "../../../src/api/kinds/Rbac.js"
import type { CallVerb } from "../../../simulator/apiserver/RequestInfo.js"

const allows = (rule: PolicyRule, attrs: RequestAttributes) => ruleAllows(compileRule(rule), attrs, attrs.resourceRequest ? canonicalGroup(attrs.apiGroup) : "")
const req = (verb: CallVerb, group: string, resource: string, opts: { ns?: string; name?: string; sub?: string } = {}) =>
  callAttributes(verb, { group, version: "v1", plural: resource, namespaced: true }, opts.ns ?? "default", opts.name, opts.sub)
const path = (verb: string, p: string): RequestAttributes => ({ resourceRequest: false, verb, path: p })

describe("RBAC rule matching (upstream RuleAllows)", () => {
  it("verbs × apiGroups × resources, with * in each", () => {
    const rule = { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }
    expect(allows(rule, req("get", "", "pods"))).toBe(true)
    expect(allows(rule, req("delete", "", "pods"))).toBe(false)
    expect(allows(rule, req("get", "apps", "pods"))).toBe(false)
    expect(allows(rule, req("get", "", "configmaps"))).toBe(false)
    expect(allows({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }, req("deletecollection", "apps", "deployments"))).toBe(true)
  })

  it("subresources are separate: pods does not cover pods/status; */status covers every status", () => {
    expect(allows({ verbs: ["update"], apiGroups: [""], resources: ["pods"] }, req("update", "", "pods", { name: "p", sub: "status" }))).toBe(false)
    expect(allows({ verbs: ["update"], apiGroups: [""], resources: ["pods/status"] }, req("update", "", "pods", { name: "p", sub: "status" }))).toBe(true)
    expect(allows({ verbs: ["update"], apiGroups: [""], resources: ["pods/status"] }, req("update", "", "pods", { name: "p" }))).toBe(false)
    expect(allows({ verbs: ["update"], apiGroups: [""], resources: ["*/status"] }, req("update", "", "nodes", { name: "n", sub: "status" }))).toBe(true)
    expect(allows({ verbs: ["update"], apiGroups: [""], resources: ["*"] }, req("update", "", "pods", { name: "p", sub: "status" }))).toBe(true)
  })

  it("resourceNames restrict to named objects (a create or list has no name)", () => {
    const rule = { verbs: ["get", "create", "list"], apiGroups: ["coordination.platform"], resources: ["leases"], resourceNames: ["a"] }
    expect(allows(rule, req("get", "coordination.platform", "leases", { name: "a" }))).toBe(true)
    expect(allows(rule, req("get", "coordination.platform", "leases", { name: "b" }))).toBe(false)
    expect(allows(rule, req("create", "coordination.platform", "leases"))).toBe(false)
    expect(allows(rule, req("list", "coordination.platform", "leases"))).toBe(false)
  })

  it("the .k8s.io name of a group is the same group", () => {
    const rule = { verbs: ["get"], apiGroups: ["coordination.k8s.io"], resources: ["leases"] }
    expect(allows(rule, req("get", "coordination.platform", "leases", { name: "a" }))).toBe(true)
    expect(allows({ ...rule, apiGroups: ["coordination.platform"] }, req("get", "coordination.k8s.io", "leases", { name: "a" }))).toBe(true)
  })

  it("nonResourceURLs: exact, * and trailing-* prefixes; never for resource requests", () => {
    const rule = { verbs: ["get"], nonResourceURLs: ["/healthz", "/apis/*"] }
    expect(allows(rule, path("get", "/healthz"))).toBe(true)
    expect(allows(rule, path("get", "/healthz/etcd"))).toBe(false)
    expect(allows(rule, path("get", "/apis/apps/v1"))).toBe(true)
    expect(allows(rule, path("post", "/healthz"))).toBe(false)
    expect(allows({ verbs: ["*"], nonResourceURLs: ["*"] }, path("delete", "/anything"))).toBe(true)
    expect(allows({ verbs: ["*"], nonResourceURLs: ["*"] }, req("get", "", "pods"))).toBe(false)
    expect(allows({ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }, path("get", "/healthz"))).toBe(false)
  })
})

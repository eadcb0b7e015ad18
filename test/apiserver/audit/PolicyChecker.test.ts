/**
 * The audit policy as upstream's `checker.go` evaluates it, on hand-built cases: the first matching rule decides,
 * no match is level None, omitStages are the union of the policy's and the rule's, and each kind of matcher (users,
 * groups, verbs, resources with subresources and names, namespaces, non-resource URLs). And the policy file as
 * `--audit-policy-file` reads it: its errors name the file and the field.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { decodePolicy, type Policy } from "../../../src/api/audit/Policy.js"
import { makePolicyRuleEvaluator, pathMatches } from "../../../simulator/apiserver/audit/PolicyChecker.js"
import type { RequestAttributes } from "../../../simulator/apiserver/auth/RequestAttributes.js"
import type { UserInfo } from "../../../simulator/apiserver/auth/UserInfo.js"

const user = (name: string, ...groups: string[]): UserInfo => ({ name, uid: "", groups: [...groups, "system:authenticated"] })
const alice = user("alice", "devs")
const kubelet = user("system:node:n1", "system:nodes")

const res = (verb: string, resource: string, o: Partial<{ group: string; namespace: string; name: string; subresource: string }> = {}): RequestAttributes => ({
  resourceRequest: true,
  verb,
  apiGroup: o.group ?? "",
  apiVersion: "v1",
  resource,
  subresource: o.subresource ?? "",
  namespace: o.namespace ?? "",
  name: o.name ?? ""
})
const path = (p: string, verb = "get"): RequestAttributes => ({ resourceRequest: false, verb, path: p })

const policyOf = (rules: Policy["rules"], extra: Partial<Policy> = {}): Policy => ({ kind: "Policy", apiVersion: "audit.k8s.io/v1", rules, ...extra })
const levelOf = (policy: Policy, u: UserInfo | undefined, attrs: RequestAttributes) => makePolicyRuleEvaluator(policy).evaluate(u, attrs).level

describe("audit policy: rule order and defaults", () => {
  it("the first matching rule decides, later ones are not looked at", () => {
    const p = policyOf([
      { level: "None", users: ["system:kube-proxy"], verbs: ["watch"] },
      { level: "RequestResponse", resources: [{ group: "", resources: ["pods"] }] },
      { level: "Metadata" }
    ])
    expect(levelOf(p, alice, res("get", "pods", { namespace: "default" }))).toBe("RequestResponse")
    expect(levelOf(p, user("system:kube-proxy"), res("watch", "pods"))).toBe("None")
    expect(levelOf(p, user("system:kube-proxy"), res("list", "pods"))).toBe("RequestResponse")
    expect(levelOf(p, alice, res("get", "configmaps", { namespace: "default" }))).toBe("Metadata")
    // the catch-all first: every request at its level
    expect(levelOf(policyOf([{ level: "Request" }, { level: "RequestResponse", resources: [{ resources: ["pods"] }] }]), alice, res("get", "pods"))).toBe("Request")
  })

  it("no rule matches: None, with the policy's own omitStages", () => {
    const p = policyOf([{ level: "Metadata", users: ["bob"] }], { omitStages: ["RequestReceived"] })
    expect(makePolicyRuleEvaluator(p).evaluate(alice, res("get", "pods"))).toEqual({ level: "None", omitStages: ["RequestReceived"], omitManagedFields: false })
  })

  it("omitStages: the union of the policy's and the rule's; omitManagedFields: the rule's overrides the policy's", () => {
    const p = policyOf(
      [
        { level: "Metadata", users: ["alice"], omitStages: ["ResponseStarted", "RequestReceived"], omitManagedFields: false },
        { level: "Request" }
      ],
      { omitStages: ["RequestReceived"], omitManagedFields: true }
    )
    const evaluator = makePolicyRuleEvaluator(p)
    expect(evaluator.evaluate(alice, res("get", "pods"))).toEqual({ level: "Metadata", omitStages: ["RequestReceived", "ResponseStarted"], omitManagedFields: false })
    expect(evaluator.evaluate(kubelet, res("get", "pods"))).toEqual({ level: "Request", omitStages: ["RequestReceived"], omitManagedFields: true })
  })
})

describe("audit policy: matchers", () => {
  it("users by name, userGroups by any group; a request without a user matches neither", () => {
    const p = policyOf([
      { level: "None", userGroups: ["system:nodes"] },
      { level: "Request", users: ["alice"] },
      { level: "Metadata" }
    ])
    expect(levelOf(p, kubelet, res("update", "leases", { group: "coordination.k8s.io" }))).toBe("None")
    expect(levelOf(p, alice, res("get", "pods"))).toBe("Request")
    expect(levelOf(p, user("bob", "devs"), res("get", "pods"))).toBe("Metadata")
    expect(levelOf(p, undefined, res("get", "pods"))).toBe("Metadata")
    expect(levelOf(policyOf([{ level: "Request", userGroups: ["system:authenticated"] }]), undefined, res("get", "pods"))).toBe("None")
  })

  it("verbs are the RequestInfo verbs (list and watch, not GET)", () => {
    const p = policyOf([{ level: "Metadata", verbs: ["list", "watch"] }])
    expect(levelOf(p, alice, res("list", "pods"))).toBe("Metadata")
    expect(levelOf(p, alice, res("watch", "pods"))).toBe("Metadata")
    expect(levelOf(p, alice, res("get", "pods", { name: "p" }))).toBe("None")
  })

  it("resources: the group must match; an empty resource list is the whole group", () => {
    const p = policyOf([{ level: "Request", resources: [{ group: "apps" }] }])
    expect(levelOf(p, alice, res("create", "deployments", { group: "apps" }))).toBe("Request")
    expect(levelOf(p, alice, res("create", "pods"))).toBe("None")
    // the core group is the empty group (omitted in YAML)
    expect(levelOf(policyOf([{ level: "Request", resources: [{ resources: ["deployments"] }] }]), alice, res("create", "deployments", { group: "apps" }))).toBe("None")
  })

  it("resources: subresources as resource/subresource, the wildcard forms, and resourceNames", () => {
    const p = policyOf([
      { level: "None", resources: [{ group: "", resources: ["pods/log", "pods/status"] }] },
      { level: "Request", resources: [{ group: "", resources: ["configmaps"], resourceNames: ["cfg"] }] },
      { level: "RequestResponse", resources: [{ group: "", resources: ["pods"] }] },
      { level: "Metadata", resources: [{ group: "", resources: ["*/scale"] }] }
    ])
    expect(levelOf(p, alice, res("get", "pods", { name: "p", subresource: "log" }))).toBe("None")
    expect(levelOf(p, alice, res("get", "pods", { name: "p" }))).toBe("RequestResponse")
    // pods alone does not match a pod's subresource
    expect(levelOf(p, alice, res("create", "pods", { name: "p", subresource: "eviction" }))).toBe("None")
    expect(levelOf(p, alice, res("update", "replicationcontrollers", { name: "r", subresource: "scale" }))).toBe("Metadata")
    expect(levelOf(p, alice, res("get", "configmaps", { name: "cfg" }))).toBe("Request")
    expect(levelOf(p, alice, res("get", "configmaps", { name: "other" }))).toBe("None")
    // pods/* is every subresource of pods, and pods itself (upstream's TrimRight of "/*")
    const sub = policyOf([{ level: "Metadata", resources: [{ group: "", resources: ["pods/*"] }] }])
    expect(levelOf(sub, alice, res("get", "pods", { name: "p", subresource: "exec" }))).toBe("Metadata")
    expect(levelOf(sub, alice, res("get", "pods", { name: "p" }))).toBe("Metadata")
    expect(levelOf(sub, alice, res("get", "services", { name: "p", subresource: "proxy" }))).toBe("None")
    const all = policyOf([{ level: "Metadata", resources: [{ group: "", resources: ["*"] }] }])
    expect(levelOf(all, alice, res("get", "pods", { name: "p", subresource: "log" }))).toBe("Metadata")
  })

  it("namespaces: the request's; an empty string matches cluster-scoped resources; a non-resource request never", () => {
    const p = policyOf([{ level: "Request", namespaces: ["kube-system", ""] }])
    expect(levelOf(p, alice, res("get", "configmaps", { namespace: "kube-system", name: "c" }))).toBe("Request")
    expect(levelOf(p, alice, res("get", "nodes", { name: "n1" }))).toBe("Request")
    expect(levelOf(p, alice, res("get", "configmaps", { namespace: "default", name: "c" }))).toBe("None")
    expect(levelOf(p, alice, path("/healthz"))).toBe("None")
  })

  it("nonResourceURLs: exact, a trailing *, and * alone; a resource request never", () => {
    const p = policyOf([
      { level: "None", nonResourceURLs: ["/healthz*", "/version"] },
      { level: "Metadata", nonResourceURLs: ["/apis*"] },
      { level: "Request", nonResourceURLs: ["*"] }
    ])
    expect(levelOf(p, alice, path("/healthz"))).toBe("None")
    expect(levelOf(p, alice, path("/healthz/etcd"))).toBe("None")
    expect(levelOf(p, alice, path("/version"))).toBe("None")
    expect(levelOf(p, alice, path("/version/x"))).toBe("Request")
    expect(levelOf(p, alice, path("/apis/apps/v1"))).toBe("Metadata")
    expect(levelOf(p, alice, path("/metrics"))).toBe("Request")
    expect(levelOf(p, alice, res("get", "pods"))).toBe("None")
    expect(pathMatches("/api", "/api*")).toBe(true)
    expect(pathMatches("/ap", "/api*")).toBe(false)
  })

  it("a group's .k8s.io and .platform names are one group, as for RBAC", () => {
    const p = policyOf([{ level: "None", resources: [{ group: "coordination.k8s.io", resources: ["leases"] }] }, { level: "Metadata" }])
    expect(levelOf(p, kubelet, res("update", "leases", { group: "coordination.platform", namespace: "platform-node-lease", name: "n1" }))).toBe("None")
    expect(levelOf(p, kubelet, res("update", "leases", { group: "coordination.k8s.io", namespace: "kube-node-lease", name: "n1" }))).toBe("None")
  })

  it("the rule's fields intersect: a user and a resource must both match", () => {
    const p = policyOf([{ level: "RequestResponse", users: ["alice"], verbs: ["delete"], resources: [{ resources: ["secrets"] }], namespaces: ["prod"] }])
    expect(levelOf(p, alice, res("delete", "secrets", { namespace: "prod", name: "s" }))).toBe("RequestResponse")
    expect(levelOf(p, alice, res("get", "secrets", { namespace: "prod", name: "s" }))).toBe("None")
    expect(levelOf(p, alice, res("delete", "secrets", { namespace: "dev", name: "s" }))).toBe("None")
    expect(levelOf(p, kubelet, res("delete", "secrets", { namespace: "prod", name: "s" }))).toBe("None")
  })
})

describe("the policy file", () => {
  const decode = (text: string) => decodePolicy("policy.yaml", text)

  it("reads YAML and JSON", () => {
    const yaml = decode("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n  resources:\n  - group: \"\"\n    resources: [pods/log]\n")
    expect(Either.getOrThrow(yaml).policy.rules[0]!.resources![0]!.resources).toEqual(["pods/log"])
    const json = decode(JSON.stringify({ apiVersion: "audit.k8s.io/v1", kind: "Policy", rules: [{ level: "None" }] }))
    expect(Either.getOrThrow(json).policy.rules).toEqual([{ level: "None" }])
  })

  it("a bad value names the file and the field", () => {
    expect(decode("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n- level: Everything\n")).toEqual(
      Either.left('policy.yaml: rules[1].level: Expected "None" | "Metadata" | "Request" | "RequestResponse", actual "Everything"')
    )
    expect(decode("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  omitStages: [Done]\n")).toEqual(
      Either.left('policy.yaml: rules[0].omitStages[0]: Expected "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic", actual "Done"')
    )
    expect(decode("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- users: [a]\n")).toEqual(Either.left("policy.yaml: rules[0].level: is missing"))
  })

  it("another version or kind, no rules, and upstream's validation errors", () => {
    expect(Either.getLeft(decode("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: []\n"))._tag === "Some").toBe(true)
    expect(decode("apiVersion: audit.k8s.io/v1beta1\nkind: Policy\nrules: []\n")).toEqual(
      Either.left('policy.yaml: apiVersion: expected "audit.k8s.io/v1", got "audit.k8s.io/v1beta1" (audit.k8s.io/v1beta1 and v1alpha1 are no longer read, as upstream since 1.24)')
    )
    expect(decode("apiVersion: audit.k8s.io/v1\nkind: Event\nrules: []\n")).toEqual(Either.left('policy.yaml: kind: expected "Policy", got "Event"'))
    expect(decode("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n")).toEqual(Either.left("policy.yaml: loaded illegal policy with 0 rules"))
    expect(decode("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/healthz]\n  namespaces: [a]\n")).toEqual(
      Either.left("policy.yaml: rules[0].nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs")
    )
    expect(decode("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  nonResourceURLs: [/a*b]\n")).toEqual(
      Either.left(`policy.yaml: rules[0].nonResourceURLs[0]: Invalid value: "/a*b": non-resource URL wildcards '*' must be the final character of the rule`)
    )
    expect(decode("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: None\n  resources:\n  - resourceNames: [x]\n")).toEqual(
      Either.left("policy.yaml: rules[0].resources[0].resourceNames: Invalid value: resourceNames require at least one resource")
    )
    expect(decode("rules: [").pipe(Either.getLeft)._tag).toBe("Some")
  })

  it("an unknown field is read leniently with a warning, as upstream falls back to lenient decoding", () => {
    const read = Either.getOrThrow(decode("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  userGroup: [devs]\n"))
    expect(read.policy.rules).toEqual([{ level: "Metadata" }])
    expect(read.warnings).toEqual(["policy.yaml: rules[0].userGroup: unknown field, ignored (upstream falls back to lenient decoding)"])
  })
})

/**
 * RBAC privilege escalation over HTTP (issue 36): a user who may write roles and bindings grants only what it already
 * holds, unless it may `escalate` (roles) or `bind` (the bound role), as upstream's policy-based RBAC storage.
 * Each attack is sent, its exact 403 (or 404) checked, then the server shown alive and unchanged.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import { Namespaces, RoleBindings } from "../../src/api/Resources.js"
import { authServer } from "../support/identities.js"
import { httpServer } from "../support/transports.js"
import { send, type Reply } from "../support/wire.js"
import type { InProcessClientService } from "../../src/client/Capabilities.js"
import { serverAnswer } from "../support/serverAnswer.js"

const tokens = new Map([
  ["tok-root", { name: "root", uid: "0", groups: ["system:masters"] }],
  ["tok-alice", { name: "alice", uid: "1", groups: [] as string[] }],
  ["tok-esc", { name: "esc", uid: "2", groups: [] as string[] }],
  ["tok-binder", { name: "binder", uid: "3", groups: ["binders"] }],
  ["tok-carl", { name: "carl", uid: "4", groups: [] as string[] }]
])

const rbacK8s = "/apis/rbac.authorization.k8s.io/v1"
const team = `${rbacK8s}/namespaces/team`
const group = "rbac.authorization.platform"
/** Server-side apply is served at the group's own name (the configuration's apiVersion must be the served one). */
const teamPlatform = `/apis/${group}/v1/namespaces/team`
const json = "application/json"

const statusOf = (r: Reply) => ({ code: r.code, reason: r.json?.reason, message: r.json?.message, details: r.json?.details })

const upstreamBinding = (name: string, roleKind: string, role: string, users: ReadonlyArray<string>) => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind: "RoleBinding",
  metadata: { name },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: roleKind, name: role },
  subjects: users.map((name) => ({ kind: "User", apiGroup: "rbac.authorization.k8s.io", name }))
})

const binding = upstreamBinding
const role = (name: string, rules: ReadonlyArray<object>, kind = "Role") => ({
  apiVersion: "rbac.authorization.k8s.io/v1",
  kind,
  metadata: { name },
  rules
})

/** The 403 `ConfirmNoEscalation` gives `who` (no groups of its own) for `resource` `name`, missing `rules`. */
const escalation = (resource: string, name: string, who: string, rules: ReadonlyArray<string>, groups = '["system:authenticated"]') => ({
  code: 403,
  reason: "Forbidden",
  message: `${resource}.${group} "${name}" is forbidden: user "${who}" (groups=${groups}) is attempting to grant RBAC permissions not currently held:\n${rules.join("\n")}`,
  details: { name, group, kind: resource }
})

const everythingRules = ['{APIGroups:["*"], Resources:["*"], Verbs:["*"]}']

/**
 * An RBAC server with namespace `team`, where alice is bound to ClusterRole `admin`, `esc` may create roles and
 * `escalate`, and group `binders` may create bindings and `bind` ClusterRole `edit` only.
 */
const cluster = Effect.gen(function* () {
  const base = yield* httpServer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens } })
  const as = (token: string) => (method: string, path: string, body?: unknown, contentType = json) =>
    send(base, method, path, {
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": contentType }) },
      ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
    })
  const root = as("tok-root")
  const ok = (r: Reply) => expect(r.code, r.text).toBeLessThan(300)
  ok(yield* root("POST", "/api/v1/namespaces", { metadata: { name: "team" } }))
  ok(yield* root("POST", `${team}/rolebindings`, binding("alice-admin", "ClusterRole", "admin", ["alice"])))
  ok(yield* root("POST", `${team}/roles`, role("role-writer", [{ verbs: ["create", "update", "patch", "escalate"], apiGroups: ["rbac.authorization.k8s.io"], resources: ["roles"] }])))
  ok(yield* root("POST", `${team}/rolebindings`, binding("esc-role-writer", "Role", "role-writer", ["esc"])))
  ok(yield* root("POST", `${team}/roles`, role("binder", [
    { verbs: ["create", "update", "patch"], apiGroups: ["rbac.authorization.k8s.io"], resources: ["rolebindings"] },
    { verbs: ["bind"], apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"], resourceNames: ["edit"] }
  ])))
  ok(yield* root("POST", `${team}/rolebindings`, { ...binding("binders", "Role", "binder", []), subjects: [{ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name: "binders" }] }))
  /**
   * The server answers /healthz within 100 ms: the attack left it serving. Best of three tries, so a loaded test
   * machine's pause is not taken for a wedged server (which would miss all three).
   */
  const alive = Effect.gen(function* () {
    let fastest = Number.POSITIVE_INFINITY
    for (let i = 0; i < 3 && fastest >= 100; i++) {
      const started = performance.now()
      expect((yield* root("GET", "/healthz")).text).toBe("ok")
      fastest = Math.min(fastest, performance.now() - started)
    }
    expect(fastest).toBeLessThan(100)
  })
  return { root, alice: as("tok-alice"), esc: as("tok-esc"), binder: as("tok-binder"), carl: as("tok-carl"), alive }
})

describe("RBAC escalation: bindings", () => {
  it.scoped("a namespace admin binds itself to cluster-admin: 403 listing what it lacks; no binding, and it still cannot delete its namespace", () =>
    Effect.gen(function* () {
      const { root, alice, alive } = yield* cluster
      const grab = yield* alice("POST", `${team}/rolebindings`, binding("grab", "ClusterRole", "cluster-admin", ["alice"]))
      expect(statusOf(grab)).toEqual(escalation("rolebindings", "grab", "alice", [...everythingRules, '{NonResourceURLs:["*"], Verbs:["*"]}']))
      expect((yield* root("GET", `${team}/rolebindings/grab`)).code).toBe(404)
      const deleteNamespace = yield* alice("DELETE", "/api/v1/namespaces/team")
      expect(deleteNamespace.code).toBe(403)
      expect((yield* root("GET", "/api/v1/namespaces/team")).json.status.phase).toBe("Active")
      yield* alive
    }))

  it.scoped("a binding to system:node, and a dry run of one: 403 naming every node permission an admin lacks", () =>
    Effect.gen(function* () {
      const { root, alice, alive } = yield* cluster
      const expected = escalation("rolebindings", "nodes", "alice", [
        '{APIGroups:["authorization.platform"], Resources:["subjectaccessreviews"], Verbs:["create"]}',
        '{APIGroups:[""], Resources:["nodes"], Verbs:["create" "get" "list" "watch" "update" "patch"]}',
        '{APIGroups:[""], Resources:["nodes/status"], Verbs:["update" "patch"]}',
        '{APIGroups:[""], Resources:["pods/status"], Verbs:["update" "patch"]}'
      ].sort())
      const nodes = yield* alice("POST", `${team}/rolebindings`, binding("nodes", "ClusterRole", "system:node", ["alice"]))
      expect(statusOf(nodes)).toEqual(expected)
      const dryRun = yield* alice("POST", `${team}/rolebindings?dryRun=All`, binding("nodes", "ClusterRole", "system:node", ["alice"]))
      expect(statusOf(dryRun)).toEqual(expected)
      expect((yield* root("GET", `${team}/rolebindings/nodes`)).code).toBe(404)
      yield* alive
    }))

  it.scoped("a binding to a ClusterRole that does not exist: the role registry's 404 (upstream GetRoleReferenceRules), nothing stored", () =>
    Effect.gen(function* () {
      const { root, alice, alive } = yield* cluster
      const ghost = yield* alice("POST", `${team}/rolebindings`, binding("ghost", "ClusterRole", "ghost", ["alice"]))
      expect(statusOf(ghost)).toEqual({
        code: 404,
        reason: "NotFound",
        message: `clusterroles.${group} "ghost" not found`,
        details: { name: "ghost", group, kind: "clusterroles" }
      })
      const missingRole = yield* alice("POST", `${team}/rolebindings`, binding("ghost", "Role", "ghost", ["alice"]))
      expect(statusOf(missingRole).message).toBe(`roles.${group} "ghost" not found`)
      expect((yield* root("GET", `${team}/rolebindings/ghost`)).code).toBe(404)
      // Whoever holds everything (system:masters) may bind a role that does not exist yet, as upstream.
      expect((yield* root("POST", `${team}/rolebindings`, binding("ghost", "ClusterRole", "ghost", ["alice"]))).code).toBe(201)
      yield* alive
    }))

  it.scoped("adding oneself to a cluster-admin binding by update, merge patch, JSON patch and apply: 403 each, the subjects unchanged", () =>
    Effect.gen(function* () {
      const { root, alice, alive } = yield* cluster
      const created = yield* root("POST", `${team}/rolebindings`, binding("ops", "ClusterRole", "cluster-admin", ["carol"]))
      expect(created.code).toBe(201)
      const refused = escalation("rolebindings", "ops", "alice", [...everythingRules, '{NonResourceURLs:["*"], Verbs:["*"]}'])
      const withAlice = { ...created.json, subjects: [...created.json.subjects, { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" }] }
      expect(statusOf(yield* alice("PUT", `${team}/rolebindings/ops`, withAlice))).toEqual(refused)
      expect(statusOf(yield* alice("PATCH", `${team}/rolebindings/ops`, { subjects: withAlice.subjects }, "application/merge-patch+json"))).toEqual(refused)
      expect(statusOf(yield* alice("PATCH", `${team}/rolebindings/ops`, { subjects: withAlice.subjects }, "application/strategic-merge-patch+json"))).toEqual(refused)
      const jsonPatch = [{ op: "add", path: "/subjects/-", value: { kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "alice" } }]
      expect(statusOf(yield* alice("PATCH", `${team}/rolebindings/ops`, jsonPatch, "application/json-patch+json"))).toEqual(refused)
      const apply = { ...binding("ops", "ClusterRole", "cluster-admin", ["carol", "alice"]), apiVersion: `${group}/v1` }
      expect(statusOf(yield* alice("PATCH", `${teamPlatform}/rolebindings/ops?fieldManager=alice&force=true`, apply, "application/apply-patch+yaml"))).toEqual(refused)
      const stored = yield* root("GET", `${team}/rolebindings/ops`)
      expect(stored.json.subjects).toEqual(created.json.subjects)
      expect(stored.json.subjects.map((s: { name: string }) => s.name)).toEqual(["carol"])
      expect(stored.json.metadata.resourceVersion).toBe(created.json.metadata.resourceVersion)
      // Server-side apply that would create a new binding goes through the same check.
      const applyNew = yield* alice(
        "PATCH",
        `${teamPlatform}/rolebindings/new?fieldManager=alice`,
        { ...binding("new", "ClusterRole", "cluster-admin", ["alice"]), apiVersion: `${group}/v1` },
        "application/apply-patch+yaml"
      )
      expect(statusOf(applyNew)).toEqual(escalation("rolebindings", "new", "alice", [...everythingRules, '{NonResourceURLs:["*"], Verbs:["*"]}']))
      expect((yield* root("GET", `${team}/rolebindings/new`)).code).toBe(404)
      yield* alive
    }))

  it.scoped("changing only finalizers and owner references of a binding whose role one lacks is allowed (IsOnlyMutatingGCFields)", () =>
    Effect.gen(function* () {
      const { root, alice } = yield* cluster
      expect((yield* root("POST", `${team}/rolebindings`, binding("ops", "ClusterRole", "cluster-admin", ["carol"]))).code).toBe(201)
      const gc = yield* alice("PATCH", `${team}/rolebindings/ops`, { metadata: { finalizers: ["example.com/hold"] } }, "application/merge-patch+json")
      expect(gc.code, gc.text).toBe(200)
      expect(gc.json.metadata.finalizers).toEqual(["example.com/hold"])
      const label = yield* alice("PATCH", `${team}/rolebindings/ops`, { metadata: { labels: { a: "b" } } }, "application/merge-patch+json")
      expect(label.code).toBe(403)
    }))

  it.scoped("a binding to roles one holds is created; bind on a named ClusterRole allows that one only", () =>
    Effect.gen(function* () {
      const { root, alice, binder, alive } = yield* cluster
      expect((yield* alice("POST", `${team}/rolebindings`, binding("viewers", "ClusterRole", "view", ["dave"]))).code).toBe(201)
      expect((yield* alice("POST", `${team}/rolebindings`, binding("editors", "ClusterRole", "edit", ["dave"]))).code).toBe(201)
      expect((yield* alice("POST", `${team}/rolebindings`, binding("admins", "ClusterRole", "admin", ["dave"]))).code).toBe(201)
      // binder holds almost nothing but may bind `edit`.
      expect((yield* binder("POST", `${team}/rolebindings`, binding("edit2", "ClusterRole", "edit", ["erin"]))).code).toBe(201)
      const admin = yield* binder("POST", `${team}/rolebindings`, binding("admin2", "ClusterRole", "admin", ["erin"]))
      expect(admin.code).toBe(403)
      expect(admin.json.message).toMatch(/^rolebindings\.rbac\.authorization\.platform "admin2" is forbidden: user "binder" \(groups=\["binders" "system:authenticated"\]\) is attempting to grant RBAC permissions not currently held:\n\{APIGroups:\[""\], Resources:\["configmaps"\]/)
      // bind is checked in the binding's namespace: none in `default`.
      expect((yield* root("POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", role("x", []))).code).toBe(201)
      expect((yield* binder("POST", `${rbacK8s}/namespaces/default/rolebindings`, binding("edit3", "ClusterRole", "edit", ["erin"]))).code).toBe(403)
      yield* alive
    }))

  it.scoped("a missing role among one's own bindings is named after the missing rules (\"; resolution errors\")", () =>
    Effect.gen(function* () {
      const { root, alice } = yield* cluster
      expect((yield* root("POST", `${team}/rolebindings`, binding("alice-gone", "Role", "gone", ["alice"]))).code).toBe(201)
      const grab = yield* alice("POST", `${team}/rolebindings`, binding("grab", "ClusterRole", "cluster-admin", ["alice"]))
      expect(grab.json.message).toBe(
        `rolebindings.${group} "grab" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n` +
          `${everythingRules[0]}\n{NonResourceURLs:["*"], Verbs:["*"]}; resolution errors: [roles.${group} "gone" not found]`
      )
    }))
})

describe("RBAC escalation: roles", () => {
  it.scoped("a namespace admin creates a Role with */*/*: 403; by update, merge patch and apply of its own Role: 403, the rules unchanged", () =>
    Effect.gen(function* () {
      const { root, alice, alive } = yield* cluster
      const all = [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]
      expect(statusOf(yield* alice("POST", `${team}/roles`, role("all", all)))).toEqual(escalation("roles", "all", "alice", everythingRules))
      expect((yield* root("GET", `${team}/roles/all`)).code).toBe(404)
      const generated = yield* alice("POST", `${team}/roles`, { ...role("", all), metadata: { generateName: "all-" } })
      expect(generated.json.message).toMatch(/^roles\.rbac\.authorization\.platform is forbidden: user "alice"/)
      // A Role alice may hold: created.
      const small = yield* alice("POST", `${team}/roles`, role("pods", [{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }]))
      expect(small.code).toBe(201)
      const refused = escalation("roles", "pods", "alice", everythingRules)
      expect(statusOf(yield* alice("PUT", `${team}/roles/pods`, { ...small.json, rules: all }))).toEqual(refused)
      expect(statusOf(yield* alice("PATCH", `${team}/roles/pods`, { rules: all }, "application/merge-patch+json"))).toEqual(refused)
      const apply = { ...role("pods", all), apiVersion: `${group}/v1` }
      expect(statusOf(yield* alice("PATCH", `${teamPlatform}/roles/pods?fieldManager=alice&force=true`, apply, "application/apply-patch+yaml"))).toEqual(refused)
      const stored = yield* root("GET", `${team}/roles/pods`)
      expect(stored.json.rules).toEqual([{ verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }])
      expect(stored.json.metadata.resourceVersion).toBe(small.json.metadata.resourceVersion)
      yield* alive
    }))

  it.scoped("missing rules are broken down, compacted by resource and sorted; subresources and names count", () =>
    Effect.gen(function* () {
      const { alice } = yield* cluster
      const rules = [
        { verbs: ["get", "delete"], apiGroups: ["", "apps"], resources: ["nodes", "pods", "pods/log"] },
        { verbs: ["get"], apiGroups: [""], resources: ["secrets"], resourceNames: ["a", "b"] }
      ]
      // alice's `admin` holds get on core pods/log (through upstream's `view` rules), so only its delete is missing.
      const reply = yield* alice("POST", `${team}/roles`, role("mixed", rules))
      expect(statusOf(reply)).toEqual(
        escalation("roles", "mixed", "alice", [
          '{APIGroups:[""], Resources:["nodes"], Verbs:["get" "delete"]}',
          '{APIGroups:[""], Resources:["pods/log"], Verbs:["delete"]}',
          '{APIGroups:[""], Resources:["secrets"], ResourceNames:["a"], Verbs:["get"]}',
          '{APIGroups:[""], Resources:["secrets"], ResourceNames:["b"], Verbs:["get"]}',
          '{APIGroups:["apps"], Resources:["nodes"], Verbs:["get" "delete"]}',
          '{APIGroups:["apps"], Resources:["pods"], Verbs:["get" "delete"]}',
          '{APIGroups:["apps"], Resources:["pods/log"], Verbs:["get" "delete"]}'
        ])
      )
    }))

  it.scoped("escalate on roles lets a user write rules it does not hold; its namespace only", () =>
    Effect.gen(function* () {
      const { root, esc, alive } = yield* cluster
      const all = [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }]
      expect((yield* esc("POST", `${team}/roles`, role("all", all))).code).toBe(201)
      expect((yield* esc("PATCH", `${team}/roles/all`, { rules: [{ verbs: ["get"], apiGroups: ["*"], resources: ["*"] }] }, "application/merge-patch+json")).code).toBe(200)
      const elsewhere = yield* esc("POST", `${rbacK8s}/namespaces/default/roles`, role("all", all))
      expect(elsewhere.json.message).toMatch(/is forbidden: User "esc" cannot create resource "roles" in API group "rbac.authorization.k8s.io" in the namespace "default"$/)
      expect((yield* root("GET", `${rbacK8s}/namespaces/default/roles/all`)).code).toBe(404)
      yield* alive
    }))
})

describe("RBAC escalation: rules that break down into millions", () => {
  it.scoped("a Role of 200 verbs × 200 groups × 200 resources (8,000,000 rules broken down) is refused at once, the server answering on", () =>
    Effect.gen(function* () {
      const { root, alice, alive } = yield* cluster
      const many = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`)
      const huge = role("huge", [{ verbs: many("v", 200), apiGroups: many("g", 200), resources: many("r", 200) }])
      const reply = yield* alice("POST", `${team}/roles`, huge)
      expect(statusOf(reply)).toEqual({
        code: 403,
        reason: "Forbidden",
        message: `roles.${group} "huge" is forbidden: user "alice" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n(more than 20000 rules once broken down: the rest were not checked)`,
        details: { name: "huge", group, kind: "roles" }
      })
      expect((yield* root("GET", `${team}/roles/huge`)).code).toBe(404)
      yield* alive
      // Held whole by one rule (*/*/* here), it is not broken down at all: stored at once.
      expect((yield* root("POST", `${rbacK8s}/clusterroles`, role("all", [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }], "ClusterRole"))).code).toBe(201)
      expect((yield* root("POST", `${team}/rolebindings`, binding("alice-all", "ClusterRole", "all", ["alice"]))).code).toBe(201)
      expect((yield* alice("POST", `${team}/roles`, huge)).code).toBe(201)
      yield* alive
    }))
})

describe("RBAC escalation: cluster scope", () => {
  it.scoped("a user who may write ClusterRoles and ClusterRoleBindings grants only what it holds cluster-wide", () =>
    Effect.gen(function* () {
      const { root, alice, carl, alive } = yield* cluster
      const writer = [
        { verbs: ["create", "update", "patch"], apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles", "clusterrolebindings", "rolebindings"] },
        { verbs: ["get", "list"], apiGroups: [""], resources: ["pods"] }
      ]
      expect((yield* root("POST", `${rbacK8s}/clusterroles`, role("rbac-writer", writer, "ClusterRole"))).code).toBe(201)
      const crb = (name: string, roleName: string, user: string) => ({ ...binding(name, "ClusterRole", roleName, [user]), kind: "ClusterRoleBinding" })
      expect((yield* root("POST", `${rbacK8s}/clusterrolebindings`, crb("carl-writer", "rbac-writer", "carl"))).code).toBe(201)
      const grab = yield* carl("POST", `${rbacK8s}/clusterrolebindings`, crb("grab", "cluster-admin", "carl"))
      expect(statusOf(grab)).toEqual(escalation("clusterrolebindings", "grab", "carl", [...everythingRules, '{NonResourceURLs:["*"], Verbs:["*"]}']))
      expect((yield* root("GET", `${rbacK8s}/clusterrolebindings/grab`)).code).toBe(404)
      const big = yield* carl("POST", `${rbacK8s}/clusterroles`, role("big", [{ verbs: ["*"], apiGroups: [""], resources: ["secrets"] }], "ClusterRole"))
      expect(statusOf(big)).toEqual(escalation("clusterroles", "big", "carl", ['{APIGroups:[""], Resources:["secrets"], Verbs:["*"]}']))
      const urls = yield* carl("POST", `${rbacK8s}/clusterroles`, role("urls", [{ verbs: ["get"], nonResourceURLs: ["/metrics"] }], "ClusterRole"))
      expect(urls.json.message).toBe(
        `clusterroles.${group} "urls" is forbidden: user "carl" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n{NonResourceURLs:["/metrics"], Verbs:["get"]}`
      )
      // What carl holds cluster-wide he may grant.
      expect((yield* carl("POST", `${rbacK8s}/clusterroles`, role("pod-reader", [{ verbs: ["get"], apiGroups: [""], resources: ["pods"] }], "ClusterRole"))).code).toBe(201)
      expect((yield* carl("POST", `${rbacK8s}/clusterroles`, role("health", [{ verbs: ["get"], nonResourceURLs: ["/healthz"] }], "ClusterRole"))).code).toBe(201)
      expect((yield* carl("POST", `${rbacK8s}/clusterrolebindings`, crb("readers", "pod-reader", "dave"))).code).toBe(201)
      // A binding in a namespace that does not exist: NamespaceLifecycle's 404 comes first, as upstream's admission.
      const nowhere = yield* carl("POST", `${rbacK8s}/namespaces/nowhere/rolebindings`, binding("grab", "ClusterRole", "cluster-admin", ["carl"]))
      expect(statusOf(nowhere)).toEqual({ code: 404, reason: "NotFound", message: 'namespaces "nowhere" not found', details: { name: "nowhere", kind: "namespaces" } })
      // alice's admin in `team` does not count at the cluster scope (and she may not write ClusterRoleBindings anyway).
      expect((yield* alice("POST", `${rbacK8s}/clusterrolebindings`, crb("x", "view", "alice"))).code).toBe(403)
      yield* alive
    }))

  it.scoped("a ClusterRole's aggregationRule is stored; setting or dropping one needs full authority (cluster-admin), as upstream's", () =>
    Effect.gen(function* () {
      const { root, carl, alive } = yield* cluster
      const writer = [{ verbs: ["create", "update", "patch", "get"], apiGroups: ["rbac.authorization.k8s.io"], resources: ["clusterroles"] }]
      expect((yield* root("POST", `${rbacK8s}/clusterroles`, role("cr-writer", writer, "ClusterRole"))).code).toBe(201)
      const crb = { ...binding("carl-cr-writer", "ClusterRole", "cr-writer", ["carl"]), kind: "ClusterRoleBinding" }
      expect((yield* root("POST", `${rbacK8s}/clusterrolebindings`, crb)).code).toBe(201)
      const aggregationRule = { clusterRoleSelectors: [{ matchLabels: { "example.com/aggregate-to-monitoring": "true" } }] }
      const aggregated = { ...role("monitoring", [], "ClusterRole"), aggregationRule }
      const refused = yield* carl("POST", `${rbacK8s}/clusterroles`, aggregated)
      expect(statusOf(refused)).toEqual({
        code: 403,
        reason: "Forbidden",
        message: `clusterroles.${group} "monitoring" is forbidden: must have cluster-admin privileges to use the aggregationRule`,
        details: { name: "monitoring", group, kind: "clusterroles" }
      })
      const created = yield* root("POST", `${rbacK8s}/clusterroles`, aggregated)
      expect([created.code, created.json.aggregationRule]).toEqual([201, aggregationRule])
      expect((yield* root("GET", `${rbacK8s}/clusterroles/monitoring`)).json.aggregationRule).toEqual(aggregationRule)
      // Dropping the rule is as much a change of it.
      const dropped = yield* carl("PUT", `${rbacK8s}/clusterroles/monitoring`, { ...created.json, aggregationRule: null })
      expect([dropped.code, dropped.json.message]).toEqual([403, `clusterroles.${group} "monitoring" is forbidden: must have cluster-admin privileges to use the aggregationRule`])
      const empty = yield* root("POST", `${rbacK8s}/clusterroles`, { ...role("empty-aggregation", [], "ClusterRole"), aggregationRule: { clusterRoleSelectors: [] } })
      expect([empty.code, empty.json.message]).toEqual([
        422,
        `ClusterRole.${group} "empty-aggregation" is invalid: aggregationRule.clusterRoleSelectors: Required value: at least one clusterRoleSelector required if aggregationRule is non-nil`
      ])
      yield* alive
    }))
})

describe("RBAC escalation: in-process identities", () => {
  it.scoped("an in-process client acting as a namespace admin is refused a cluster-admin binding as over HTTP, by both its verbs and its immediate view", () =>
    Effect.gen(function* () {
      const s = yield* authServer("in-process", { authorizationMode: "RBAC", authentication: { anonymous: false, tokens } })
      const root = yield* s.clientAs({ token: "tok-root" })
      const alice = yield* s.clientAs({ token: "tok-alice" })
      // In-process bodies are in the served version.
      const binding = (name: string, roleKind: string, role: string, users: ReadonlyArray<string>) => ({ ...upstreamBinding(name, roleKind, role, users), apiVersion: `${group}/v1` })
      yield* Effect.orDie(root.create(Namespaces, { metadata: { name: "team" } }))
      yield* Effect.orDie(root.create(RoleBindings, binding("alice-admin", "ClusterRole", "admin", ["alice"]), { namespace: "team" }))
      const expected = escalation("rolebindings", "grab", "alice", [...everythingRules, '{NonResourceURLs:["*"], Verbs:["*"]}'])
      const refused = yield* serverAnswer(alice.create(RoleBindings, binding("grab", "ClusterRole", "cluster-admin", ["alice"]), { namespace: "team" }))
      expect({ code: refused.code, reason: refused.reason, message: refused.status.message, details: refused.status.details }).toEqual(expected)
      const now = yield* Clock.currentTimeMillis
      const immediate = yield* serverAnswer(Effect.suspend(() => (alice as InProcessClientService).at(now)!.create(RoleBindings, binding("grab", "ClusterRole", "cluster-admin", ["alice"]), { namespace: "team" })))
      expect(immediate.status.message).toBe(expected.message)
      expect((yield* serverAnswer(root.get(RoleBindings, "grab", { namespace: "team" }))).code).toBe(404)
      // What alice holds she may grant in-process too.
      expect((yield* alice.create(RoleBindings, binding("viewers", "ClusterRole", "view", ["dave"]), { namespace: "team" })).code).toBe(201)
    }))
})

describe("RBAC escalation: AlwaysAllow", () => {
  it.scoped("with authorization open (the default) nothing is checked: anyone may bind cluster-admin, as upstream's escalate/bind checks always pass", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const crb = { ...binding("anyone", "ClusterRole", "cluster-admin", ["system:anonymous"]), kind: "ClusterRoleBinding" }
      const reply = yield* send(base, "POST", `${rbacK8s}/clusterrolebindings`, { body: JSON.stringify(crb), headers: { "content-type": json } })
      expect(reply.code).toBe(201)
    }))
})

/** Upstream names over HTTP (docs/upstream-names.md): `.k8s.io` groups, core v1 events, legacy watch paths, query booleans. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "undici"
import { httpServer } from "../../support/transports.js"

const send = (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  Effect.promise(async () => {
    const res = await request(base + path, {
      method: method as "GET",
      body: body === undefined ? undefined : JSON.stringify(body),
      headers: { "content-type": "application/json", ...headers }
    })
    const text = await res.body.text()
    return { code: res.statusCode, json: text.startsWith("{") ? JSON.parse(text) : undefined, text }
  })

/** The first `n` lines of a watch stream, then the connection is closed. */
const watchLines = (base: string, path: string, n: number) =>
  Effect.promise(async () => {
    const controller = new AbortController()
    const res = await request(base + path, { signal: controller.signal })
    const lines: Array<any> = []
    let buffered = ""
    for await (const chunk of res.body) {
      buffered += String(chunk)
      let nl: number
      while ((nl = buffered.indexOf("\n")) >= 0 && lines.length < n) {
        lines.push(JSON.parse(buffered.slice(0, nl)))
        buffered = buffered.slice(nl + 1)
      }
      if (lines.length >= n) break
    }
    controller.abort()
    return { code: res.statusCode, lines }
  })

const event = (name: string, apiVersion = "events.k8s.io/v1") => ({
  apiVersion,
  kind: "Event",
  metadata: { name, namespace: "default" },
  eventTime: "2026-01-01T00:00:00.000000Z",
  reportingController: "test/controller",
  reportingInstance: "instance-1",
  action: "Testing",
  reason: "Tested",
  type: "Warning",
  note: "hello",
  regarding: { kind: "Pod", namespace: "default", name: "p1", uid: "u1", apiVersion: "v1" }
})

describe("upstream names", () => {
  it.scoped("coordination.k8s.io leases are the coordination.platform leases, in upstream's system namespaces", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "n1" }, spec: { holderIdentity: "n1", leaseDurationSeconds: 40 } }
      const created = yield* send(base, "POST", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", lease)
      expect(created.code).toBe(201)
      expect(created.json.apiVersion).toBe("coordination.k8s.io/v1")
      expect(created.json.metadata.namespace).toBe("kube-node-lease")
      const stored = yield* send(base, "GET", "/apis/coordination.platform/v1/namespaces/platform-node-lease/leases/n1")
      expect(stored.code).toBe(200)
      expect(stored.json.apiVersion).toBe("coordination.platform/v1")
      expect(stored.json.metadata.uid).toBe(created.json.metadata.uid)
      const list = yield* send(base, "GET", "/apis/coordination.k8s.io/v1/leases")
      expect(list.json.apiVersion).toBe("coordination.k8s.io/v1")
      // Items carry no kind/apiVersion, as upstream serves list items.
      expect(list.json.items.map((l: any) => `${l.apiVersion} ${l.metadata.namespace}/${l.metadata.name}`)).toEqual(["undefined kube-node-lease/n1"])
      const updated = yield* send(base, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", {
        ...created.json,
        spec: { ...created.json.spec, holderIdentity: "n2" }
      })
      expect(updated.code).toBe(200)
      expect(updated.json.spec.holderIdentity).toBe("n2")
      // A body naming the spec's own group is a different apiVersion on this path, as upstream would say.
      const wrong = yield* send(base, "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", { ...lease, apiVersion: "coordination.platform/v1" })
      expect(wrong.code).toBe(400)
      expect(wrong.json.message).toBe("the API version in the data (coordination.platform/v1) does not match the expected API version (coordination.k8s.io/v1)")
    })
  )

  it.scoped("events.k8s.io and core v1 show the same stored events; core v1 selects by involvedObject", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const created = yield* send(base, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", event("e1"))
      expect(created.code).toBe(201)
      expect(created.json.apiVersion).toBe("events.k8s.io/v1")
      const core = yield* send(base, "GET", "/api/v1/namespaces/default/events/e1")
      expect(core.code).toBe(200)
      expect(core.json).toMatchObject({
        kind: "Event",
        apiVersion: "v1",
        involvedObject: { kind: "Pod", name: "p1", uid: "u1" },
        reason: "Tested",
        message: "hello",
        type: "Warning",
        source: {},
        firstTimestamp: null,
        lastTimestamp: null,
        eventTime: "2026-01-01T00:00:00.000000Z",
        reportingComponent: "test/controller",
        reportingInstance: "instance-1"
      })
      const selected = yield* send(base, "GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dp1,involvedObject.kind%3DPod")
      expect(selected.json.kind).toBe("EventList")
      expect(selected.json.apiVersion).toBe("v1")
      expect(selected.json.items.map((e: any) => e.message)).toEqual(["hello"])
      const none = yield* send(base, "GET", "/api/v1/events?fieldSelector=involvedObject.name%3Dother")
      expect(none.json.items).toEqual([])
      // Core v1 event writes are not served (they would need core v1's own validation): 405, and discovery says so.
      const write = yield* send(base, "POST", "/api/v1/namespaces/default/events", event("e2", "v1"))
      expect(write.code).toBe(405)
      const discovery = yield* send(base, "GET", "/api/v1")
      expect(discovery.json.resources.find((r: any) => r.name === "events")).toEqual({
        name: "events",
        singularName: "event",
        namespaced: true,
        kind: "Event",
        verbs: ["delete", "deletecollection", "get", "list", "watch"],
        shortNames: ["ev"]
      })
      // The .k8s.io aliases are served by path, not listed (api-resources shows leases and events once), except
      // rbac.authorization.k8s.io: kubectl maps an RBAC manifest's kind by discovery.
      const groups = yield* send(base, "GET", "/apis")
      expect(groups.json.groups.map((g: any) => g.name)).toEqual(["apps", "coordination.platform", "events.platform", "rbac.authorization.platform", "rbac.authorization.k8s.io", "authorization.platform", "authentication.platform", "metrics.k8s.io"])
      const deleted = yield* send(base, "DELETE", "/api/v1/namespaces/default/events/e1")
      expect(deleted.code).toBe(200)
      expect((yield* send(base, "GET", "/apis/events.platform/v1/namespaces/default/events/e1")).code).toBe(404)
    })
  )

  it.scoped("rbac.authorization.k8s.io is listed (legacy and aggregated discovery, OpenAPI v3) and writes the spec's RBAC objects", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const group = yield* send(base, "GET", "/apis/rbac.authorization.k8s.io")
      expect([group.code, group.json]).toEqual([
        200,
        {
          kind: "APIGroup",
          apiVersion: "v1",
          name: "rbac.authorization.k8s.io",
          versions: [{ groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" }],
          preferredVersion: { groupVersion: "rbac.authorization.k8s.io/v1", version: "v1" }
        }
      ])
      const resources = yield* send(base, "GET", "/apis/rbac.authorization.k8s.io/v1")
      expect(resources.json.groupVersion).toBe("rbac.authorization.k8s.io/v1")
      expect(resources.json.resources.map((r: any) => `${r.name} ${r.kind} ${r.namespaced} ${r.verbs.join(",")}`)).toEqual([
        "roles Role true create,delete,deletecollection,get,list,patch,update,watch",
        "clusterroles ClusterRole false create,delete,deletecollection,get,list,patch,update,watch",
        "rolebindings RoleBinding true create,delete,deletecollection,get,list,patch,update,watch",
        "clusterrolebindings ClusterRoleBinding false create,delete,deletecollection,get,list,patch,update,watch"
      ])
      const aggregated = yield* send(base, "GET", "/apis", undefined, { accept: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList" })
      const listed = aggregated.json.items.find((g: any) => g.metadata.name === "rbac.authorization.k8s.io")
      expect(listed.versions.map((v: any) => [v.version, v.resources.map((r: any) => r.resource)])).toEqual([["v1", ["roles", "clusterroles", "rolebindings", "clusterrolebindings"]]])
      const index = yield* send(base, "GET", "/openapi/v3")
      expect(Object.keys(index.json.paths)).toContain("apis/rbac.authorization.k8s.io/v1")
      const doc = yield* send(base, "GET", "/openapi/v3/apis/rbac.authorization.k8s.io/v1")
      expect(doc.json.components.schemas["io.k8s.api.rbac.v1.Role"]["x-kubernetes-group-version-kind"]).toEqual([
        { group: "rbac.authorization.platform", kind: "Role", version: "v1" },
        { group: "rbac.authorization.k8s.io", kind: "Role", version: "v1" }
      ])
      // Not listed: the other aliases stay path-only
      expect((yield* send(base, "GET", "/apis/coordination.k8s.io")).code).toBe(404)

      const role = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "r", namespace: "default" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] }
      const created = yield* send(base, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles", role)
      expect([created.code, created.json.apiVersion]).toEqual([201, "rbac.authorization.k8s.io/v1"])
      const binding = {
        apiVersion: "rbac.authorization.k8s.io/v1",
        kind: "RoleBinding",
        metadata: { name: "b", namespace: "default" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "r" },
        subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: "u" }]
      }
      const bound = yield* send(base, "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings", binding)
      expect([bound.code, bound.json.roleRef]).toEqual([201, binding.roleRef])
      const stored = yield* send(base, "GET", "/apis/rbac.authorization.platform/v1/namespaces/default/roles/r")
      expect([stored.json.apiVersion, stored.json.metadata.uid]).toEqual(["rbac.authorization.platform/v1", created.json.metadata.uid])
    })
  )

  it.scoped("server-side apply at a .k8s.io path takes that group's apiVersion, as upstream's applyPatcher compares with the URL's", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const apply = (path: string, body: unknown) => send(base, "PATCH", `${path}?fieldManager=kubectl`, body, { "content-type": "application/apply-patch+yaml" })
      const rbac = "/apis/rbac.authorization.k8s.io/v1"
      const role = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "Role", metadata: { name: "ssa" }, rules: [{ apiGroups: [""], resources: ["pods"], verbs: ["get"] }] }
      const created = yield* apply(`${rbac}/namespaces/default/roles/ssa`, role)
      expect([created.code, created.json.apiVersion, created.json.rules], created.text).toEqual([201, "rbac.authorization.k8s.io/v1", role.rules])
      const again = yield* apply(`${rbac}/namespaces/default/roles/ssa`, { ...role, rules: [{ ...role.rules[0], verbs: ["get", "list"] }] })
      expect([again.code, again.json.rules[0].verbs]).toEqual([200, ["get", "list"]])
      const clusterRole = yield* apply(`${rbac}/clusterroles/ssa`, { ...role, kind: "ClusterRole" })
      expect(clusterRole.code, clusterRole.text).toBe(201)
      const lease = yield* apply("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/ssa", { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "ssa" }, spec: { holderIdentity: "ssa" } })
      expect([lease.code, lease.json.apiVersion, lease.json.metadata.namespace], lease.text).toEqual([201, "coordination.k8s.io/v1", "kube-node-lease"])
      const ev = yield* apply("/apis/events.k8s.io/v1/namespaces/default/events/ssa", { ...event("ssa"), metadata: { name: "ssa" } })
      expect([ev.code, ev.json.apiVersion], ev.text).toEqual([201, "events.k8s.io/v1"])
      // The spec's own apiVersion at the .k8s.io path, and the .k8s.io one at the spec's path, are each refused.
      const platformAtView = yield* apply(`${rbac}/namespaces/default/roles/ssa`, { ...role, apiVersion: "rbac.authorization.platform/v1" })
      expect([platformAtView.code, platformAtView.json.message]).toEqual([
        400,
        "Incorrect version specified in apply patch. Specified patch version: rbac.authorization.platform/v1, expected: rbac.authorization.k8s.io/v1"
      ])
      const viewAtPlatform = yield* apply("/apis/rbac.authorization.platform/v1/namespaces/default/roles/ssa", role)
      expect([viewAtPlatform.code, viewAtPlatform.json.message]).toEqual([
        400,
        "Incorrect version specified in apply patch. Specified patch version: rbac.authorization.k8s.io/v1, expected: rbac.authorization.platform/v1"
      ])
    })
  )

  it.scoped("legacy /watch/ paths stream events, a name pins one object", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      for (const name of ["a", "b"]) yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name }, data: { k: name } })
      const all = yield* watchLines(base, "/api/v1/watch/namespaces/default/configmaps?resourceVersion=0", 2)
      expect(all.code).toBe(200)
      expect(all.lines.map((l) => `${l.type} ${l.object.metadata.name}`).sort()).toEqual(["ADDED a", "ADDED b"])
      const one = yield* watchLines(base, "/api/v1/watch/namespaces/default/configmaps/b?resourceVersion=0", 1)
      expect(one.lines.map((l) => `${l.type} ${l.object.metadata.name}`)).toEqual(["ADDED b"])
      const events = yield* send(base, "POST", "/apis/events.k8s.io/v1/namespaces/default/events", event("e1"))
      expect(events.code).toBe(201)
      const coreWatch = yield* watchLines(base, "/api/v1/watch/events", 1)
      expect(coreWatch.lines[0].object).toMatchObject({ apiVersion: "v1", message: "hello" })
      // Nothing after the verb: upstream's RequestInfo fails and its filter answers 500 (test/hardening/requestInfo.test.ts).
      expect((yield* send(base, "GET", "/api/v1/watch")).code).toBe(500)
    })
  )

  it.scoped("boolean parameters as upstream converts them: 0 and any-case false are false, anything else true", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { metadata: { name: "a" } })
      for (const v of ["True", "TRUE", "yes", "", "1"]) {
        const w = yield* watchLines(base, `/api/v1/namespaces/default/configmaps?watch=${v}&resourceVersion=0`, 1)
        expect(w.lines[0].type, `watch=${v}`).toBe("ADDED")
      }
      for (const v of ["0", "False", "FALSE", "false"]) {
        const l = yield* send(base, "GET", `/api/v1/namespaces/default/configmaps?watch=${v}`)
        expect(l.json.kind, `watch=${v}`).toBe("ConfigMapList")
      }
      // pretty goes through strconv.ParseBool: `True` indents, `false` does not even for curl.
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/configmaps/a?pretty=True")).text).toContain('\n  "kind"')
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/configmaps/a?pretty=false", undefined, { "user-agent": "curl/8.0" })).text).not.toContain("\n ")
    })
  )
})

/**
 * `metrics.k8s.io/v1beta1` (issue 38, `kubectl top`): NodeMetrics and PodMetrics in metrics-server's shape, listed,
 * got, by namespace and label selector, discovered (legacy and aggregated), refused as metrics-server refuses, and
 * empty without a live cluster.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"
import { containerUsage } from "../../../simulator/apiserver/metricsapi/SimulatedUsage.js"
import { usageQuantities } from "../../../simulator/apiserver/metricsapi/ResourceMetrics.js"
import { send } from "../../support/wire.js"

const json = { "content-type": "application/json" }
const merge = { "content-type": "application/merge-patch+json" }
const metrics = "/apis/metrics.k8s.io/v1beta1"

const server = (liveCluster: boolean) =>
  Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: false, liveCluster }), (s) => s.url).pipe(Effect.provide(ApiServer.layer({})))

const ready = { conditions: [{ type: "Ready", status: "True" }], capacity: { cpu: "8", memory: "32Gi" }, allocatable: { cpu: "8", memory: "32Gi" } }

/** Two simulated Ready nodes, a third not simulated; a running pod on n1 with requests, one pending. */
const seed = (base: string) =>
  Effect.gen(function* () {
    for (const [name, labels] of [["n1", { "clustersim.io/simulated": "true", zone: "a" }], ["n2", { "clustersim.io/simulated": "true", zone: "b" }], ["other", {}]] as const)
      expect((yield* send(base, "POST", "/api/v1/nodes", { body: JSON.stringify({ metadata: { name, labels }, status: ready }), headers: json })).code).toBe(201)
    const pod = (name: string, labels: Record<string, string>) => ({
      metadata: { name, labels },
      spec: {
        nodeName: "n1",
        containers: [
          { name: "app", image: "nginx", resources: { requests: { cpu: "500m", memory: "256Mi" } } },
          { name: "sidecar", image: "busybox" }
        ]
      }
    })
    for (const [name, labels] of [["web-1", { app: "web" }], ["db-1", { app: "db" }], ["pending", { app: "web" }]] as const) {
      expect((yield* send(base, "POST", "/api/v1/namespaces/default/pods", { body: JSON.stringify(pod(name, labels)), headers: json })).code).toBe(201)
      if (name !== "pending")
        expect((yield* send(base, "PATCH", `/api/v1/namespaces/default/pods/${name}/status`, { body: JSON.stringify({ status: { phase: "Running" } }), headers: merge })).code).toBe(200)
    }
  })

describe("metrics.k8s.io/v1beta1", () => {
  it.scoped("lists NodeMetrics of the live cluster's Ready nodes in metrics-server's shape", () =>
    Effect.gen(function* () {
      const base = yield* server(true)
      yield* seed(base)
      const nodes = yield* send(base, "GET", `${metrics}/nodes`)
      expect(nodes.code).toBe(200)
      expect(nodes.headers["content-type"]).toBe("application/json")
      const body = nodes.json as { kind: string; apiVersion: string; metadata: object; items: Array<{ metadata: { name: string }; usage: { cpu: string; memory: string } }> }
      expect(body.kind).toBe("NodeMetricsList")
      expect(body.apiVersion).toBe("metrics.k8s.io/v1beta1")
      expect(body.metadata).toEqual({})
      expect(body.items.map((i) => i.metadata.name)).toEqual(["n1", "n2"])
      // the test clock stands at 0: stamps at the epoch; n2 has no pods: its system daemons only (60m + 2 % of 8 cores; 384Mi + 2 % of 32Gi, in 4 KiB pages)
      expect(body.items[1]).toEqual({
        metadata: { name: "n2", creationTimestamp: "1970-01-01T00:00:00Z", labels: { "clustersim.io/simulated": "true", zone: "b" } },
        timestamp: "1970-01-01T00:00:00Z",
        window: "15s",
        usage: { cpu: "220m", memory: "1064304Ki" }
      })
      // n1 carries its two running pods on top of that (the pending one uses nothing)
      expect(body.items[0]!.usage.cpu).toMatch(/^\d+n$/)
      expect(body.items[0]!.usage.memory).toMatch(/^\d+Ki$/)
      const selected = yield* send(base, "GET", `${metrics}/nodes?labelSelector=zone%3Db`)
      expect((selected.json as typeof body).items.map((i) => i.metadata.name)).toEqual(["n2"])
      const one = yield* send(base, "GET", `${metrics}/nodes/n2`)
      expect(one.json).toEqual({ kind: "NodeMetrics", apiVersion: "metrics.k8s.io/v1beta1", ...body.items[1] })
    })
  )

  it.scoped("lists and gets PodMetrics of running pods, by namespace and label selector, each container measured", () =>
    Effect.gen(function* () {
      const base = yield* server(true)
      yield* seed(base)
      const all = yield* send(base, "GET", `${metrics}/pods`)
      const items = (all.json as { kind: string; items: Array<{ metadata: { name: string; namespace: string }; containers: Array<{ name: string; usage: object }> }> }).items
      expect((all.json as { kind: string }).kind).toBe("PodMetricsList")
      expect(items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`).sort()).toEqual(["default/db-1", "default/web-1"])
      const web = yield* send(base, "GET", `${metrics}/namespaces/default/pods?labelSelector=app%3Dweb`)
      const webItems = (web.json as { items: Array<{ metadata: { name: string; uid?: string } }> }).items
      expect(webItems.map((p) => p.metadata.name)).toEqual(["web-1"])
      const pod = (yield* send(base, "GET", "/api/v1/namespaces/default/pods/web-1")).json as { metadata: { uid: string; namespace: string; name: string } }
      const got = yield* send(base, "GET", `${metrics}/namespaces/default/pods/web-1`)
      expect(got.code).toBe(200)
      const expected = (name: string, milliCpu: number, bytes: number) => ({ name, usage: usageQuantities(containerUsage(pod as never, { name, milliCpu, bytes }, 0)) })
      expect(got.json).toEqual({
        kind: "PodMetrics",
        apiVersion: "metrics.k8s.io/v1beta1",
        metadata: { name: "web-1", namespace: "default", creationTimestamp: "1970-01-01T00:00:00Z", labels: { app: "web" } },
        timestamp: "1970-01-01T00:00:00Z",
        window: "15s",
        containers: [expected("app", 500, 256 * 1024 * 1024), expected("sidecar", 0, 0)]
      })
      // a share of the request: 20–70 % of 500m, 30–80 % of 256Mi
      const app = (got.json as { containers: Array<{ usage: { cpu: string; memory: string } }> }).containers[0]!.usage
      expect(app.cpu).toMatch(/^\d+n$/)
      const nanocores = Number(app.cpu.slice(0, -1))
      expect(nanocores).toBeGreaterThan(0.2 * 0.9 * 5e8)
      expect(nanocores).toBeLessThan(0.7 * 1.1 * 5e8)
      expect((yield* send(base, "GET", `${metrics}/namespaces/kube-system/pods`)).json).toEqual({ kind: "PodMetricsList", apiVersion: "metrics.k8s.io/v1beta1", metadata: {}, items: [] })
    })
  )

  it.scoped("refuses as metrics-server does: NotFound by its resource names, 405 for writes, 400 for a bad selector", () =>
    Effect.gen(function* () {
      const base = yield* server(true)
      yield* seed(base)
      const pending = yield* send(base, "GET", `${metrics}/namespaces/default/pods/pending`)
      expect(pending.code).toBe(404)
      expect(pending.json).toMatchObject({ kind: "Status", reason: "NotFound", message: 'podmetrics.metrics.k8s.io "default/pending" not found', details: { name: "default/pending", group: "metrics.k8s.io", kind: "podmetrics" } })
      const other = yield* send(base, "GET", `${metrics}/nodes/other`)
      expect(other.code).toBe(404)
      expect((other.json as { message: string }).message).toBe('nodemetrics.metrics.k8s.io "other" not found')
      expect((yield* send(base, "DELETE", `${metrics}/nodes/n1`)).code).toBe(405)
      expect((yield* send(base, "POST", `${metrics}/namespaces/default/pods`, { body: "{}", headers: json })).code).toBe(405)
      const bad = yield* send(base, "GET", `${metrics}/pods?labelSelector=a%3D%3D%3Db`)
      expect(bad.code).toBe(400)
      expect((yield* send(base, "GET", `${metrics}/namespaces/default/nodes`)).code).toBe(404)
      expect((yield* send(base, "GET", `${metrics}/nodes/n1/status`)).code).toBe(404)
    })
  )

  it.scoped("without a live cluster: empty lists, as a metrics-server with no kubelets to scrape", () =>
    Effect.gen(function* () {
      const base = yield* server(false)
      yield* seed(base)
      expect((yield* send(base, "GET", `${metrics}/nodes`)).json).toEqual({ kind: "NodeMetricsList", apiVersion: "metrics.k8s.io/v1beta1", metadata: {}, items: [] })
      expect((yield* send(base, "GET", `${metrics}/pods`)).json).toEqual({ kind: "PodMetricsList", apiVersion: "metrics.k8s.io/v1beta1", metadata: {}, items: [] })
      expect((yield* send(base, "GET", `${metrics}/nodes/n1`)).code).toBe(404)
    })
  )

  it.scoped("is discovered: /apis, the group, its resource list and the aggregated document", () =>
    Effect.gen(function* () {
      const base = yield* server(false)
      const groups = (yield* send(base, "GET", "/apis")).json as { groups: Array<{ name: string; preferredVersion: { groupVersion: string } }> }
      expect(groups.groups.find((g) => g.name === "metrics.k8s.io")).toEqual({
        name: "metrics.k8s.io",
        versions: [{ groupVersion: "metrics.k8s.io/v1beta1", version: "v1beta1" }],
        preferredVersion: { groupVersion: "metrics.k8s.io/v1beta1", version: "v1beta1" }
      })
      expect(((yield* send(base, "GET", "/apis/metrics.k8s.io")).json as { kind: string }).kind).toBe("APIGroup")
      expect((yield* send(base, "GET", metrics)).json).toEqual({
        kind: "APIResourceList",
        apiVersion: "v1",
        groupVersion: "metrics.k8s.io/v1beta1",
        resources: [
          { name: "nodes", singularName: "", namespaced: false, kind: "NodeMetrics", verbs: ["get", "list"] },
          { name: "pods", singularName: "", namespaced: true, kind: "PodMetrics", verbs: ["get", "list"] }
        ]
      })
      const aggregated = yield* send(base, "GET", "/apis", { headers: { accept: "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList" } })
      const item = (aggregated.json as { items: Array<{ metadata: { name: string }; versions: Array<{ version: string; resources: Array<{ resource: string; scope: string; responseKind: object }> }> }> }).items.find(
        (i) => i.metadata.name === "metrics.k8s.io"
      )
      expect(item?.versions.map((v) => v.version)).toEqual(["v1beta1"])
      expect(item?.versions[0]!.resources.map((r) => [r.resource, r.scope, r.responseKind])).toEqual([
        ["nodes", "Cluster", { group: "", version: "", kind: "NodeMetrics" }],
        ["pods", "Namespaced", { group: "", version: "", kind: "PodMetrics" }]
      ])
    })
  )

  it.scoped("goes through RBAC like any resource: view (metrics-server's aggregated reader) may read, others get upstream's 403", () =>
    Effect.gen(function* () {
      const tokens = new Map([
        ["tok-admin", { name: "admin", uid: "1", groups: ["system:masters"] }],
        ["tok-viewer", { name: "viewer", uid: "2", groups: [] as string[] }],
        ["tok-alice", { name: "alice", uid: "3", groups: [] as string[] }]
      ])
      const base = yield* Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: false, liveCluster: true }), (s) => s.url).pipe(
        Effect.provide(ApiServer.layer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens } }))
      )
      const as = (token: string) => ({ headers: { authorization: `Bearer ${token}`, ...json } })
      const binding = { apiVersion: "rbac.authorization.k8s.io/v1", kind: "ClusterRoleBinding", metadata: { name: "viewer" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" }, subjects: [{ kind: "User", name: "viewer", apiGroup: "rbac.authorization.k8s.io" }] }
      expect((yield* send(base, "POST", "/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", { body: JSON.stringify(binding), ...as("tok-admin") })).code).toBe(201)
      expect((yield* send(base, "GET", `${metrics}/pods`, as("tok-viewer"))).code).toBe(200)
      expect((yield* send(base, "GET", `${metrics}/nodes/n1`, as("tok-viewer"))).code).toBe(404)
      const denied = yield* send(base, "GET", `${metrics}/pods`, as("tok-alice"))
      expect(denied.code).toBe(403)
      expect((denied.json as { message: string }).message).toBe('pods.metrics.k8s.io is forbidden: User "alice" cannot list resource "pods" in API group "metrics.k8s.io" at the cluster scope')
      const deniedNode = yield* send(base, "GET", `${metrics}/nodes/n1`, as("tok-alice"))
      expect((deniedNode.json as { message: string }).message).toBe('nodes.metrics.k8s.io "n1" is forbidden: User "alice" cannot get resource "nodes" in API group "metrics.k8s.io" at the cluster scope')
    })
  )
})

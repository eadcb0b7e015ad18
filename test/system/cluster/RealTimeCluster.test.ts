/**
 * The cluster section on the real clock against `clustersim serve` over HTTP (loopback, port 0, a few seconds
 * each): the same node-agent code writes the same sequence as in virtual time, ownership and cleanup, the total
 * QPS limit, a `stop-nodes` fault tainted by the lifecycle controller, and a server known only by upstream names.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { KObject } from "../../../src/api/Object.js"
import { Leases, Nodes } from "../../../src/api/Resources.js"
import { nodeLeaseNamespace, simulatedLabel, simulatedLabelValue, systemNamespace, TaintKeys } from "../../../src/api/WellKnown.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { ApiServer, type ApiServerImpl } from "../../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"
import type { Change } from "../../../simulator/apiserver/Store.js"
import { runSimulatedCluster } from "../../../simulator/cluster/ClusterRun.js"
import type { ClusterFault, ClusterSpec } from "../../../simulator/cluster/ClusterSpec.js"
import { runRealTimeCluster, type RealTimeClusterOptions } from "../../../simulator/cluster/RealTimeCluster.js"

/** Renewals every second, a status check every 1.25 s and a report every 2.5 s. */
const smallCluster = (nodes: number, extra: Partial<ClusterSpec> = {}): ClusterSpec => ({
  nodes,
  startSpread: 300,
  resolution: 50,
  nodeAgent: { config: { nodeLeaseDurationSeconds: 4, nodeStatusUpdateFrequency: "1250ms", nodeStatusReportFrequency: "2500ms" } },
  nodeLifecycle: { enabled: false },
  ...extra
})

/** Runs `f` with an HTTP client to a fresh `serve --admin` on a loopback port, and the server itself. */
const withServe = <A, E>(f: (server: ApiServerImpl, url: string) => Effect.Effect<A, E, ApiClient>): Effect.Effect<A, E> =>
  Effect.scoped(
    Effect.gen(function* () {
      const server = yield* ApiServer
      const s = yield* Effect.orDie(serveHttp({ host: "127.0.0.1", port: 0, admin: true }))
      return yield* f(server, s.url).pipe(Effect.provide(ApiClient.layerHttp({ baseUrl: s.url })))
    })
  ).pipe(Effect.provide(ApiServer.layer({})))

/** Per node, the kinds of its agent's writes as the server stored them, in order. */
const writeSequences = () => {
  const byNode = new Map<string, Array<string>>()
  const record = (change: Change) => {
    const kind = change.resource === Nodes ? "node" : change.resource === Leases ? "lease" : undefined
    if (kind === undefined) return
    const name = change.object.metadata.name!
    const list = byNode.get(name) ?? []
    list.push(`${kind} ${change.type}`)
    byNode.set(name, list)
  }
  return { byNode, record }
}

const options = (spec: ClusterSpec, durationMs: number, more: Partial<RealTimeClusterOptions> = {}): RealTimeClusterOptions => ({
  spec,
  faults: [],
  seed: 1,
  durationMs,
  cleanup: false,
  admin: undefined,
  ...more
})

/**
 * A proxy to `target` whose discovery (`/apis`) names every `.platform` group `.k8s.io`, as a real kube-apiserver
 * does: the client then speaks upstream names (the simulated server serves them beside its own). Records every path.
 */
const upstreamOnly = (target: string) =>
  Effect.acquireRelease(
    Effect.async<{ readonly url: string; readonly paths: Array<string>; readonly server: http.Server }>((resume) => {
      const to = new URL(target)
      const paths: Array<string> = []
      const server = http.createServer((req, res) => {
        paths.push(req.url ?? "")
        const upstream = http.request({ host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
          if (req.url?.split("?")[0] !== "/apis") {
            res.writeHead(answer.statusCode ?? 502, answer.headers)
            answer.pipe(res)
            return
          }
          const chunks: Array<Buffer> = []
          answer.on("data", (c: Buffer) => chunks.push(c))
          answer.on("end", () => {
            const list = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { groups: Array<{ name: string }> }
            const renamed = list.groups.map((g) => ({ ...g, name: g.name.replace(/\.platform$/, ".k8s.io") }))
            const body = JSON.stringify({ ...list, groups: renamed })
            res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
            res.end(body)
          })
        })
        req.pipe(upstream)
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, paths, server })))
    }),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

describe("RealTimeCluster", () => {
  it.live(
    "the same agents write the same sequence of lease and status writes in virtual and in real time",
    () =>
      Effect.gen(function* () {
        const spec = smallCluster(3)
        const virtual = writeSequences()
        yield* runSimulatedCluster({ spec, faults: [], seed: 1, durationMs: 4_600, onChange: virtual.record })
        const real = writeSequences()
        const result = yield* withServe((server) =>
          Effect.gen(function* () {
            server.store.subscribe(real.record)
            // a warm client (discovery done, a connection open), so the first writes are not late by the set-up
            yield* Effect.flatMap(ApiClient, (client) => client.list(Leases, { namespace: nodeLeaseNamespace }))
            return yield* runRealTimeCluster(options(spec, 4_600))
          })
        )
        expect(result.realTime.errorsByCode).toEqual({})
        expect(result.realTime.registered).toBe(3)
        for (const name of ["node-0", "node-1", "node-2"]) {
          const v = virtual.byNode.get(name)!
          const r = real.byNode.get(name)!
          // registration, the lease, renewals each second, a status report at 2.5 s
          expect(v.slice(0, 6)).toEqual(["node ADDED", "lease ADDED", "lease MODIFIED", "lease MODIFIED", "node MODIFIED", "lease MODIFIED"])
          // Per object the same writes in the same order; how the two objects' writes interleave depends on
          // the host's timing (a loaded machine answers late), so each is compared on its own.
          for (const kind of ["node", "lease"]) {
            const vk = v.filter((w) => w.startsWith(kind))
            const rk = r.filter((w) => w.startsWith(kind))
            // how many fit in the window depends on how fast the host answers; the order does not
            const common = Math.min(vk.length, rk.length)
            expect(common).toBeGreaterThanOrEqual(kind === "lease" ? 2 : 1)
            expect(rk.slice(0, common)).toEqual(vk.slice(0, common))
          }
        }
        // latencies are measured from each write's intended start, on the real clock
        expect(result.heartbeats.leaseWrites).toBeGreaterThanOrEqual(9)
        expect(result.leaseRenewLatency.max).toBeGreaterThan(0)
        expect(result.realTime.statusLatency.count).toBeGreaterThanOrEqual(3)
        expect(result.realTime.driver.elapsedMs).toBeGreaterThan(4_000)
      }),
    30_000
  )

  it.live(
    "adopts its own nodes, never touches a node without its label, and --cleanup deletes what it owns",
    () =>
      withServe(() =>
        Effect.gen(function* () {
          const client = yield* ApiClient
          const owned = { [simulatedLabel]: simulatedLabelValue }
          // node-0: left by an earlier run (owned); node-1: someone else's
          yield* client.create(Nodes, { metadata: { name: "node-0", labels: owned }, spec: {} })
          const foreign = (yield* client.create(Nodes, { metadata: { name: "node-1", labels: { team: "other" } }, spec: {} })).object
          const result = yield* runRealTimeCluster(options(smallCluster(3), 2_000, { cleanup: true }))
          expect(result.realTime.adopted).toBe(1)
          expect(result.realTime.registered).toBe(1)
          expect(result.realTime.foreignNodes).toEqual(["node-1"])
          expect(result.realTime.cleanup).toEqual({ removed: { nodes: 2, leases: 2, pods: 0 }, left: { nodes: 0, leases: 0, pods: 0 }, deleted: true })
          const nodes = (yield* client.list(Nodes)).items.map((n: KObject) => n.metadata.name)
          expect(nodes).toEqual(["node-1"])
          // untouched: no write, no lease
          expect((yield* client.get(Nodes, "node-1")).metadata.resourceVersion).toBe(foreign.metadata.resourceVersion)
          expect((yield* client.list(Leases, { namespace: nodeLeaseNamespace })).items).toEqual([])
        })
      ),
    30_000
  )

  it.live(
    "without --cleanup the owned nodes and leases stay and are counted",
    () =>
      withServe(() =>
        Effect.gen(function* () {
          const result = yield* runRealTimeCluster(options(smallCluster(2), 1_500))
          expect(result.realTime.cleanup).toEqual({ removed: { nodes: 0, leases: 0, pods: 0 }, left: { nodes: 2, leases: 2, pods: 0 }, deleted: false })
        })
      ),
    30_000
  )

  it.live(
    "the total QPS limit spaces every agent's requests on the real clock",
    () =>
      withServe((server) =>
        Effect.gen(function* () {
          let writes = 0
          server.store.subscribe(() => void writes++)
          // 6 agents at once: registration, lease GET (404) and create = 18 requests, 4 per second after a burst of 2
          const spec = smallCluster(6, { startSpread: 0, driver: { qps: 4, burst: 2 } })
          const result = yield* runRealTimeCluster(options(spec, 2_000))
          expect(result.realTime.throttled.requests).toBeGreaterThan(0)
          // at most burst + qps × 2 s requests reached the server (writes are a part of them)
          expect(writes).toBeGreaterThan(0)
          expect(writes).toBeLessThanOrEqual(2 + 4 * 2)
          expect(result.realTime.errorsByCode).toEqual({})
        })
      ),
    30_000
  )

  it.live(
    "a stop-nodes fault: the lifecycle controller marks the node Unknown and taints it unreachable",
    () =>
      withServe(() =>
        Effect.gen(function* () {
          const spec = smallCluster(2, { nodeLifecycle: { monitorPeriod: 500, gracePeriod: 2_000, startupGracePeriod: 10_000 } })
          const faults: ReadonlyArray<ClusterFault> = [{ type: "stop-nodes", at: 1_000, nodes: ["node-1"] }]
          const result = yield* runRealTimeCluster({ ...options(spec, 5_500), faults })
          const added = result.taints.filter((t) => t.op === "add" && t.node === "node-1").map((t) => `${t.key}:${t.effect}`)
          expect(added).toContain(`${TaintKeys.unreachable}:NoSchedule`)
          expect(result.taints.filter((t) => t.node === "node-0")).toEqual([])
          const unknownAt = result.readyTimeline["node-1"]!.find(([, status]) => status === "Unknown")![0]
          // last renewal before 1 s + 2 s grace, found by a monitor pass every 0.5 s
          expect(unknownAt).toBeGreaterThan(2_500)
          expect(unknownAt).toBeLessThan(4_800)
          // the controller ran under leader election, and released its lease when the run stopped
          const election = yield* Effect.flatMap(ApiClient, (c) => c.get(Leases, "clustersim-node-lifecycle", { namespace: systemNamespace }))
          expect((election.spec as { holderIdentity?: string }).holderIdentity).toBe("")
        })
      ),
    30_000
  )

  it.live(
    "against a server known by upstream names: leases through coordination.k8s.io in kube-node-lease",
    () =>
      Effect.scoped(
        Effect.gen(function* () {
          const server = yield* ApiServer
          const s = yield* Effect.orDie(serveHttp({ host: "127.0.0.1", port: 0, admin: false }))
          const proxy = yield* upstreamOnly(s.url)
          const spec = smallCluster(2, { nodeLifecycle: { monitorPeriod: 500 } })
          const result = yield* runRealTimeCluster(options(spec, 2_500)).pipe(Effect.provide(ApiClient.layerHttp({ baseUrl: proxy.url })))
          expect(result.realTime.registered).toBe(2)
          expect(result.realTime.errorsByCode).toEqual({})
          expect(result.heartbeats.leaseWrites).toBeGreaterThanOrEqual(2)
          const leasePaths = proxy.paths.filter((p) => p.includes("leases"))
          expect(leasePaths.some((p) => p.startsWith("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases"))).toBe(true)
          expect(proxy.paths.filter((p) => p.includes(".platform"))).toEqual([])
          // stored under the spec's names, as the server keeps them
          const stored = yield* server.list(Leases, { namespace: nodeLeaseNamespace })
          expect(stored.items.map((l) => [l.metadata.name, l.metadata.labels?.[simulatedLabel]])).toEqual([
            ["node-0", simulatedLabelValue],
            ["node-1", simulatedLabelValue]
          ])
        })
      ).pipe(Effect.provide(ApiServer.layer({}))),
    30_000
  )

  it.live.each(["shared", "per-node"] as const)(
    "pods bound to the nodes are started Running, seen by the %s pod watch, with the start-up SLI",
    (podWatch) =>
      withServe(() =>
        Effect.gen(function* () {
          const spec = smallCluster(2, { podsPerNode: 2, driver: { podWatch } })
          const result = yield* runRealTimeCluster(options(spec, 2_500, { cleanup: true }))
          expect(result.pods).toBe(4)
          expect(result.podStatusWrites).toBe(4)
          const sli = result.realTime.podStartup!
          expect(sli.pods).toBe(4)
          expect(sli.observedRunning).toBe(4)
          expect(sli.createToObserved.count).toBe(4)
          // each stage after the one before it
          expect(sli.createToRunning.p50).toBeLessThanOrEqual(sli.createToObserved.p50)
          expect(result.realTime.cleanup).toEqual({ removed: { nodes: 2, leases: 2, pods: 4 }, left: { nodes: 0, leases: 0, pods: 0 }, deleted: true })
        })
      ),
    30_000
  )
})

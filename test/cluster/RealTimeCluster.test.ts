/**
 * The cluster section on the real clock against `clustersim serve` over HTTP (loopback, port 0, a few seconds
 * each): the same node-agent code writes the same sequence as in virtual time, ownership and cleanup, the total
 * QPS limit, and a `stop-nodes` fault tainted by the lifecycle controller.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Leases, Nodes } from "../../src/api/Resources.js"
import { nodeLeaseNamespace, simulatedLabel, simulatedLabelValue, TaintKeys } from "../../src/api/WellKnown.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ApiServer, type ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import type { Change } from "../../simulator/apiserver/Store.js"
import { runSimulatedCluster } from "../../simulator/cluster/ClusterRun.js"
import type { ClusterFault, ClusterSpec } from "../../simulator/cluster/ClusterSpec.js"
import { runRealTimeCluster, type RealTimeClusterOptions } from "../../simulator/cluster/RealTimeCluster.js"

/** Renewals every second, a status check every 1.25 s and a report every 2.5 s: writes of one node never collide. */
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
      const s = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: true })
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
          const common = Math.min(v.length, r.length)
          expect(Math.abs(v.length - r.length)).toBeLessThanOrEqual(1)
          expect(r.slice(0, common)).toEqual(v.slice(0, common))
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
        })
      ),
    30_000
  )
})

import { Effect, Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Events, Nodes, Pods } from "../../../src/api/Resources.js"
import { parseQuantity } from "../../../src/api/go/Quantity.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { make as makeRecorder } from "../../../simulator/events/EventRecorder.js"
import { parseThresholdConfig, type Threshold } from "../../../simulator/nodeagent/config/eviction.js"
import { runEvictionManager, runEvictionShard, type EvictionRecord } from "../../../simulator/nodeagent/eviction/EvictionManager.js"
import { admit, evaluate, formatQuantity, initialState, rankPods } from "../../../simulator/nodeagent/eviction/Thresholds.js"
import { observe, valueAt, type NodeUsageModel, type PodStats } from "../../../simulator/nodeagent/eviction/UsageModel.js"
import { runSim } from "../../scheduler/sim.js"

const Mi = 1024 * 1024
const parse = (q: string) => Either.getOrThrow(parseQuantity(q)).value()
const thresholds = (c: Parameters<typeof parseThresholdConfig>[0]): ReadonlyArray<Threshold> => Either.getOrThrow(parseThresholdConfig(c))

const model: NodeUsageModel = {
  capacity: { memory: 1024 * Mi, nodefsBytes: 100 * 1024 * Mi, nodefsInodes: 1_000_000, imagefsBytes: 100 * 1024 * Mi, imagefsInodes: 1_000_000, pids: 32768 },
  system: { memory: { base: 200 * Mi } },
  pods: [
    { namespace: "default", name: "leaky", container: "app", priority: 0, memoryRequest: "100Mi", memory: { base: 100 * Mi, perSecond: Mi } },
    { namespace: "default", name: "steady", container: "app", priority: 0, memoryRequest: "300Mi", memory: { base: 300 * Mi } },
    { namespace: "default", name: "besteffort", container: "app", priority: 0, memory: { base: 50 * Mi } },
    { namespace: "platform-system", name: "critical", container: "app", priority: 2_000_000_000, memory: { base: 0, steps: [{ atMs: 0, add: 10 * Mi }] } }
  ]
}

describe("usage model and pure core", () => {
  it("curves: base, leak, step, cap", () => {
    expect(valueAt({ base: 10, perSecond: 2, steps: [{ atMs: 5000, add: 100 }], max: 50 }, 4000)).toBe(18)
    expect(valueAt({ base: 10, perSecond: 2, steps: [{ atMs: 5000, add: 100 }], max: 50 }, 5000)).toBe(50)
  })
  it("signals from the model", () => {
    const o = observe(model, 0)
    expect(o.signals["memory.available"]).toEqual({ capacity: 1024 * Mi, available: (1024 - 200 - 100 - 300 - 50 - 10) * Mi })
  })
  it("ranking: over request first, then lower priority, then larger overshoot; pids by priority then count", () => {
    const s = (name: string, priority: number, memory: number, memoryRequest?: string, pids = 0): PodStats => ({
      pod: { namespace: "d", name, container: "c", priority, ...(memoryRequest ? { memoryRequest } : {}) },
      memory,
      disk: 0,
      inodes: 0,
      pids
    })
    const pods = [s("under", -10, 50 * Mi, "100Mi"), s("overHighPrio", 100, 500 * Mi, "100Mi"), s("overSmall", 0, 120 * Mi, "100Mi"), s("overBig", 0, 400 * Mi, "100Mi")]
    expect(rankPods(pods, "memory", parse).map((p) => p.pod.name)).toEqual(["overBig", "overSmall", "overHighPrio", "under"])
    const pidPods = [s("a", 0, 0, undefined, 10), s("b", -1, 0, undefined, 1), s("c", 0, 0, undefined, 50)]
    expect(rankPods(pidPods, "pids", parse).map((p) => p.pod.name)).toEqual(["b", "c", "a"])
  })
  it("soft thresholds raise the condition at once but evict only after the grace period; minReclaim keeps it met", () => {
    const ts = thresholds({ evictionSoft: { "memory.available": "500Mi" }, evictionSoftGracePeriod: { "memory.available": "30s" }, evictionMinimumReclaim: { "memory.available": "100Mi" } })
    const obs = (avail: number) => ({ pods: [], signals: { "memory.available": { capacity: 1024 * Mi, available: avail * Mi } } })
    const p1 = evaluate(ts, obs(400), initialState, 0, 300_000)
    expect([...p1.conditions]).toEqual(["MemoryPressure"])
    expect(p1.toReclaim).toHaveLength(0)
    const p2 = evaluate(ts, obs(400), p1.state, 30_000, 300_000)
    expect(p2.toReclaim.map((t) => t.signal)).toEqual(["memory.available"])
    // 550Mi available: above the threshold but below threshold + minReclaim → still met.
    const p3 = evaluate(ts, obs(550), p2.state, 40_000, 300_000)
    expect(p3.state.met).toHaveLength(1)
    const p4 = evaluate(ts, obs(650), p3.state, 50_000, 300_000)
    expect(p4.state.met).toHaveLength(0)
    // The condition stays for the transition period after it was last met (40 s).
    expect(evaluate(ts, obs(650), p4.state, 339_999, 300_000).conditions.size).toBe(1)
    expect(evaluate(ts, obs(650), p4.state, 340_000, 300_000).conditions.size).toBe(0)
  })
  it("quantity texts", () => {
    expect(formatQuantity(94 * Mi, "BinarySI")).toBe("94Mi")
    expect(formatQuantity(1536, "BinarySI")).toBe("1536")
    expect(formatQuantity(5000, "DecimalSI")).toBe("5k")
  })
  it("admission under pressure", () => {
    const pod = { critical: false, bestEffort: true, toleratesMemoryPressure: false }
    expect(admit(pod, new Set(["MemoryPressure"]))).toMatchObject({ admit: false, message: "The node had condition: [MemoryPressure]. " })
    expect(admit({ ...pod, bestEffort: false }, new Set(["MemoryPressure"]))).toEqual({ admit: true })
    expect(admit({ ...pod, bestEffort: false }, new Set(["DiskPressure"]))).toEqual({ admit: false, reason: "Evicted", message: "The node had condition: [DiskPressure]. " })
    expect(admit({ ...pod, critical: true }, new Set(["DiskPressure"]))).toEqual({ admit: true })
  })
})

describe("runEvictionManager on the virtual clock", () => {
  it("a leak crosses the hard threshold: one eviction at the first 10 s pass after, ranked victim, exact texts, condition timeline", () => {
    const r = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        yield* Effect.orDie(client.create(Nodes, { metadata: { name: "node-a" }, status: { conditions: [{ type: "Ready", status: "True" }] } }))
        for (const p of model.pods)
          yield* Effect.orDie(client.create(Pods, { metadata: { name: p.name, namespace: p.namespace }, spec: { nodeName: "node-a", containers: [{ name: "app", image: "i" }] } }, { namespace: p.namespace }))
        const recorder = yield* makeRecorder({ reportingController: "node-agent", reportingInstance: "node-a", qps: 5, burst: 10 })
        const evictions: EvictionRecord[] = []
        const conditions: Array<[number, string[]]> = []
        yield* Effect.forkScoped(
          runEvictionManager({
            nodeName: "node-a",
            thresholds: thresholds({ evictionHard: { "memory.available": "100Mi" } }),
            model,
            recorder,
            onEvicted: (e) => evictions.push(e),
            onConditions: (c, at) => conditions.push([at, [...c]])
          })
        )
        yield* Effect.sleep("290 seconds")
        const node = yield* Effect.orDie(client.get(Nodes, "node-a"))
        const leaky = yield* Effect.orDie(client.get(Pods, "leaky", { namespace: "default" }))
        yield* Effect.sleep("10 minutes")
        yield* recorder.flush
        const eventObjects = (yield* Effect.orDie(client.list(Events, {}))).items
        const events = eventObjects.map((e) => [e.reason, e.regarding && (e.regarding as { name: string }).name, e.note])
        const annotations = eventObjects.find((e) => e.reason === "Evicted")?.metadata.annotations
        const nodeAfter = yield* Effect.orDie(client.get(Nodes, "node-a"))
        return { evictions, conditions, node, leaky, events, nodeAfter, annotations }
      })
    )
    // available = 364Mi − 1Mi/s (the critical pod uses 10Mi): below 100Mi after 264 s; passes run every 10 s.
    expect(r.evictions).toHaveLength(1)
    expect(r.evictions[0]).toMatchObject({ atMs: 270_000, pod: "default/leaky", resource: "memory", signal: "memory.available" })
    const message =
      "The node was low on resource: memory. Threshold quantity: 100Mi, available: 94Mi. Container app was using 370Mi, request is 100Mi, has larger consumption of memory. "
    expect(r.evictions[0]!.message).toBe(message)
    expect(r.leaky.status).toMatchObject({ phase: "Failed", reason: "Evicted", message })
    expect((r.leaky.status as { conditions: unknown[] }).conditions).toContainEqual(expect.objectContaining({ type: "DisruptionTarget", status: "True", reason: "TerminationByNodeAgent" }))
    expect(r.events).toContainEqual(["EvictionThresholdMet", "node-a", "Attempting to reclaim memory"])
    expect(r.events).toContainEqual(["Evicted", "leaky", message])
    expect(r.annotations).toEqual({ starved_resource: "memory", offending_containers: "app", offending_containers_usage: "370Mi" })
    const cond = ((r.node.status as { conditions: Array<Record<string, unknown>> }).conditions).find((c) => c.type === "MemoryPressure")
    expect(cond).toMatchObject({ status: "True", reason: "NodeAgentHasInsufficientMemory", message: "node agent has insufficient memory available" })
    expect((r.node.spec as { taints: unknown[] }).taints).toEqual([{ key: "node.platform.io/memory-pressure", effect: "NoSchedule" }])
    // Pressure from 270 s, cleared at the first pass ≥ 5 min after it was last met (1 s after eviction, then 10 s steps → 571 s).
    expect(r.conditions).toEqual([[270_000, ["MemoryPressure"]], [571_000, []]])
    expect((r.nodeAfter.spec as { taints: unknown[] }).taints).toEqual([])
  })
})

describe("runEvictionShard", () => {
  it("several nodes on one fiber keep the single-node timings", () => {
    const r = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        const evictions: Array<[string, number, string]> = []
        for (const n of ["node-a", "node-b"]) {
          yield* Effect.orDie(client.create(Nodes, { metadata: { name: n } }))
        }
        yield* Effect.forkScoped(
          runEvictionShard(
            ["node-a", "node-b"].map((nodeName, i) => ({
              nodeName,
              // node-b leaks twice as fast: it crosses 100Mi earlier.
              model: { ...model, pods: model.pods.map((p) => (p.name === "leaky" ? { ...p, memory: { base: 100 * Mi, perSecond: (i + 1) * Mi } } : p)) },
              thresholds: thresholds({ evictionHard: { "memory.available": "100Mi" } }),
              manageTaints: false,
              onEvicted: (e: EvictionRecord) => evictions.push([nodeName, e.atMs, e.pod])
            }))
          )
        )
        yield* Effect.sleep("10 minutes")
        return evictions
      })
    )
    // node-b: 364 − 2t < 100 → t > 132 → pass at 140 s; node-a at 270 s as alone.
    expect(r).toEqual([
      ["node-b", 140_000, "default/leaky"],
      ["node-a", 270_000, "default/leaky"]
    ])
  })
})

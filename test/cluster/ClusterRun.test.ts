/**
 * Simulated clusters end to end on the virtual clock: lease and status timing over an hour, a node that dies,
 * a partition that heals, determinism.
 */
import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Nodes } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { deterministicPart, runSimulatedCluster, runSimulation, type ClusterResult } from "../../simulator/cluster/ClusterRun.js"
import type { ClusterFault, ClusterSpec } from "../../simulator/cluster/ClusterSpec.js"

const run = (spec: ClusterSpec, faults: ReadonlyArray<ClusterFault>, durationMs: number, seed = 7, workload?: Effect.Effect<void, never, ApiClient>) =>
  Effect.runSync(runSimulatedCluster({ spec, faults, seed, durationMs, ...(workload ? { workload } : {}) }))

const HOUR = 3_600_000

describe("lease and node status timing", () => {
  const result = run({ nodes: 3 }, [], HOUR)

  it("renews each lease every 10 s × [1, 1.04) after the previous renewal ended", () => {
    // exact figures of this seeded run
    expect(result.heartbeats.leaseWrites).toBe(LEASE_WRITES)
    expect(result.heartbeats.leaseCreates).toBe(3)
    expect(result.heartbeats.failedAttempts).toBe(0)
    // analytic bounds: every node starts within the first 10 s; a cycle is 10–10.4 s plus a ~2 ms write
    const perNodeMin = Math.floor((HOUR - 10_000) / (10_400 + 3))
    const perNodeMax = Math.ceil(HOUR / 10_000) + 1
    expect(result.heartbeats.leaseWrites).toBeGreaterThanOrEqual(3 * perNodeMin)
    expect(result.heartbeats.leaseWrites).toBeLessThanOrEqual(3 * perNodeMax)
    expect(result.heartbeats.perSecond).toBeCloseTo(result.heartbeats.leaseWrites / 3600, 9)
  })

  it("checks status every 10 s × [1, 1.04) but posts an unchanged status only every 5 min", () => {
    expect(result.nodeStatus.checks).toBe(STATUS_CHECKS)
    expect(result.nodeStatus.patches).toBe(STATUS_PATCHES)
    expect(result.nodeStatus.checks).toBeGreaterThanOrEqual(3 * Math.floor((HOUR - 20_800) / 10_402))
    expect(result.nodeStatus.checks).toBeLessThanOrEqual(3 * Math.ceil(HOUR / 10_000))
    // a post every first tick at or after 300 s since the last report: 300–310.4 s apart, registration counts
    expect(result.nodeStatus.patches).toBeGreaterThanOrEqual(3 * Math.floor((HOUR - 10_000) / 310_404))
    expect(result.nodeStatus.patches).toBeLessThanOrEqual(3 * Math.floor(HOUR / 300_000))
  })

  it("records lease renew latencies from the service-time model", () => {
    expect(result.leaseRenewLatency.count).toBe(result.heartbeats.leaseWrites)
    // 2 ms write + 420 bytes × 0.01 ms/KiB; the creating renewal also reads first (1 ms)
    expect(result.leaseRenewLatency.p50).toBeCloseTo(2.004, 3)
    expect(result.leaseRenewLatency.max).toBeLessThan(3.1)
  })

  it("every node is Ready from its registration on, within the start spread", () => {
    expect(Object.keys(result.readyTimeline)).toEqual(["node-0", "node-1", "node-2"])
    for (const timeline of Object.values(result.readyTimeline)) {
      expect(timeline).toHaveLength(1)
      expect(timeline[0]![1]).toBe("True")
      expect(timeline[0]![2]).toBe("NodeAgentReady")
      expect(timeline[0]![0]).toBeLessThan(10_010)
    }
    expect(result.taints).toEqual([])
  })
})

describe("node death", () => {
  let node1: KObject | undefined
  const readNode = Effect.gen(function* () {
    yield* Effect.sleep(9 * 60_000)
    const client = yield* ApiClient
    node1 = yield* Effect.orDie(client.get(Nodes, "node-1"))
  })
  const result = run({ nodes: 3, podsPerNode: 2 }, [{ type: "stop-nodes", at: 120_000, nodes: ["node-1"] }], 10 * 60_000, 7, readNode)
  const timeline = result.readyTimeline["node-1"]!

  it("goes Unknown once the grace period passed without a heartbeat, with upstream's texts", () => {
    expect(timeline).toHaveLength(2)
    const unknownAt = timeline[1]![0]
    expect(timeline[1]!.slice(1)).toEqual(["Unknown", "NodeStatusUnknown"])
    // last renewal ≤ 120 s; seen ≤ 5 s later; Unknown at the first 5 s pass after probe + 40 s
    expect(unknownAt).toBeGreaterThan(120_000 - 10_400 + 40_000)
    expect(unknownAt).toBeLessThanOrEqual(120_000 + 5_000 + 40_000 + 5_000 + 100)
    const conditions = (node1!.status as { conditions: Array<Record<string, string>> }).conditions
    expect(conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["MemoryPressure", "Unknown", "NodeStatusUnknown", "Node agent stopped posting node status."],
      ["DiskPressure", "Unknown", "NodeStatusUnknown", "Node agent stopped posting node status."],
      ["PIDPressure", "Unknown", "NodeStatusUnknown", "Node agent stopped posting node status."],
      ["Ready", "Unknown", "NodeStatusUnknown", "Node agent stopped posting node status."]
    ])
    expect(result.events.list.filter((e) => e.reason === "NodeNotReady").map((e) => [e.object, e.note])).toEqual([
      ["Node/node-1", "Node node-1 status is now: NodeNotReady"],
      ["Pod/default/node-1-pod-0", "Node is not ready"],
      ["Pod/default/node-1-pod-1", "Node is not ready"]
    ])
  })

  it("is tainted NoSchedule at once and NoExecute on the next pass", () => {
    const unknownAt = timeline[1]![0]
    expect(result.taints.map((t) => [t.node, t.op, t.key, t.effect])).toEqual([
      ["node-1", "add", "node.platform.io/unreachable", "NoSchedule"],
      ["node-1", "add", "node.platform.io/unreachable", "NoExecute"]
    ])
    expect(result.taints[0]!.t - unknownAt).toBeLessThan(10)
    expect(result.taints[1]!.t - unknownAt).toBeGreaterThanOrEqual(4_990)
    expect(result.taints[1]!.t - unknownAt).toBeLessThan(5_100)
  })

  it("loses its pods 300 s after the NoExecute taint (tolerationSeconds), the others keep theirs", () => {
    const tainted = result.taints[1]!.t
    expect(result.podDeletions.map((d) => [d.pod, d.node])).toEqual([
      ["default/node-1-pod-0", "node-1"],
      ["default/node-1-pod-1", "node-1"]
    ])
    for (const d of result.podDeletions) {
      // timeAdded is stored with whole seconds
      expect(d.t - tainted).toBeGreaterThan(299_000)
      expect(d.t - tainted).toBeLessThan(300_100)
    }
    expect(result.events.byReason["TaintManagerEviction"]).toBe(2)
    expect(result.podStatusWrites).toBe(6)
  })
})

describe("partition", () => {
  const result = run({ nodes: 3, podsPerNode: 1 }, [{ type: "partition", at: 60_000, for: 120_000, nodes: ["node-2"] }], 8 * 60_000)
  const timeline = result.readyTimeline["node-2"]!

  it("makes the node Unknown and tainted, and heals: Ready again, taints removed, pods kept", () => {
    expect(timeline.map((t) => t.slice(1))).toEqual([
      ["True", "NodeAgentReady"],
      ["Unknown", "NodeStatusUnknown"],
      ["True", "NodeAgentReady"]
    ])
    const healed = timeline[2]![0]
    // the agent posts on its first status tick after the partition ends (at 180 s)
    expect(healed).toBeGreaterThanOrEqual(180_000)
    expect(healed).toBeLessThan(180_000 + 10_400 + 10_000)
    expect(result.taints.map((t) => [t.op, t.key, t.effect])).toEqual([
      ["add", "node.platform.io/unreachable", "NoSchedule"],
      ["add", "node.platform.io/unreachable", "NoExecute"],
      ["remove", "node.platform.io/unreachable", "NoSchedule"],
      ["remove", "node.platform.io/unreachable", "NoExecute"]
    ])
    expect(result.taints[2]!.t).toBeGreaterThanOrEqual(healed)
    expect(result.podDeletions).toEqual([])
    expect(result.events.list.filter((e) => e.reason === "TaintManagerEviction").map((e) => e.note)).toEqual([
      "Cancelling deletion of Pod default/node-2-pod-0"
    ])
    expect(result.heartbeats.failedAttempts).toBeGreaterThan(0)
  })
})

describe("determinism", () => {
  const spec: ClusterSpec = { nodes: 20, podsPerNode: 3, zones: ["a", "b"] }
  const faults: ReadonlyArray<ClusterFault> = [
    { type: "stop-nodes", at: 60_000, count: 2 },
    { type: "partition", at: 30_000, for: 90_000, count: 3 },
    { type: "apiserver-pause", at: 200_000, for: 20_000 }
  ]
  const hash = (r: ClusterResult) => createHash("sha256").update(JSON.stringify(deterministicPart(r))).digest("hex")

  it("same seed ⇒ identical result; another seed ⇒ another result", () => {
    const a = run(spec, faults, 15 * 60_000, 42)
    const b = run(spec, faults, 15 * 60_000, 42)
    const c = run(spec, faults, 15 * 60_000, 43)
    expect(hash(a)).toBe(hash(b))
    expect(hash(a)).not.toBe(hash(c))
    expect(a.podDeletions.length).toBeGreaterThan(0)
  })
})

describe("an API-server pause", () => {
  it("fails the agents' requests for as long as it lasts, also when it lasts to the run's end (the shard is not held by the paused server)", () => {
    const pause = (forMs: number) => run({ nodes: 20, podsPerNode: 2 }, [{ type: "apiserver-pause", at: 30_000, for: forMs }], 180_000)
    const toEnd = pause(150_000)
    const almost = pause(149_000)
    // every 10 s of the pause, each agent's renewals fail (after the client timeout) and back off
    expect(toEnd.heartbeats.failedAttempts).toBeGreaterThan(200)
    // a second longer, no fewer (it was 0 to the end against 257 a second shorter)
    expect(toEnd.heartbeats.failedAttempts).toBeGreaterThanOrEqual(almost.heartbeats.failedAttempts)
    expect(toEnd.leaseTimeline!.failures.slice(4, 17).every((n) => n > 0)).toBe(true)
    // nothing written while the server is paused; lease writes before it only
    expect(toEnd.leaseTimeline!.writes.slice(4)).toEqual(toEnd.leaseTimeline!.writes.slice(4).map(() => 0))
  })
})

const LEASE_WRITES = 1058
const STATUS_CHECKS = 1055
const STATUS_PATCHES = 33

describe("progress of a run", () => {
  it("is reported every progressEveryWallMs of wall time even when a virtual minute takes longer", async () => {
    // a wall clock that moves 1 s per reading: the run seems slow, far below one virtual minute per 5 s
    let wall = 0
    const slowWall: Clock.Clock = Object.assign(Object.create(Clock.make()), { unsafeCurrentTimeMillis: () => (wall += 1_000) })
    const calls: Array<{ virtualMs: number; wallMs: number }> = []
    const result = await Effect.runPromise(
      runSimulation({ spec: { nodes: 2 }, faults: [], seed: 1, durationMs: 30_000, progressEveryMs: 3_600_000, progressEveryWallMs: 5_000, onProgress: (p) => void calls.push(p) }).pipe(
        Effect.withClock(slowWall)
      )
    )
    expect(result.reachedMs).toBe(30_000)
    expect(calls.length).toBeGreaterThan(0)
    for (let i = 1; i < calls.length; i++) {
      expect(calls[i]!.wallMs - calls[i - 1]!.wallMs).toBeGreaterThanOrEqual(5_000)
      expect(calls[i]!.virtualMs).toBeGreaterThanOrEqual(calls[i - 1]!.virtualMs)
    }
    // without the wall-time cadence an hour of virtual time between calls means none in 30 s
    const none: Array<unknown> = []
    await Effect.runPromise(runSimulation({ spec: { nodes: 2 }, faults: [], seed: 1, durationMs: 30_000, progressEveryMs: 3_600_000, onProgress: (p) => void none.push(p) }).pipe(Effect.withClock(slowWall)))
    expect(none).toEqual([])
  })
})

describe("a run that cannot advance virtual time", () => {
  // a wall clock that moves 1 s per reading: every look at it ends the slice (docs/cluster.md "Progress and signals")
  const slowWall = () => {
    let wall = 0
    return Object.assign(Object.create(Clock.make()), { unsafeCurrentTimeMillis: () => (wall += 1_000) }) as Clock.Clock
  }
  /** A section that works for `tasks` scheduler turns at its first instant, then sleeps. */
  const busyAtStart = (tasks: number) => ({
    name: "busy",
    run: Effect.gen(function* () {
      for (let i = 0; i < tasks; i++) yield* Effect.yieldNow()
      return yield* Effect.never
    })
  })
  // a loop like the lifecycle controller's with a period of 0: never suspends, only Effect's operation budget yields it
  const spinning = {
    name: "spin",
    run: Effect.gen(function* () {
      for (;;) yield* Clock.currentTimeMillis
    })
  }

  it("shows progress and sees a stop request while one instant runs, and stops there", async () => {
    const calls: Array<{ virtualMs: number; wallMs: number }> = []
    const result = await Effect.runPromise(
      runSimulation({
        spec: undefined,
        faults: [],
        seed: 1,
        durationMs: 60_000,
        sections: [busyAtStart(1_000_000)],
        progressEveryWallMs: 1_000,
        onProgress: (p) => void calls.push(p),
        stopRequested: Effect.succeed(true)
      }).pipe(Effect.withClock(slowWall()))
    )
    expect(result.stopped).toBe(true)
    expect(result.reachedMs).toBe(0)
    expect(calls.length).toBeGreaterThan(0)
    expect(calls.every((c) => c.virtualMs === 0)).toBe(true)
  })

  it("a slice that ends within an instant changes nothing: the same result as one run in one go", async () => {
    const spec: ClusterSpec = { nodes: 6, podsPerNode: 2 }
    const faults: ReadonlyArray<ClusterFault> = [{ type: "stop-nodes", at: 20_000, count: 1 }]
    const options = { spec, faults, seed: 3, durationMs: 90_000, sections: [busyAtStart(60_000)] }
    const sliced = await Effect.runPromise(runSimulation(options).pipe(Effect.withClock(slowWall())))
    const whole = Effect.runSync(runSimulation({ ...options, hostTurns: false }))
    expect(JSON.stringify(deterministicPart(sliced.cluster!))).toBe(JSON.stringify(deterministicPart(whole.cluster!)))
  })

  it("a loop that never sleeps ends the run with an error naming it, not a hang", { timeout: 60_000 }, async () => {
    const exit = await Effect.runPromise(Effect.either(runSimulation({ spec: { nodes: 2 }, faults: [], seed: 1, durationMs: 60_000, sections: [spinning] })))
    expect(exit._tag === "Left" && exit.left).toMatch(/^the simulation stopped making progress at 0s: the spin section kept running; fibers ran out of their operation budget more than 5000 times/)
  })

  it("a part of the cluster that fails ends the run with its error (a monitor period of 0, a resolution of 0)", async () => {
    const monitor = await Effect.runPromise(Effect.either(runSimulation({ spec: { nodes: 2, nodeLifecycle: { monitorPeriod: 0 } }, faults: [], seed: 1, durationMs: 60_000 })))
    expect(monitor._tag === "Left" && monitor.left).toBe("the node lifecycle controller failed: RuntimeException: nodeLifecycle.monitorPeriod must be positive, got 0 ms")
    const resolution = await Effect.runPromise(Effect.either(runSimulation({ spec: { nodes: 2, resolution: 0 }, faults: [], seed: 1, durationMs: 60_000 })))
    expect(resolution._tag === "Left" && resolution.left).toMatch(/the resolution \(cluster\.resolution\) must be positive, got 0 ms/)
  })
})

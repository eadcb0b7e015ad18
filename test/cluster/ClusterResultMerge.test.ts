/**
 * A real-time cluster's segment results merged (simulator/cluster/ClusterResultMerge.ts): counts are sums,
 * histograms added, and what is per node comes from the node's owner only — the first segment watches every node for
 * its controller, so its view of the others' nodes must not be counted twice.
 */
import { describe, expect, it } from "@effect/vitest"
import { decodeHistogram, encodeHistogram, makeHistogram, recordMillis, summarize } from "../../src/loadgen/LatencyRecorder.js"
import { ownerOfName, segments } from "../../src/loadgen/ExecutionSegment.js"
import { mergeRealTimeClusters, type RealTimeClusterPart } from "../../simulator/cluster/ClusterResultMerge.js"

const names = Array.from({ length: 8 }, (_, i) => `node-${i}`)
const [first, second] = segments(2) as [ReturnType<typeof segments>[number], ReturnType<typeof segments>[number]]
const ownedBy = (index: number) => names.filter((n) => ownerOfName(n, first) === index)

const hdrOf = (ms: ReadonlyArray<number>) => {
  const h = makeHistogram()
  for (const x of ms) recordMillis(h, x)
  return { ...summarize(h), hdr: encodeHistogram(h) }
}

/** A segment's result: its own nodes, and the nodes it watched (`seen`), each with a transition and a taint marked by `who`. */
const part = (own: ReadonlyArray<string>, seen: ReadonlyArray<string>, who: string, latencies: ReadonlyArray<number>, writes: ReadonlyArray<number>): RealTimeClusterPart =>
  ({
    apiVersion: "clustersim/v1",
    kind: "ClusterResult",
    seed: 7,
    durationMs: 10_000,
    nodes: own.length,
    pods: own.length,
    heartbeats: { leaseWrites: latencies.length, leaseCreates: own.length, failedAttempts: 1, perSecond: latencies.length / 10 },
    nodeStatus: { checks: 10, patches: 2 * own.length, perSecond: (2 * own.length) / 10 },
    podStatusWrites: own.length,
    leaseRenewLatency: hdrOf(latencies),
    leaseTimeline: { intervalMs: 10_000, writes, failures: writes.map(() => 0), renewP50: writes.map(() => latencies[0]!), renewP99: writes.map(() => latencies.at(-1)!) },
    readyTimeline: Object.fromEntries(seen.map((n) => [n, [[100, "True", who]]])),
    taints: seen.map((node) => ({ t: 200, node, op: "add", key: who, effect: "NoSchedule" })),
    podDeletions: seen.map((node) => ({ t: 300, pod: `default/${node}-pod-0`, node })),
    evictions: [],
    events: { byReason: who === "first" ? { NodeNotReady: 1 } : {}, list: [] },
    zoneStates: [],
    faults: [],
    kernel: { timersFired: 0, tasksRun: 0 },
    wall: { ms: 10_000, virtualPerReal: 1 },
    realTime: {
      driver: { elapsedMs: 10_000, loopLag: { p50: 1, p99: 2, max: 3 }, cpu: { userMs: 100, systemMs: 20, fractionOfCore: 0.01 }, bytesIn: 1, bytesOut: 1, saturated: false, reasons: [], cpuMsPer1000Nodes: 0 },
      statusLatency: hdrOf([5]),
      errorsByCode: { "500": 1 },
      throttled: { requests: 0, totalMs: 0 },
      registered: own.length,
      adopted: 0,
      foreignNodes: [],
      cleanup: { removed: { nodes: 0, leases: 0, pods: 0 }, left: { nodes: own.length, leases: own.length, pods: own.length }, deleted: false }
    }
  }) as unknown as RealTimeClusterPart

describe("merging a real-time cluster's segments", () => {
  it("sums the counts, adds the histograms, and takes each node's transitions, taints and pod deletions from its owner", () => {
    expect([ownedBy(0), ownedBy(1)]).toEqual([["node-5", "node-7"], ["node-0", "node-1", "node-2", "node-3", "node-4", "node-6"]])
    const a = part(ownedBy(0), names, "first", [1, 2, 3], [2, 1])
    const b = part(ownedBy(1), ownedBy(1), "second", [4, 5, 6, 7, 80], [3, 2, 1])
    const merged = mergeRealTimeClusters([{ segment: second, cluster: b }, { segment: first, cluster: a }])
    expect([merged.nodes, merged.pods, merged.realTime.registered]).toEqual([8, 8, 8])
    expect(merged.heartbeats).toEqual({ leaseWrites: 8, leaseCreates: 8, failedAttempts: 2, perSecond: 0.8 })
    expect(merged.nodeStatus.patches).toBe(16)
    expect(merged.realTime.errorsByCode).toEqual({ "500": 2 })
    expect(merged.realTime.cleanup.left).toEqual({ nodes: 8, leases: 8, pods: 8 })
    // the renew latency of every write: the union's histogram
    expect(decodeHistogram(merged.leaseRenewLatency.hdr).totalCount).toBe(8)
    expect(merged.leaseRenewLatency.max).toBeCloseTo(80, 0)
    expect(merged.leaseTimeline!.writes).toEqual([5, 3, 1])
    // per node: from its owner, once
    expect(Object.keys(merged.readyTimeline).sort()).toEqual([...names].sort())
    for (const n of names) expect(merged.readyTimeline[n]).toEqual([[100, "True", ownerOfName(n, first) === 0 ? "first" : "second"]])
    expect(merged.taints.map((t) => [t.node, t.key]).sort()).toEqual(names.map((n) => [n, ownerOfName(n, first) === 0 ? "first" : "second"]).sort())
    expect(merged.podDeletions.map((d) => d.node).sort()).toEqual([...names].sort())
    expect(merged.events.byReason).toEqual({ NodeNotReady: 1 })
  })

  it("a pod the first segment created (its scheduler) and another segment's agent ran has its created → running stage in the merged result", () => {
    const stage = (ms: ReadonlyArray<number>) => hdrOf(ms)
    const startup = (o: { pods: number; running: ReadonlyArray<number>; crossSegment?: object }) => ({
      pods: o.pods,
      observedRunning: o.pods,
      createToScheduled: stage(o.running),
      createToRunning: stage(o.running),
      createToObserved: stage(o.running),
      ...(o.crossSegment ? { crossSegment: o.crossSegment } : {})
    })
    const withStartup = (p: RealTimeClusterPart, podStartup: object) => ({ ...p, realTime: { ...p.realTime, podStartup } }) as unknown as RealTimeClusterPart
    // the first segment: 3 pods created, one ran on its own node (400 ms); the second's agents ran 2 of the others
    const a = withStartup(part(ownedBy(0), names, "first", [1], [1]), startup({ pods: 3, running: [400], crossSegment: { createdMs: { "default/x": 2000, "default/y": 3000, "default/never": 100 }, runningMs: {} } }))
    // the second: its podsPerNode pod (300 ms), and x and y, created by the first, Running 700 and 900 ms after their creation
    const b = withStartup(part(ownedBy(1), ownedBy(1), "second", [1], [1]), startup({ pods: 1, running: [300], crossSegment: { createdMs: {}, runningMs: { "default/x": 2700, "default/y": 3900 } } }))
    const merged = mergeRealTimeClusters([{ segment: first, cluster: a }, { segment: second, cluster: b }])
    const s = merged.realTime.podStartup!
    expect(s.pods).toBe(4)
    // every pod that ran: 400 and 300 timed in their segments, 700 and 900 joined across them
    expect(s.createToRunning.count).toBe(4)
    expect([s.createToRunning.min, s.createToRunning.max]).toEqual([expect.closeTo(300, 0), expect.closeTo(900, 0)])
    expect(decodeHistogram(s.createToRunning.hdr).totalCount).toBe(4)
    expect(s.createToObserved.count).toBe(2)
    // joined: nothing left to hand on
    expect((s as { crossSegment?: unknown }).crossSegment).toBeUndefined()
  })
})

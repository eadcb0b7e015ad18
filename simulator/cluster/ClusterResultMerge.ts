/**
 * One real-time cluster result from its execution segments' (docs/distributed.md "Real-time clusters"): each segment
 * ran the agents of the nodes it owns (src/loadgen/ExecutionSegment.ts `ownerOfName`), the first also the run's
 * singletons (lifecycle controller, scheduler section). Counts are summed, latency histograms added (the run-wide
 * lease-renew, status and pod start-up figures are exact), what is per node — ready transitions, taints, pod deletions —
 * is taken from the node's owner only (the first segment watches every node for its controller, and would otherwise
 * count a node twice), and the controller's events from the segment that ran it. A pod created in one segment and run
 * by another's agent has its created → running stage joined from the two halves they hand on. Times stay ms since each segment's
 * start, which is the run's common one. A lease-timeline interval's percentiles are not mergeable without their
 * histograms: the merged interval shows the slowest segment's. Pure; tested in test/cluster/ClusterResultMerge.test.ts.
 */
import { combineHealth } from "../../src/loadgen/GeneratorHealth.js"
import { decodeHistogram, encodeHistogram, makeHistogram, mergeHistograms, recordMillis, summarize } from "../../src/loadgen/LatencyRecorder.js"
import { type ExecutionSegment, ownerOfName } from "../../src/loadgen/ExecutionSegment.js"
import type { LeaseTimelineResult } from "../nodeagent/LeaseTimeline.js"
import type { ClusterResult } from "./ClusterResult.js"
import type { PodStartupResult, StageSummary } from "./PodStartupSli.js"
import type { RealTimeReport } from "./RealTimeCluster.js"

export type RealTimeClusterPart = ClusterResult & { readonly realTime: RealTimeReport }

/** A segment's result with its place in the run. */
export interface SegmentCluster {
  readonly segment: ExecutionSegment
  readonly cluster: RealTimeClusterPart
}

const sum = (xs: ReadonlyArray<number>): number => xs.reduce((a, b) => a + b, 0)

const sumCounts = (records: ReadonlyArray<Readonly<Record<string, number>> | undefined>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const r of records) for (const [k, v] of Object.entries(r ?? {})) out[k] = (out[k] ?? 0) + v
  return out
}

const counts = (cs: ReadonlyArray<{ readonly nodes: number; readonly leases: number; readonly pods: number }>) => ({
  nodes: sum(cs.map((c) => c.nodes)),
  leases: sum(cs.map((c) => c.leases)),
  pods: sum(cs.map((c) => c.pods))
})

/** A summary with its histogram, from the parts' histograms added. */
const mergedLatency = (hdrs: ReadonlyArray<string>) => {
  const h = mergeHistograms(hdrs.map(decodeHistogram))
  return { ...summarize(h), hdr: encodeHistogram(h) }
}

const mergeTimelines = (ts: ReadonlyArray<LeaseTimelineResult>): LeaseTimelineResult | undefined => {
  if (ts.length === 0) return undefined
  const length = Math.max(...ts.map((t) => t.writes.length))
  const at = <A>(f: (t: LeaseTimelineResult) => ReadonlyArray<A>, i: number) => ts.map((t) => f(t)[i]).filter((x): x is A => x !== undefined)
  const worst = (xs: ReadonlyArray<number | null>) => (xs.some((x) => x !== null) ? Math.max(...xs.filter((x): x is number => x !== null)) : null)
  const range = Array.from({ length }, (_, i) => i)
  return {
    intervalMs: ts[0]!.intervalMs,
    writes: range.map((i) => sum(at((t) => t.writes, i))),
    failures: range.map((i) => sum(at((t) => t.failures, i))),
    renewP50: range.map((i) => worst(at((t) => t.renewP50, i))),
    renewP99: range.map((i) => worst(at((t) => t.renewP99, i)))
  }
}

/**
 * The created → running stages of pods created in one segment and run by another's agent (./PodStartupSli.ts
 * `crossSegment`): joined by pod key, both times ms since the run's common start.
 */
const crossSegmentRunning = (ps: ReadonlyArray<PodStartupResult>): string => {
  const created = new Map<string, number>()
  for (const p of ps) for (const [key, ms] of Object.entries(p.crossSegment?.createdMs ?? {})) created.set(key, ms)
  const h = makeHistogram()
  for (const p of ps) {
    for (const [key, ms] of Object.entries(p.crossSegment?.runningMs ?? {})) {
      const from = created.get(key)
      if (from !== undefined) recordMillis(h, Math.max(0, ms - from))
    }
  }
  return encodeHistogram(h)
}

const mergePodStartup = (ps: ReadonlyArray<PodStartupResult>): PodStartupResult | undefined => {
  if (ps.length === 0) return undefined
  const stage = (f: (p: PodStartupResult) => StageSummary) => mergedLatency(ps.map((p) => f(p).hdr))
  return {
    pods: sum(ps.map((p) => p.pods)),
    observedRunning: sum(ps.map((p) => p.observedRunning)),
    createToScheduled: stage((p) => p.createToScheduled),
    createToRunning: mergedLatency([...ps.map((p) => p.createToRunning.hdr), crossSegmentRunning(ps)]),
    createToObserved: stage((p) => p.createToObserved)
  }
}

/** The segments' real-time cluster results as the one run's (the parts in segment order; at least one). */
export const mergeRealTimeClusters = (parts: ReadonlyArray<SegmentCluster>): RealTimeClusterPart => {
  const sorted = [...parts].sort((a, b) => a.segment.index - b.segment.index)
  const first = sorted[0]!.cluster
  const clusters = sorted.map((p) => p.cluster)
  const rts = clusters.map((c) => c.realTime)
  // what is per node comes from its owner
  const ownedBy = (p: SegmentCluster) => (node: string) => ownerOfName(node, p.segment) === p.segment.index
  const readyTimeline: Record<string, ClusterResult["readyTimeline"][string]> = {}
  for (const p of sorted) for (const [node, t] of Object.entries(p.cluster.readyTimeline)) if (ownedBy(p)(node)) readyTimeline[node] = t
  const durationMs = Math.max(...clusters.map((c) => c.durationMs))
  const seconds = durationMs / 1000
  const leaseWrites = sum(clusters.map((c) => c.heartbeats.leaseWrites))
  const statusPatches = sum(clusters.map((c) => c.nodeStatus.patches))
  const nodes = sum(clusters.map((c) => c.nodes))
  const driver = combineHealth(rts.map((r) => r.driver))
  const cpuMs = sum(rts.map((r) => r.driver.cpu.userMs + r.driver.cpu.systemMs))
  const byReason = sumCounts(clusters.map((c) => c.events.byReason))
  const timeline = mergeTimelines(clusters.flatMap((c) => (c.leaseTimeline ? [c.leaseTimeline] : [])))
  const podStartup = mergePodStartup(rts.flatMap((r) => (r.podStartup ? [r.podStartup] : [])))
  const scheduler = rts.flatMap((r) => (r.schedulerErrorsByCode ? [r.schedulerErrorsByCode] : []))
  const cleanupError = rts.find((r) => r.cleanup.error !== undefined)?.cleanup.error
  return {
    ...first,
    durationMs,
    ...(clusters.some((c) => c.stopped) ? { stopped: true } : {}),
    nodes,
    pods: sum(clusters.map((c) => c.pods)),
    heartbeats: {
      leaseWrites,
      leaseCreates: sum(clusters.map((c) => c.heartbeats.leaseCreates)),
      failedAttempts: sum(clusters.map((c) => c.heartbeats.failedAttempts)),
      perSecond: seconds > 0 ? leaseWrites / seconds : 0
    },
    nodeStatus: { checks: sum(clusters.map((c) => c.nodeStatus.checks)), patches: statusPatches, perSecond: seconds > 0 ? statusPatches / seconds : 0 },
    podStatusWrites: sum(clusters.map((c) => c.podStatusWrites)),
    leaseRenewLatency: mergedLatency(clusters.map((c) => c.leaseRenewLatency.hdr)),
    ...(timeline !== undefined ? { leaseTimeline: timeline } : {}),
    readyTimeline,
    taints: sorted.flatMap((p) => p.cluster.taints.filter((t) => ownedBy(p)(t.node))).sort((a, b) => a.t - b.t),
    podDeletions: sorted.flatMap((p) => p.cluster.podDeletions.filter((d) => ownedBy(p)(d.node))).sort((a, b) => a.t - b.t),
    evictions: clusters.flatMap((c) => c.evictions),
    events: { byReason, list: clusters.flatMap((c) => c.events.list).sort((a, b) => a.t - b.t) },
    zoneStates: clusters.flatMap((c) => c.zoneStates).sort((a, b) => a.t - b.t),
    // planned from the seed alike in every segment
    faults: first.faults,
    kernel: { timersFired: sum(clusters.map((c) => c.kernel.timersFired)), tasksRun: sum(clusters.map((c) => c.kernel.tasksRun)) },
    wall: { ms: Math.max(...clusters.map((c) => c.wall.ms)), virtualPerReal: first.wall.virtualPerReal },
    realTime: {
      driver: { ...driver, cpuMsPer1000Nodes: nodes > 0 ? (cpuMs * 1000) / nodes : 0 },
      statusLatency: mergedLatency(rts.map((r) => r.statusLatency.hdr)),
      errorsByCode: sumCounts(rts.map((r) => r.errorsByCode)),
      throttled: { requests: sum(rts.map((r) => r.throttled.requests)), totalMs: sum(rts.map((r) => r.throttled.totalMs)) },
      registered: sum(rts.map((r) => r.registered)),
      adopted: sum(rts.map((r) => r.adopted)),
      foreignNodes: rts.flatMap((r) => r.foreignNodes),
      ...(podStartup !== undefined ? { podStartup } : {}),
      ...(scheduler.length > 0 ? { schedulerErrorsByCode: sumCounts(scheduler) } : {}),
      cleanup: {
        removed: counts(rts.map((r) => r.cleanup.removed)),
        left: counts(rts.map((r) => r.cleanup.left)),
        deleted: rts.every((r) => r.cleanup.deleted),
        ...(cleanupError !== undefined ? { error: cleanupError } : {})
      }
    }
  }
}

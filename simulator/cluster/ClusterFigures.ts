/**
 * A cluster run's result as the figures its scenario's thresholds judge (`src/loadgen/ClusterMetrics.ts`,
 * docs/scenarios.md "Thresholds on the cluster"): lease writes and renew latency, APF's dispatched and rejected
 * requests per priority level, Ready changes and the nodes that left Ready, the modelled peak memory of relists.
 */
import type { ClusterFigures, ClusterSample } from "../../src/loadgen/ClusterMetrics.js"
import { decodeHistogram } from "../../src/loadgen/LatencyRecorder.js"
import type { ClusterResult } from "./ClusterResult.js"

type Figured = Pick<ClusterResult, "durationMs" | "heartbeats" | "leaseRenewLatency" | "readyTimeline" | "serverModel">

export const clusterFigures = (r: Figured): ClusterFigures => {
  const samples: Array<ClusterSample> = [
    { metric: "lease_writes", tags: {}, count: r.heartbeats.leaseWrites },
    { metric: "lease_failures", tags: {}, count: r.heartbeats.failedAttempts },
    { metric: "lease_renew_latency", tags: {}, count: 0, histogram: decodeHistogram(r.leaseRenewLatency.hdr) }
  ]
  for (const [level, m] of Object.entries(r.serverModel?.priorityLevels ?? {})) {
    samples.push({ metric: "apf_dispatched", tags: { priority_level: level }, count: m.dispatched })
    for (const [reason, n] of Object.entries(m.rejectedBy)) samples.push({ metric: "apf_rejected", tags: { priority_level: level, reason }, count: n })
  }
  let notReady = 0
  // every status has a count, so `ready_transitions{status:False}: count == 0` judges 0 rather than no data
  const changes = new Map<string, number>([["True", 0], ["False", 0], ["Unknown", 0]])
  for (const timeline of Object.values(r.readyTimeline)) {
    // the first entry is the node's status when first seen, not a change
    for (const [, status] of timeline.slice(1)) changes.set(status, (changes.get(status) ?? 0) + 1)
    const firstReady = timeline.findIndex(([, status]) => status === "True")
    if (firstReady >= 0 && timeline.slice(firstReady + 1).some(([, status]) => status !== "True")) notReady++
  }
  for (const [status, n] of changes) samples.push({ metric: "ready_transitions", tags: { status }, count: n })
  samples.push({ metric: "not_ready_nodes", tags: {}, count: notReady })
  // no LIST or WatchList modelled: no data (a threshold on it fails unless allowNoData)
  const memory = r.serverModel?.relistMemory
  if (memory !== undefined) samples.push({ metric: "server_relist_memory_peak", tags: {}, count: memory.peakBytes })
  return { durationMs: r.durationMs, samples }
}

/**
 * Threshold metrics of a simulated (or real-time) cluster run, judged like the load's (docs/scenarios.md
 * "Thresholds on the cluster"):
 *
 *   thresholds:
 *     "lease_writes": ["rate >= 90"]                               # lease writes per second of the run
 *     "lease_renew_latency": ["p(99) < 2s"]
 *     "apf_rejected{priority_level:node-high|system}": ["count == 0"]  # 429s
 *     "not_ready_nodes": ["count == 0"]
 *     "server_relist_memory_peak": ["max < 2e9"]                   # bytes, modelled
 *
 * The cluster's figures arrive as samples (a metric, its tags, a count or a histogram) built by the composition
 * root from the run's result (`simulator/cluster/ClusterFigures.ts`), so this file knows no simulator type.
 */
import type { Histogram } from "./LatencyRecorder.js"

/** Each cluster metric: its kind and the tags a threshold may select it by. */
export const ClusterMetrics = {
  /** Lease writes of the node agents (renewals and creates): `count`, `rate` = per second of the run. */
  lease_writes: { kind: "throughput", tags: [] },
  /** Lease writes that failed (an attempt client-go's renewer would retry): `count`, `rate` per second. */
  lease_failures: { kind: "throughput", tags: [] },
  /** From the renewal's due time to the written lease, ms (modelled in virtual time). */
  lease_renew_latency: { kind: "trend", tags: [] },
  /** Requests API Priority and Fairness dispatched, per priority level. */
  apf_dispatched: { kind: "throughput", tags: ["priority_level"] },
  /** Requests answered 429 by API Priority and Fairness, per priority level and reason (`queue-full`, `time-out`, `concurrency-limit`). */
  apf_rejected: { kind: "throughput", tags: ["priority_level", "reason"] },
  /** Changes of a node's Ready condition after its first, tagged with the new `status` (`True`, `False`, `Unknown`). */
  ready_transitions: { kind: "throughput", tags: ["status"] },
  /** Nodes whose Ready condition left `True` at least once after they were first Ready. */
  not_ready_nodes: { kind: "throughput", tags: [] },
  /** Peak server memory held by LISTs and WatchLists at once, bytes (modelled; docs/watchlist.md): `max`. */
  server_relist_memory_peak: { kind: "gauge", tags: [] }
} as const satisfies Record<string, { readonly kind: "throughput" | "trend" | "gauge"; readonly tags: ReadonlyArray<string> }>

export type ClusterMetric = keyof typeof ClusterMetrics
export type ClusterTag = (typeof ClusterMetrics)[ClusterMetric]["tags"][number]

export const isClusterMetric = (name: string): name is ClusterMetric => Object.prototype.hasOwnProperty.call(ClusterMetrics, name)

/** One figure of a cluster run: a count (counters), a value (gauges, in `count`) or a histogram of µs (trends), with its tag values. */
export interface ClusterSample {
  readonly metric: ClusterMetric
  readonly tags: Readonly<Partial<Record<ClusterTag, string>>>
  readonly count: number
  readonly histogram?: Histogram
}

/** What thresholds can judge of a cluster run. */
export interface ClusterFigures {
  /** The run's length (ms), for per-second rates. */
  readonly durationMs: number
  readonly samples: ReadonlyArray<ClusterSample>
}

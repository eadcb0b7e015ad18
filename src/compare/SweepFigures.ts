/**
 * The figures `clustersim sweep` reports per point (docs/sweep.md): for a cluster, the ones a what-if comparison
 * sets side by side (./ClusterComparison.ts) and APF's 429s over every priority level; for load phases, the
 * requests and their latency percentiles, every request series but setup's pooled. `headline` picks the few the
 * sweep's table and plots show; `sweep.json` keeps them all.
 */
import type { RunArtifact } from "../loadgen/Artifact.js"
import { clusterFigures, type ClusterUnit } from "./ClusterComparison.js"
import { empiricalOf } from "./PooledHistogram.js"

export interface Figure {
  readonly label: string
  readonly unit: ClusterUnit
  readonly value: number
}

const AllLevels429s = "APF 429s, all levels"

/** Every figure of a run, cluster figures first. */
export const runFigures = (a: RunArtifact): ReadonlyArray<Figure> => {
  const cluster = clusterFigures(a)
  const levels429s = cluster.filter((f) => /^APF .+ 429s$/.test(f.label))
  const requests = a.series.filter((s) => s.key.metric === "api_call" && s.key.phase !== "setup")
  const latency = empiricalOf(requests.map((s) => s.latencyHistogram))
  return [
    ...cluster,
    ...(levels429s.length > 0 ? [{ label: AllLevels429s, unit: "count" as const, value: levels429s.reduce((n, f) => n + f.value, 0) }] : []),
    ...(requests.length > 0
      ? [
          { label: "requests", unit: "count" as const, value: requests.reduce((n, s) => n + s.count, 0) },
          { label: "request errors", unit: "count" as const, value: requests.reduce((n, s) => n + s.errors, 0) },
          ...(latency.count > 0
            ? [
                { label: "request latency p50", unit: "ms" as const, value: latency.quantile(0.5) },
                { label: "request latency p90", unit: "ms" as const, value: latency.quantile(0.9) },
                { label: "request latency p99", unit: "ms" as const, value: latency.quantile(0.99) }
              ]
            : [])
        ]
      : [])
  ]
}

/** What decides a capacity question at a glance, in this order: the sweep's table columns and plots. */
const Headline = [
  "lease renew latency p99",
  "lease renew failures",
  "not-ready nodes, most at once",
  "nodes that left Ready",
  AllLevels429s,
  "pod startup p99",
  "requests",
  "request errors",
  "request latency p50",
  "request latency p99"
]

/** The headline figures any of the runs has, in `Headline` order. */
export const headlineLabels = (runs: ReadonlyArray<ReadonlyArray<Figure>>): ReadonlyArray<string> => {
  const present = new Set(runs.flatMap((r) => r.map((f) => f.label)))
  return Headline.filter((l) => present.has(l))
}

/**
 * `kubelet_evictions` of a virtual-time run (`run --metrics-out`, docs/metrics.md): every pod an eviction manager of
 * the run evicted — the cluster's `memoryPressure` nodes' and the `eviction` section's node's alike — counted by its
 * signal, as kubelet's eviction manager does (`pkg/kubelet/eviction/eviction_manager.go` increments
 * `metrics.Evictions` with the threshold's signal; the metric in `pkg/kubelet/metrics/metrics.go`). A run exports
 * it when it provides `EvictionMetrics`; without it an eviction counts nothing more than its record.
 */
import { Context, Effect, Option } from "effect"
import type { Registry } from "prom-client"
import { promClient } from "../../../src/loadgen/PromClient.js"

export interface EvictionMetricsService {
  /** One pod evicted for `signal` (`memory.available`, `nodefs.available`, …). */
  readonly evicted: (signal: string) => void
}

export class EvictionMetrics extends Context.Tag("clustersim/nodeagent/EvictionMetrics")<EvictionMetrics, EvictionMetricsService>() {}

/** The run's `EvictionMetrics`, if it exports metrics. */
export const evictionMetrics: Effect.Effect<EvictionMetricsService | undefined> = Effect.map(Effect.serviceOption(EvictionMetrics), Option.getOrUndefined)

/**
 * The counter in `registers`. An eviction is counted when the manager evicts: a scrape happens between slices of
 * the simulation, so it sees the evictions up to its instant.
 */
export const makeEvictionMetrics = (registers: ReadonlyArray<Registry>): EvictionMetricsService => {
  const { Counter } = promClient()
  const evictions = new Counter({
    name: "kubelet_evictions",
    help: "Cumulative number of pod evictions by eviction signal",
    labelNames: ["eviction_signal"],
    registers: [...registers]
  })
  return { evicted: (signal) => evictions.inc({ eviction_signal: signal }) }
}

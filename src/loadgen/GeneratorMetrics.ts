/**
 * The load generator's own per-action metrics (docs/metrics.md): every operation a scenario action recorded, counted
 * by outcome and timed from its intended start (the latency `run` reports, coordinated omission included), as
 * `clustersim_generator_operations_total` and `clustersim_generator_operation_duration_seconds`. `tappedRecorder`
 * feeds them from the run's `LatencyRecorder` without changing what it records.
 */
import { Effect } from "effect"
import { Counter, Histogram, type Registry } from "prom-client"
import { LatencyRecorder, type MetricKey, type Outcome } from "./LatencyRecorder.js"

/** client-go's latency buckets (`rest_client_request_duration_seconds`), so the two read side by side. */
const buckets = [0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0]
const labelNames = ["phase", "action", "metric", "operation", "resource"] as const

export class GeneratorMetrics {
  private readonly operations: Counter<string>
  private readonly durations: Histogram<string>

  constructor(registers: ReadonlyArray<Registry>) {
    this.operations = new Counter({
      name: "clustersim_generator_operations_total",
      help: "Operations the load generator's scenario actions completed, by phase, action, what was measured, operation, resource and outcome (ok, error, connection_error).",
      labelNames: [...labelNames, "outcome"],
      registers: [...registers]
    })
    this.durations = new Histogram({
      name: "clustersim_generator_operation_duration_seconds",
      help: "Latency of the load generator's operations in seconds, from each one's intended start (coordinated omission included), by phase, action, what was measured, operation and resource.",
      labelNames,
      buckets,
      registers: [...registers]
    })
  }

  /** The label sets of one series: the latency's, and its count's per outcome. */
  series(key: MetricKey): (outcome: Outcome, latencyMs: number) => void {
    const labels = { phase: key.phase ?? "", action: key.name ?? "", metric: key.metric, operation: key.operation, resource: key.resource }
    const byOutcome = {
      ok: { ...labels, outcome: "ok" },
      error: { ...labels, outcome: "error" },
      connectionError: { ...labels, outcome: "connection_error" }
    }
    return (outcome, latencyMs) => {
      this.operations.inc(byOutcome[outcome])
      // a request that got no answer has no latency (LatencyRecorder's rule)
      if (outcome !== "connectionError") this.durations.observe(labels, latencyMs / 1000)
    }
  }
}

const outcomeOf = (sample: { readonly ok: boolean; readonly connectionError?: boolean }): Outcome =>
  sample.connectionError === true ? "connectionError" : sample.ok ? "ok" : "error"

/** `recorder`, every sample also counted in `metrics`. */
export const tappedRecorder = (recorder: LatencyRecorder["Type"], metrics: GeneratorMetrics): LatencyRecorder["Type"] =>
  LatencyRecorder.of({
    ...recorder,
    record: (key, sample) =>
      Effect.zipRight(
        Effect.sync(() => metrics.series(key)(outcomeOf(sample), sample.completedAt - sample.intendedStart)),
        recorder.record(key, sample)
      ),
    bind: (key, model) => {
      const bound = recorder.bind(key, model)
      const observe = metrics.series(key)
      return (intendedStart, sentAt, completedAt, outcome) => {
        observe(outcome, completedAt - intendedStart)
        bound(intendedStart, sentAt, completedAt, outcome)
      }
    }
  })

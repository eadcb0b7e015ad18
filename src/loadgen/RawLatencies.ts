/**
 * Every request latency as measured, beside the histograms: a debugging and benchmarking aid
 * (`CLUSTERSIM_RAW_LATENCIES=DIR`, docs/distributed.md), so that percentiles read from merged HDR histograms can be
 * checked against the exact quantiles of the raw samples (bench/segments.ts). Taps the run's `LatencyRecorder` without
 * changing what it records; keeps the `api_call` samples it would put in a histogram (a connection error has none).
 */
import { Effect } from "effect"
import { LatencyRecorder } from "./LatencyRecorder.js"

export class RawLatencies {
  private values = new Float64Array(1 << 16)
  private length = 0

  add(ms: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2)
      grown.set(this.values)
      this.values = grown
    }
    this.values[this.length++] = ms
  }

  /** One latency in ms a line, in recording order. */
  text(): string {
    const lines: Array<string> = []
    for (let i = 0; i < this.length; i++) lines.push(this.values[i]!.toFixed(3))
    return lines.length === 0 ? "" : lines.join("\n") + "\n"
  }
}

export const tapRawLatencies = (recorder: LatencyRecorder["Type"], raw: RawLatencies): LatencyRecorder["Type"] =>
  LatencyRecorder.of({
    ...recorder,
    record: (key, sample) =>
      Effect.zipRight(
        Effect.sync(() => void (key.metric === "api_call" && sample.connectionError !== true && raw.add(sample.completedAt - sample.intendedStart))),
        recorder.record(key, sample)
      ),
    bind: (key, model) => {
      const bound = recorder.bind(key, model)
      if (key.metric !== "api_call") return bound
      return (intendedStart, sentAt, completedAt, outcome) => {
        if (outcome !== "connectionError") raw.add(completedAt - intendedStart)
        bound(intendedStart, sentAt, completedAt, outcome)
      }
    }
  })

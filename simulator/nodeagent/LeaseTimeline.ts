/**
 * Node-lease writes, failed attempts and renew latency per interval of a cluster run (ms on the run's clock, virtual
 * or real), for the report's charts over time: what the `lease_writes`, `lease_failures` and `lease_renew_latency`
 * thresholds judge for the whole run (simulator/cluster/ClusterFigures.ts), shown when it happened.
 */
import { buildJsHistogram } from "../../src/loadgen/JsHistograms.js"
import { HIGHEST_TRACKABLE_MICROS } from "../../src/loadgen/LatencyRecorder.js"
import { EqualRuns } from "./EqualRuns.js"

/** The recorded timeline (`ClusterResult.leaseTimeline`); entry i covers [i × intervalMs, (i + 1) × intervalMs). */
export interface LeaseTimelineResult {
  readonly intervalMs: number
  readonly writes: ReadonlyArray<number>
  readonly failures: ReadonlyArray<number>
  /** Renew latency (ms) of the interval's writes; null without writes. */
  readonly renewP50: ReadonlyArray<number | null>
  readonly renewP99: ReadonlyArray<number | null>
}

/**
 * Interval lengths a timeline picks from: the shortest that keeps a run under `maxIntervals` points. At least 10 s,
 * the default renew interval (0.25 × nodeLeaseDurationSeconds 40): a shorter one counts a node in some intervals and
 * not in others, a saw-tooth that is not the server's.
 */
const intervalChoices = [10_000, 30_000, 60_000, 300_000, 600_000, 3_600_000]
const maxIntervals = 240

export const timelineIntervalMs = (durationMs: number): number =>
  intervalChoices.find((i) => durationMs / i <= maxIntervals) ?? intervalChoices[intervalChoices.length - 1]!

// Two significant digits in 32-bit counts: ~13 KB an interval, not the ~180 KB of the run-wide histograms.
const intervalHistogram = () =>
  buildJsHistogram({ bitBucketSize: 32, autoResize: false, lowestDiscernibleValue: 1, highestTrackableValue: HIGHEST_TRACKABLE_MICROS, numberOfSignificantValueDigits: 2 })

export class LeaseTimeline {
  readonly intervalMs: number
  private readonly writes: Array<number> = []
  private readonly failures: Array<number> = []
  /** Each interval's latencies, as runs of equal values (`EqualRuns.ts`). */
  private readonly latency: Array<EqualRuns | undefined> = []

  /** `originMs`: the run's start on its clock; `durationMs`: its planned length (sets the interval). */
  constructor(
    private readonly originMs: number,
    durationMs: number
  ) {
    this.intervalMs = timelineIntervalMs(durationMs)
  }

  private index(atMs: number): number {
    const i = Math.max(0, Math.floor((atMs - this.originMs) / this.intervalMs))
    while (this.writes.length <= i) {
      this.writes.push(0)
      this.failures.push(0)
      this.latency.push(undefined)
    }
    return i
  }

  /** A lease written at `atMs` (its answer), `latencyMs` after its intended start. */
  write(atMs: number, latencyMs: number): void {
    const i = this.index(atMs)
    this.writes[i]!++
    const runs = (this.latency[i] ??= new EqualRuns(intervalHistogram()))
    runs.record(Math.min(HIGHEST_TRACKABLE_MICROS, Math.max(0, Math.round(latencyMs * 1000))))
  }

  /** A failed lease request (an update, an ensure-lease GET or create) at `atMs`. */
  failure(atMs: number): void {
    this.failures[this.index(atMs)]!++
  }

  /** The timeline up to `reachedMs` of the run: intervals without writes are 0 writes and null latency. */
  result(reachedMs: number): LeaseTimelineResult {
    if (reachedMs > 0) this.index(this.originMs + reachedMs - 1)
    const at = (q: number) => this.latency.map((runs) => (runs === undefined ? null : runs.histogram.getValueAtPercentile(q) / 1000))
    return { intervalMs: this.intervalMs, writes: [...this.writes], failures: [...this.failures], renewP50: at(50), renewP99: at(99) }
  }
}

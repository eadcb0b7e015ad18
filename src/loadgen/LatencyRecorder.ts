/**
 * HDR latency histograms for the load generator (docs/measurement.md).
 *
 * Every series is keyed by (metric, operation, resource, scope) and keeps two histograms:
 * - `latency`     completion − **intended** start (coordinated-omission correct, the primary number)
 * - `serviceTime` completion − actual send (what the server took once the request left)
 * Values are integer microseconds, 1 µs … 1 h, 3 significant digits (0.1 % resolution).
 *
 * Implementation choice (measured with hdr-histogram-js 3.0.1 on Node 20, 5 M values, 1 µs … 1 h):
 * - `bitBucketSize: 64` (Float64Array counts) records as fast as 32 (~190 ns/value) but cannot
 *   overflow: 32-bit counts are a Uint32Array that wraps silently past 2^32 per bucket, 64-bit
 *   counts are exact to 2^53. Footprint ~185 kB per histogram.
 * - "packed" is ~4× slower to record and ~300× slower per percentile query (it walks the packed array).
 * - WebAssembly is ~5× faster to record but every histogram must be `destroy()`ed by hand and cannot
 *   be `add`ed to a JS histogram; a leak or use-after-destroy in a long run is worse than 0.2 µs/op.
 * `encodeIntoCompressedBase64` writes the V2 compressed format (cookie 0x1c849314), readable by the
 * Java/Rust/C# ports; `decode` reads it back (round-trip tested).
 */
import type * as hdr from "hdr-histogram-js"
import { Context, Effect, Layer, Schema } from "effect"
import { buildJsHistogram, encodeIntoCompressedBase64, hdrIndex, JsHistogram } from "./JsHistograms.js"

// ---------------------------------------------------------------------------------------------
// Keys, samples and summaries
// ---------------------------------------------------------------------------------------------

/** API scope as in upstream's SLIs (docs/measurement.md): a single object, a namespace, or the whole cluster. */
export type Scope = "resource" | "namespace" | "cluster"

export const MetricKey = Schema.Struct({
  /** What is measured: `api_call`, `pod_startup`, `relist`, … */
  metric: Schema.String,
  /** Verb or phase: `GET`, `LIST`, `POST`, `PATCH`, … */
  operation: Schema.String,
  /** Resource (with subresource): `pods`, `nodes/status`, … */
  resource: Schema.String,
  scope: Schema.String,
  /** The scenario action that recorded it (three LIST actions stay three series). */
  name: Schema.optional(Schema.String),
  /** The scenario phase (`setup` for setup), so warm-up can be excluded. */
  phase: Schema.optional(Schema.String)
})
export interface MetricKey extends Schema.Schema.Type<typeof MetricKey> {}

export type LoadModel = "open" | "closed"

/** One finished operation; all times are Clock milliseconds (fractions allowed). */
export interface Sample {
  readonly intendedStart: number
  readonly sentAt: number
  readonly completedAt: number
  readonly ok: boolean
  /**
   * The request never got an answer (refused, reset, DNS): an error, never a latency sample — its time
   * says how fast the connection failed, not how fast the server answered.
   */
  readonly connectionError?: boolean
  readonly model: LoadModel
}

/** How an operation ended: answered with success, answered with an error, or not answered (`Sample.connectionError`). */
export type Outcome = "ok" | "error" | "connectionError"

/** One series' recorder: a `Sample`'s times (Clock ms) and outcome as arguments, for the executors' per-request path. */
export type BoundRecorder = (intendedStart: number, sentAt: number, completedAt: number, outcome: Outcome) => void

/** Summary in milliseconds; all zero when `count` is 0. */
export interface Summary {
  readonly count: number
  readonly min: number
  readonly mean: number
  readonly p50: number
  readonly p90: number
  readonly p95: number
  readonly p99: number
  readonly p99_9: number
  readonly max: number
}

// ---------------------------------------------------------------------------------------------
// Histogram helpers (pure)
// ---------------------------------------------------------------------------------------------

export type Histogram = hdr.Histogram

/** 1 hour in µs: anything slower is clamped (and counted as out of range). */
export const HIGHEST_TRACKABLE_MICROS = 3_600_000_000
export const SIGNIFICANT_DIGITS = 3

export const makeHistogram = (): Histogram =>
  buildJsHistogram({
    bitBucketSize: 64,
    autoResize: false,
    lowestDiscernibleValue: 1,
    highestTrackableValue: HIGHEST_TRACKABLE_MICROS,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS
  })

/** Milliseconds (float) → integer microseconds inside the trackable range. */
export const toMicros = (ms: number): number => {
  const us = Math.round(ms * 1000)
  if (!(us > 0)) return 0 // also catches NaN
  return us > HIGHEST_TRACKABLE_MICROS ? HIGHEST_TRACKABLE_MICROS : us
}

/** Record a duration given in ms; returns false when it had to be clamped to the range. */
export const recordMillis = (h: Histogram, ms: number): boolean => {
  const us = toMicros(ms)
  h.recordValue(us)
  return ms >= 0 && ms * 1000 <= HIGHEST_TRACKABLE_MICROS
}

export const mergeHistograms = (hs: Iterable<Histogram>): Histogram => {
  const out = makeHistogram()
  for (const h of hs) if (h.totalCount > 0) out.add(h)
  return out
}

const emptySummary: Summary = { count: 0, min: 0, mean: 0, p50: 0, p90: 0, p95: 0, p99: 0, p99_9: 0, max: 0 }

/**
 * hdr-histogram-js's `mean` without its iterator: the same sum, in the same order (each recorded bucket's
 * median-equivalent value times its count), read from the counts array and stopped at the last recorded value.
 * The library's `mean` walks all ~23,000 buckets of the 1 µs–1 h range through an iterator object, ~2 ms a call;
 * every interval summary made one, on the request that closed the interval (docs/benchmarks.md, "Load generator").
 */
export const meanOf = (h: Histogram): number => {
  const total = h.totalCount
  if (total === 0) return 0
  if (!(h instanceof JsHistogram)) return h.mean
  let sum = 0
  let seen = 0
  for (let i = 0; seen < total && i < h.countsArrayLength; i++) {
    const count = h.getCountAtIndex(i)
    if (count === 0) continue
    sum += h.medianEquivalentValue(h.highestEquivalentValue(h.valueFromIndex(i))) * count
    seen += count
  }
  return sum / total
}

export const summarize = (h: Histogram): Summary => {
  if (h.totalCount === 0) return emptySummary
  const ms = (us: number) => us / 1000
  return {
    count: h.totalCount,
    // percentile 0 is the lowest recorded value (minNonZeroValue would skip 0 µs samples)
    min: ms(h.getValueAtPercentile(0)),
    mean: ms(meanOf(h)),
    p50: ms(h.getValueAtPercentile(50)),
    p90: ms(h.getValueAtPercentile(90)),
    p95: ms(h.getValueAtPercentile(95)),
    p99: ms(h.getValueAtPercentile(99)),
    p99_9: ms(h.getValueAtPercentile(99.9)),
    max: ms(h.maxValue)
  }
}

/** V2 compressed, base64 (HdrHistogram interchange format). */
export const encodeHistogram = (h: Histogram): string => encodeIntoCompressedBase64(h)

/** Decode V2 compressed base64 into a histogram with this module's bounds (throws on bad input). */
export const decodeHistogram = (base64: string): Histogram => {
  const decoded = hdrIndex().decodeFromCompressedBase64(base64, 64, false)
  return decoded.totalCount === 0 ? makeHistogram() : mergeHistograms([decoded])
}

// ---------------------------------------------------------------------------------------------
// Snapshots
// ---------------------------------------------------------------------------------------------

export interface SeriesSnapshot {
  readonly key: MetricKey
  readonly models: ReadonlyArray<LoadModel>
  readonly latency: Histogram
  readonly serviceTime: Histogram
  /** Completed operations: latency.totalCount + connectionErrors. */
  readonly count: number
  readonly errors: number
  /** Errors without an answer (included in `errors`, absent from the histograms). */
  readonly connectionErrors: number
  /** Planned iterations that were not started (k6 `dropped_iterations`). */
  readonly dropped: number
  /** Samples clamped into [0, 1 h]. */
  readonly outOfRange: number
}

export interface IntervalSnapshot {
  readonly key: MetricKey
  readonly index: number
  /** Interval bounds in ms relative to the recorder origin. */
  readonly startMs: number
  readonly endMs: number
  readonly latency: Summary
  readonly serviceTime: Summary
  readonly errors: number
  /** Absent in `clustersim/run-v1` artifacts. */
  readonly connectionErrors?: number
  readonly dropped: number
  /** V2 compressed base64, for artefacts and later re-aggregation (e.g. 5-minute SLO windows). */
  readonly latencyHistogram: string
  readonly serviceTimeHistogram: string
}

/** A series as it crosses a process boundary (worker → coordinator, run artefact). */
export const EncodedSeries = Schema.Struct({
  key: MetricKey,
  models: Schema.Array(Schema.Literal("open", "closed")),
  latency: Schema.String,
  serviceTime: Schema.String,
  errors: Schema.Number,
  connectionErrors: Schema.optional(Schema.Number),
  dropped: Schema.Number,
  outOfRange: Schema.Number
})
export interface EncodedSeries extends Schema.Schema.Type<typeof EncodedSeries> {}

export const encodeSeries = (s: SeriesSnapshot): EncodedSeries => ({
  key: s.key,
  models: s.models,
  latency: encodeHistogram(s.latency),
  serviceTime: encodeHistogram(s.serviceTime),
  errors: s.errors,
  connectionErrors: s.connectionErrors,
  dropped: s.dropped,
  outOfRange: s.outOfRange
})

export const summarizeSeries = (s: SeriesSnapshot) => ({
  key: s.key,
  models: s.models,
  latency: summarize(s.latency),
  serviceTime: summarize(s.serviceTime),
  errors: s.errors,
  dropped: s.dropped
})

// ---------------------------------------------------------------------------------------------
// Recordings: the mutable store behind the service (plain class, driven with explicit times)
// ---------------------------------------------------------------------------------------------

export const keyString = (k: MetricKey): string =>
  `${k.metric}\u0000${k.operation}\u0000${k.resource}\u0000${k.scope}\u0000${k.name ?? ""}\u0000${k.phase ?? ""}`

/** A copy of the key with only its own fields (callers may pass wider objects). */
const ownKey = (k: MetricKey): MetricKey => ({
  metric: k.metric,
  operation: k.operation,
  resource: k.resource,
  scope: k.scope,
  ...(k.name !== undefined ? { name: k.name } : {}),
  ...(k.phase !== undefined ? { phase: k.phase } : {})
})

interface IntervalCounts {
  latency: Histogram
  serviceTime: Histogram
  errors: number
  connectionErrors: number
  dropped: number
}

class Series {
  readonly models = new Set<LoadModel>()
  /** Everything up to the start of the current interval. */
  readonly closed: IntervalCounts = { latency: makeHistogram(), serviceTime: makeHistogram(), errors: 0, connectionErrors: 0, dropped: 0 }
  /** The interval being recorded; values are recorded once, here, and folded into `closed` on roll. */
  readonly current: IntervalCounts = { latency: makeHistogram(), serviceTime: makeHistogram(), errors: 0, connectionErrors: 0, dropped: 0 }
  currentIndex = 0
  outOfRange = 0
  constructor(readonly key: MetricKey) {}
}

export interface RecordingsOptions {
  /** Clock ms that interval 0 starts at (normally the run start). */
  readonly originMs: number
  /** Interval length for the time series; default 1000 ms. */
  readonly intervalMs?: number
}

export class Recordings {
  readonly originMs: number
  readonly intervalMs: number
  private readonly series = new Map<string, Series>()
  private readonly finished: Array<IntervalSnapshot> = []

  constructor(options: RecordingsOptions) {
    this.originMs = options.originMs
    this.intervalMs = options.intervalMs ?? 1000
    if (!(this.intervalMs > 0)) throw new Error(`intervalMs must be > 0, got ${this.intervalMs}`)
  }

  private indexAt(ms: number): number {
    return Math.max(0, Math.floor((ms - this.originMs) / this.intervalMs))
  }

  private seriesFor(key: MetricKey, atMs: number): Series {
    return this.seriesById(keyString(key), key, atMs)
  }

  private seriesById(id: string, key: MetricKey, atMs: number): Series {
    let s = this.series.get(id)
    if (!s) {
      s = new Series(ownKey(key))
      s.currentIndex = this.indexAt(atMs)
      this.series.set(id, s)
    }
    // A sample stamped before the current interval (a fiber that read the clock, then yielded)
    // stays in the current interval: totals stay exact, the time series shifts by one interval at most.
    const index = this.indexAt(atMs)
    if (index > s.currentIndex) this.roll(s, index)
    return s
  }

  private roll(s: Series, nextIndex: number): void {
    const c = s.current
    if (c.latency.totalCount > 0 || c.errors > 0 || c.dropped > 0) {
      this.finished.push({
        key: s.key,
        index: s.currentIndex,
        startMs: s.currentIndex * this.intervalMs,
        endMs: (s.currentIndex + 1) * this.intervalMs,
        latency: summarize(c.latency),
        serviceTime: summarize(c.serviceTime),
        errors: c.errors,
        connectionErrors: c.connectionErrors,
        dropped: c.dropped,
        latencyHistogram: encodeHistogram(c.latency),
        serviceTimeHistogram: encodeHistogram(c.serviceTime)
      })
      if (c.latency.totalCount > 0) {
        s.closed.latency.add(c.latency)
        s.closed.serviceTime.add(c.serviceTime)
      }
      s.closed.errors += c.errors
      s.closed.connectionErrors += c.connectionErrors
      s.closed.dropped += c.dropped
      c.latency.reset()
      c.serviceTime.reset()
      c.errors = 0
      c.connectionErrors = 0
      c.dropped = 0
    }
    s.currentIndex = nextIndex
  }

  record(key: MetricKey, sample: Sample): void {
    const s = this.seriesFor(key, sample.completedAt)
    s.models.add(sample.model)
    this.recordInto(s, sample.intendedStart, sample.sentAt, sample.completedAt, sample.connectionError === true ? "connectionError" : sample.ok ? "ok" : "error")
  }

  /** `record` for one series and model, resolved once: the load executors' per-request path, no sample object. */
  bind(key: MetricKey, model: LoadModel): BoundRecorder {
    const id = keyString(key)
    return (intendedStart, sentAt, completedAt, outcome) => {
      const s = this.seriesById(id, key, completedAt)
      s.models.add(model)
      this.recordInto(s, intendedStart, sentAt, completedAt, outcome)
    }
  }

  private recordInto(s: Series, intendedStart: number, sentAt: number, completedAt: number, outcome: Outcome): void {
    if (outcome === "connectionError") {
      s.current.errors++
      s.current.connectionErrors++
      return
    }
    const latencyInRange = recordMillis(s.current.latency, completedAt - intendedStart)
    const serviceInRange = recordMillis(s.current.serviceTime, completedAt - sentAt)
    if (!latencyInRange || !serviceInRange) s.outOfRange++
    if (outcome === "error") s.current.errors++
  }

  recordDropped(key: MetricKey, atMs: number, count = 1): void {
    this.seriesFor(key, atMs).current.dropped += count
  }

  /** Fold a series encoded elsewhere (another worker) into this one, as of `atMs`. */
  merge(encoded: EncodedSeries, atMs: number): void {
    const s = this.seriesFor(encoded.key, atMs)
    for (const m of encoded.models) s.models.add(m)
    const latency = decodeHistogram(encoded.latency)
    const serviceTime = decodeHistogram(encoded.serviceTime)
    if (latency.totalCount > 0) s.current.latency.add(latency)
    if (serviceTime.totalCount > 0) s.current.serviceTime.add(serviceTime)
    s.current.errors += encoded.errors
    s.current.connectionErrors += encoded.connectionErrors ?? 0
    s.current.dropped += encoded.dropped
    s.outOfRange += encoded.outOfRange
  }

  /** Close every interval that ended at or before `nowMs`. */
  rollUntil(nowMs: number): void {
    const idx = this.indexAt(nowMs)
    for (const s of this.series.values()) if (idx > s.currentIndex) this.roll(s, idx)
  }

  /** Close all intervals, including the running one (end of run). */
  flush(): void {
    for (const s of this.series.values()) this.roll(s, s.currentIndex + 1)
  }

  /** Finished intervals in the order they were closed. */
  intervals(): ReadonlyArray<IntervalSnapshot> {
    return this.finished.slice()
  }

  /** Whole-run series (copies; the recorder keeps recording). */
  snapshot(): ReadonlyArray<SeriesSnapshot> {
    return Array.from(this.series.values(), (s) => {
      const latency = mergeHistograms([s.closed.latency, s.current.latency])
      const connectionErrors = s.closed.connectionErrors + s.current.connectionErrors
      return {
        key: s.key,
        models: Array.from(s.models),
        latency,
        serviceTime: mergeHistograms([s.closed.serviceTime, s.current.serviceTime]),
        count: latency.totalCount + connectionErrors,
        errors: s.closed.errors + s.current.errors,
        connectionErrors,
        dropped: s.closed.dropped + s.current.dropped,
        outOfRange: s.outOfRange
      }
    })
  }
}

// ---------------------------------------------------------------------------------------------
// Service
// ---------------------------------------------------------------------------------------------

/** Clock time in ms with sub-ms precision (TestClock's `currentTimeNanos` rejects fractional instants). */
export const nowMillis: Effect.Effect<number> = Effect.clockWith((clock) =>
  Effect.sync(() => Number(clock.unsafeCurrentTimeNanos()) / 1e6)
)

export class LatencyRecorder extends Context.Tag("clustersim/loadgen/LatencyRecorder")<
  LatencyRecorder,
  {
    readonly record: (key: MetricKey, sample: Sample) => Effect.Effect<void>
    /**
     * A synchronous recorder for one series, its key resolved once: the executors call it from each request's
     * completion, where an Effect and a key lookup per sample were measurable (docs/benchmarks.md).
     */
    readonly bind: (key: MetricKey, model: LoadModel) => BoundRecorder
    /** Count a planned iteration that was not started, stamped with the current Clock time. */
    readonly recordDropped: (key: MetricKey, count?: number) => Effect.Effect<void>
    /** Add a series recorded by another worker. */
    readonly merge: (series: EncodedSeries) => Effect.Effect<void>
    /** Whole-run series so far. */
    readonly snapshot: Effect.Effect<ReadonlyArray<SeriesSnapshot>>
    /** Intervals finished by the current Clock time. */
    readonly intervals: Effect.Effect<ReadonlyArray<IntervalSnapshot>>
    /** Close every interval, the running one included (call once at the end of a run). */
    readonly flush: Effect.Effect<void>
  }
>() {
  /** Build a recorder whose interval 0 starts now (Clock time), or at `originMs`. */
  static readonly make = (options?: { readonly intervalMs?: number; readonly originMs?: number }) =>
    Effect.map(nowMillis, (now) => {
      // a generator worker's intervals start where its coordinator's do (the live Clock is epoch time in every process)
      const r = new Recordings({ originMs: options?.originMs ?? now, intervalMs: options?.intervalMs })
      return LatencyRecorder.of({
        record: (key, sample) => Effect.sync(() => r.record(key, sample)),
        bind: (key, model) => r.bind(key, model),
        recordDropped: (key, count) => Effect.flatMap(nowMillis, (t) => Effect.sync(() => r.recordDropped(key, t, count))),
        merge: (series) => Effect.flatMap(nowMillis, (t) => Effect.sync(() => r.merge(series, t))),
        snapshot: Effect.sync(() => r.snapshot()),
        intervals: Effect.flatMap(nowMillis, (t) =>
          Effect.sync(() => {
            r.rollUntil(t)
            return r.intervals()
          })
        ),
        flush: Effect.sync(() => r.flush())
      })
    })

  /** In-process recorder, 1 s intervals by default. */
  static readonly layer = (options?: { readonly intervalMs?: number }) =>
    Layer.effect(LatencyRecorder, LatencyRecorder.make(options))

  static readonly layerDefaults = Layer.effect(LatencyRecorder, LatencyRecorder.make())
}

/**
 * The same recorder with `name` and `phase` set on every key recorded through it, so everything an
 * action records (its executor, the reflectors it starts, its watchers) carries the action's tags.
 */
export const withTags = (
  recorder: LatencyRecorder["Type"],
  tags: { readonly name?: string; readonly phase?: string }
): LatencyRecorder["Type"] => {
  const tag = (key: MetricKey): MetricKey => ({ ...key, ...tags })
  return LatencyRecorder.of({
    ...recorder,
    record: (key, sample) => recorder.record(tag(key), sample),
    bind: (key, model) => recorder.bind(tag(key), model),
    recordDropped: (key, count) => recorder.recordDropped(tag(key), count),
    merge: (series) => recorder.merge({ ...series, key: tag(series.key) })
  })
}

/**
 * Server-side latency of a real target, as ClusterLoader2 measures it (docs/metrics.md "Server-side figures"): the
 * target's own `apiserver_request_sli_duration_seconds` (else `apiserver_request_duration_seconds`) read before and
 * after each phase, the bucket counts' difference taken per (verb, resource, subresource, scope), and p50/p90/p99
 * computed from those buckets as PromQL's `histogram_quantile` does (./HistogramQuantile.ts). Pure: the readings come
 * from ./ServerSideReader.ts. WATCH and the streaming subresources are left out, as CL2's API-responsiveness
 * filter does (`verb!="WATCH", subresource!~"log|exec|portforward|attach|proxy"`, api_responsiveness_prometheus.go),
 * and so are non-resource paths (`/healthz`): the SLOs are about API calls.
 */
import { Either } from "effect"
import { addBuckets, type BucketQuantile, bucketQuantile, type Buckets } from "./HistogramQuantile.js"
import type { Sample } from "./Exposition.js"

export const SliMetric = "apiserver_request_sli_duration_seconds"
export const DurationMetric = "apiserver_request_duration_seconds"
export type ServerMetric = typeof SliMetric | typeof DurationMetric

/** How the quantiles are computed, as the artifact and the reports say it. */
export const QuantileMethod = "histogram_quantile: linear interpolation within the bucket holding the rank (Prometheus promql/quantile.go)"

export interface CallKey {
  /** Upstream's verb label: `GET`, `LIST`, `POST`, … */
  readonly verb: string
  readonly resource: string
  readonly subresource: string
  /** `resource`, `namespace` or `cluster` (upstream's CleanScope). */
  readonly scope: string
}

export interface CallHistogram extends CallKey {
  readonly buckets: Buckets
  /** Seconds, summed. */
  readonly sum: number
}

/** One reading of the target's latency histograms: per family, per call. */
export type Reading = Readonly<Record<ServerMetric, ReadonlyMap<string, CallHistogram>>>

const keyOf = (k: CallKey): string => `${k.verb}\u0000${k.resource}\u0000${k.subresource}\u0000${k.scope}`

/** The samples a reading needs: only these families' lines are kept when parsing (./Exposition.ts). */
export const wantedSample = (name: string): boolean =>
  name === `${SliMetric}_bucket` || name === `${SliMetric}_sum` || name === `${DurationMetric}_bucket` || name === `${DurationMetric}_sum`

const isMeasured = (k: CallKey): boolean => k.verb !== "WATCH" && k.scope !== "" && k.resource !== "" && !/^(log|exec|portforward|attach|proxy)$/.test(k.subresource)

/** The family's histograms per call, summed over the labels a call does not have (group, version, component, dry_run). */
const familyOf = (samples: ReadonlyArray<Sample>, family: ServerMetric): Map<string, CallHistogram> => {
  const byCall = new Map<string, { key: CallKey; le: Map<number, number>; sum: number }>()
  const entry = (labels: Readonly<Record<string, string>>) => {
    const key: CallKey = { verb: labels.verb ?? "", resource: labels.resource ?? "", subresource: labels.subresource ?? "", scope: labels.scope ?? "" }
    const id = keyOf(key)
    const e = byCall.get(id) ?? { key, le: new Map<number, number>(), sum: 0 }
    byCall.set(id, e)
    return e
  }
  for (const s of samples) {
    if (s.name === `${family}_bucket`) {
      const le = s.labels.le === undefined ? Number.NaN : s.labels.le === "+Inf" ? Infinity : Number(s.labels.le)
      if (Number.isNaN(le)) continue
      const e = entry(s.labels)
      e.le.set(le, (e.le.get(le) ?? 0) + s.value)
    } else if (s.name === `${family}_sum`) entry(s.labels).sum += s.value
  }
  const out = new Map<string, CallHistogram>()
  for (const [id, e] of byCall) {
    const bounds = [...e.le.keys()].filter((b) => Number.isFinite(b)).sort((a, b) => a - b)
    const total = e.le.get(Infinity)
    if (total === undefined || bounds.length === 0) continue
    out.set(id, { ...e.key, sum: e.sum, buckets: { bounds, counts: [...bounds.map((b) => e.le.get(b)!), total] } })
  }
  return out
}

export const readingOf = (samples: ReadonlyArray<Sample>): Reading => ({ [SliMetric]: familyOf(samples, SliMetric), [DurationMetric]: familyOf(samples, DurationMetric) })

/** A quantile as reported: milliseconds, with the bucket it came from (`upperMs` null for `+Inf`). */
export interface ServerQuantile {
  readonly ms: number
  readonly bucketMs: readonly [lower: number, upper: number | null]
}

export interface ServerCallFigures extends CallKey {
  readonly count: number
  readonly p50?: ServerQuantile
  readonly p90?: ServerQuantile
  readonly p99?: ServerQuantile
  /** The phase's bucket counts (cumulative, seconds): pooled again by thresholds and `compare`. */
  readonly buckets: Buckets
  readonly sumSeconds: number
}

export interface ServerPhase {
  readonly phase: string
  readonly startedAt: string
  readonly endedAt: string
  readonly calls: ReadonlyArray<ServerCallFigures>
  /** Why this phase has no figures while the others have theirs (a Prometheus window too short for its scrapes). */
  readonly unread?: string
}

/** The `server` part of run.json: the target's own latency figures, or why there are none. */
export interface ServerSideReport {
  /** `metrics`: the target's `/metrics`, read before and after each phase; `prometheus`: PromQL over each phase's window. */
  readonly source: "metrics" | "prometheus"
  readonly url: string
  /** The family the figures come from. */
  readonly metric?: ServerMetric
  readonly method: string
  readonly phases: ReadonlyArray<ServerPhase>
  /** Why there are no server-side figures (the first failure: a 403, a timeout, malformed exposition, …). */
  readonly absent?: string
}

const asQuantile = (q: BucketQuantile | undefined): ServerQuantile | undefined =>
  q === undefined ? undefined : { ms: q.value * 1000, bucketMs: [q.lower * 1000, q.upper === undefined ? null : q.upper * 1000] }

/** A call's figures from its bucket counts. */
export const callFigures = (key: CallKey, buckets: Buckets, sumSeconds: number): ServerCallFigures => {
  const quantile = (q: number) => {
    const v = asQuantile(bucketQuantile(q, buckets))
    return v === undefined ? {} : { [q === 0.5 ? "p50" : q === 0.9 ? "p90" : "p99"]: v }
  }
  return {
    verb: key.verb,
    resource: key.resource,
    subresource: key.subresource,
    scope: key.scope,
    count: buckets.counts[buckets.counts.length - 1] ?? 0,
    ...quantile(0.5),
    ...quantile(0.9),
    ...quantile(0.99),
    buckets,
    sumSeconds
  }
}

/** The family a pair of readings is judged on: the SLI histogram when the target has it (1.23+), else the older one. */
export const familyFor = (after: Reading): ServerMetric | undefined =>
  after[SliMetric].size > 0 ? SliMetric : after[DurationMetric].size > 0 ? DurationMetric : undefined

const byCall = (a: CallKey, b: CallKey) =>
  a.verb.localeCompare(b.verb) || a.resource.localeCompare(b.resource) || a.subresource.localeCompare(b.subresource) || a.scope.localeCompare(b.scope)

/**
 * One phase's calls: `after − before`, bucket by bucket. A count that went down means the server restarted (its
 * counters reset) between the readings: the phase has no figures then, rather than wrong ones.
 */
export const phaseCalls = (family: ServerMetric, before: Reading, after: Reading): Either.Either<ReadonlyArray<ServerCallFigures>, string> => {
  const out: Array<ServerCallFigures> = []
  for (const [id, a] of after[family]) {
    if (!isMeasured(a)) continue
    const b = before[family].get(id)
    const counts = b === undefined ? a.buckets.counts : addBuckets([a.buckets, { bounds: b.buckets.bounds, counts: b.buckets.counts.map((c) => -c) }])?.counts
    if (counts === undefined) return Either.left(`the buckets of ${family} changed between the readings`)
    if (counts.some((c) => c < 0)) return Either.left(`${family} went down between the readings (the target restarted?)`)
    if (counts[counts.length - 1] === 0) continue
    out.push(callFigures(a, { bounds: a.buckets.bounds, counts }, a.sum - (b?.sum ?? 0)))
  }
  return Either.right(out.sort(byCall))
}

/** Calls pooled over phases (or rounds): bucket counts added per call; calls whose buckets differ are left apart. */
export const poolCalls = (calls: ReadonlyArray<ServerCallFigures>): ReadonlyArray<ServerCallFigures> => {
  const groups = new Map<string, Array<ServerCallFigures>>()
  for (const c of calls) groups.set(keyOf(c), [...(groups.get(keyOf(c)) ?? []), c])
  return [...groups.values()]
    .flatMap((g) => {
      const added = addBuckets(g.map((c) => c.buckets))
      return added === undefined ? [] : [callFigures(g[0]!, added, g.reduce((s, c) => s + c.sumSeconds, 0))]
    })
    .sort(byCall)
}

/** `LIST pods namespace`, `PATCH pods/status resource`. */
export const callLabel = (c: CallKey): string => `${c.verb} ${c.resource}${c.subresource ? `/${c.subresource}` : ""} ${c.scope}`

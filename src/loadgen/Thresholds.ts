/**
 * SLO thresholds for scenarios, in k6's expression syntax (docs/measurement.md, docs/scenarios.md).
 *
 *   thresholds:
 *     "latency{operation:LIST,scope:cluster}": ["p(99) < 30s"]
 *     "latency{operation:POST|PUT|PATCH|DELETE,resource:*}": ["p(99)<=1s"]   # `*` = judge each resource
 *     "errors": ["rate < 0.01"]
 *     "dropped_iterations": ["count == 0"]
 *
 * Name: a known metric, optionally `{tag:value,…}` with tags metric/operation/resource/scope/name/phase;
 * `a|b` matches either value, `*` matches any and evaluates each value as its own group (an SLO holds
 * per (resource, verb), not for their mix). Values match case-insensitively.
 * Expression: `p(N) | avg | min | med | max | count | rate`, then `< <= > >= == !=`, then a number;
 * durations take `us ms s m h` (no unit = ms, as in k6). Unknown metric names, tags, aggregations,
 * operators and units are errors naming the token (k6 #1526: thresholds must not silently pass).
 * An expression with no data fails, unless written in k6's object form with `allowNoData: true`
 * (`{threshold: "p(99) < 1s", allowNoData: true}`, beside k6's `abortOnFail`).
 * A cluster run's figures have metrics and tags of their own (`lease_writes`, `apf_rejected{priority_level:…}`,
 * `ClusterMetrics.ts`), judged from its result rather than from series.
 * `server` is a real target's own latency (./ServerLatency.ts), with tags verb/resource/subresource/scope/phase:
 * `"server{verb:LIST,scope:cluster}": "p(99) < 30s"`, or with the aggregation in the name and Prometheus' `=`,
 * `"server.p99{verb=LIST,scope=cluster}": "< 30s"`; its quantiles come from the server's buckets.
 */
import { Data, Either } from "effect"
import { type ClusterFigures, type ClusterMetric, ClusterMetrics, type ClusterSample, type ClusterTag, isClusterMetric } from "./ClusterMetrics.js"
import { type Histogram, mergeHistograms, type MetricKey, type SeriesSnapshot } from "./LatencyRecorder.js"
import { addBuckets, bucketQuantile } from "./HistogramQuantile.js"
import type { ServerCallFigures, ServerSideReport } from "./ServerLatency.js"

// ---------------------------------------------------------------------------------------------
// Model
// ---------------------------------------------------------------------------------------------

/** Metrics a threshold may name, and the kind of value each one is. */
export const KnownMetrics = {
  /** completion − intended start, ms (coordinated-omission correct) */
  latency: "trend",
  /** completion − actual send, ms */
  service_time: "trend",
  /** failed operations: `rate` = errors / completed, `count` = errors */
  errors: "rate",
  /** completed operations */
  iterations: "counter",
  /** planned iterations not started because `maxInFlight` was reached */
  dropped_iterations: "counter"
} as const
export type KnownMetric = keyof typeof KnownMetrics
/**
 * `throughput`: a counter whose `rate` is per second of the run (k6's Counter); `gauge`: one value judged by its `max`
 * (a peak) — both for the cluster's metrics; `buckets`: the server's histograms.
 */
export type MetricKind = (typeof KnownMetrics)[KnownMetric] | "throughput" | "gauge" | "buckets"

/** A real target's own request latency, from its histograms (./ServerLatency.ts). */
export const ServerMetricName = "server"
export const ServerTags = ["verb", "resource", "subresource", "scope", "phase"] as const
export type ServerTag = (typeof ServerTags)[number]

/** `name` is the scenario action, `phase` its phase (`setup` for setup): `latency{phase:steady}` leaves warm-up out. */
export const Tags = ["metric", "operation", "resource", "scope", "name", "phase"] as const
export type Tag = (typeof Tags)[number]
/** A tag of a load series or of a cluster metric (`src/loadgen/ClusterMetrics.ts`). */
export type AnyTag = Tag | ClusterTag | ServerTag

export type Aggregation =
  | { readonly _tag: "Percentile"; readonly percentile: number }
  | { readonly _tag: "Avg" | "Min" | "Med" | "Max" | "Count" | "Rate" }

export type Comparator = "<" | "<=" | ">" | ">=" | "==" | "!="

export interface Condition {
  /** The expression as written. */
  readonly source: string
  readonly aggregation: Aggregation
  readonly comparator: Comparator
  /** Milliseconds for duration aggregations, the plain number otherwise. */
  readonly value: number
  /** No data passes instead of failing (an SLO for calls that may never be made). */
  readonly allowNoData?: boolean
}

/** One expression as a scenario writes it: the string, or k6's object form with options. */
export type ExpressionSpec = string | { readonly threshold: string; readonly allowNoData?: boolean | undefined }

export interface Threshold {
  /** The name as written (or the preset's name). */
  readonly name: string
  readonly metric: KnownMetric | ClusterMetric | typeof ServerMetricName
  /** Allowed values per tag (lower-cased); a missing tag matches everything. */
  readonly selector: Readonly<Partial<Record<AnyTag, ReadonlyArray<string>>>>
  /** Tags whose distinct values are judged separately. */
  readonly groupBy: ReadonlyArray<AnyTag>
  readonly conditions: ReadonlyArray<Condition>
}

export class ThresholdParseError extends Data.TaggedError("ThresholdParseError")<{
  /** The threshold name or expression that failed. */
  readonly input: string
  /** The offending token. */
  readonly token: string
  readonly reason: string
}> {
  override get message(): string {
    return `invalid threshold "${this.input}": ${this.reason} "${this.token}"`
  }
}

// ---------------------------------------------------------------------------------------------
// Parsing
// ---------------------------------------------------------------------------------------------

const DURATION_UNITS: Record<string, number> = { us: 0.001, µs: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
const AGGREGATIONS: Record<string, Exclude<Aggregation["_tag"], "Percentile">> = {
  avg: "Avg",
  min: "Min",
  med: "Med",
  max: "Max",
  count: "Count",
  rate: "Rate"
}
const ALLOWED: Record<MetricKind, ReadonlyArray<Aggregation["_tag"]>> = {
  trend: ["Percentile", "Avg", "Min", "Med", "Max", "Count"],
  rate: ["Rate", "Count"],
  counter: ["Count"],
  throughput: ["Count", "Rate"],
  buckets: ["Percentile", "Avg", "Med", "Count"],
  gauge: ["Max"]
}
const aggregationText = (a: Aggregation): string => (a._tag === "Percentile" ? `p(${a.percentile})` : a._tag.toLowerCase())

const fail = (input: string, token: string, reason: string) => Either.left(new ThresholdParseError({ input, token, reason }))

/** Parse one expression (`p(99) < 1s`) for a metric of the given kind. */
export const parseCondition = (source: string, kind: MetricKind = "trend"): Either.Either<Condition, ThresholdParseError> => {
  const m = /^\s*(p\s*\(\s*([^)]*)\)|[A-Za-z_][A-Za-z_0-9.]*)\s*(.*)$/s.exec(source)
  if (!m) return fail(source, source.trim().split(/\s+/)[0] ?? "", "expected an aggregation (p(N), avg, min, med, max, count, rate), got")
  const [, aggToken, percentileText, rest1] = m as unknown as [string, string, string | undefined, string]
  let aggregation: Aggregation
  if (percentileText !== undefined) {
    const p = Number(percentileText.trim())
    if (percentileText.trim() === "" || !Number.isFinite(p) || p <= 0 || p > 100) {
      return fail(source, aggToken, "percentile must be a number in (0, 100], got")
    }
    aggregation = { _tag: "Percentile", percentile: p }
  } else {
    const tag = AGGREGATIONS[aggToken.toLowerCase()]
    if (!tag) return fail(source, aggToken, "unknown aggregation (expected p(N), avg, min, med, max, count, rate)")
    aggregation = { _tag: tag }
  }
  if (!ALLOWED[kind].includes(aggregation._tag)) {
    return fail(source, aggToken, `aggregation not available for a ${kind} metric (allowed: ${ALLOWED[kind].map((t) => (t === "Percentile" ? "p(N)" : t.toLowerCase())).join(", ")})`)
  }
  const op = /^(<=|>=|==|!=|<|>)\s*(.*)$/s.exec(rest1)
  if (!op) return fail(source, rest1.trim().split(/\s+/)[0] || "<end>", "expected a comparator (<, <=, >, >=, ==, !=), got")
  const [, comparator, rest2] = op as unknown as [string, Comparator, string]
  const num = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*([^\s\d.+-][^\s]*)?\s*(.*)$/s.exec(rest2)
  if (!num) return fail(source, rest2.trim().split(/\s+/)[0] || "<end>", "expected a number, got")
  const [, numberText, unit, trailing] = num as unknown as [string, string, string | undefined, string]
  if (trailing.trim() !== "") return fail(source, trailing.trim(), "unexpected trailing input")
  const isDuration = (kind === "trend" || kind === "buckets") && aggregation._tag !== "Count"
  let value = Number(numberText)
  if (unit !== undefined) {
    if (!isDuration) return fail(source, unit, `${aggregationText(aggregation)} takes a plain number, not a unit`)
    const factor = DURATION_UNITS[unit]
    if (factor === undefined) return fail(source, unit, "unknown unit (expected us, ms, s, m, h)")
    value *= factor
  }
  return Either.right({ source, aggregation, comparator, value })
}

const isKnown = (name: string): name is KnownMetric => Object.prototype.hasOwnProperty.call(KnownMetrics, name)
type AnyMetric = Threshold["metric"]
const kindOf = (metric: AnyMetric): MetricKind =>
  metric === ServerMetricName ? "buckets" : isClusterMetric(metric) ? ClusterMetrics[metric].kind : KnownMetrics[metric]
const tagsOf = (metric: AnyMetric): ReadonlyArray<AnyTag> => (metric === ServerMetricName ? ServerTags : isClusterMetric(metric) ? ClusterMetrics[metric].tags : Tags)
/** Every metric a threshold may name. */
export const thresholdMetricNames: ReadonlyArray<string> = [...Object.keys(KnownMetrics), ...Object.keys(ClusterMetrics), ServerMetricName]
const knownNames = thresholdMetricNames.join(", ")

/**
 * Parse a threshold name (`latency{operation:LIST,scope:cluster}`) and its expressions. A tag's value follows `:` or
 * `=` (Prometheus' selector); `metric.pNN` puts the aggregation in the name, the expressions then start at the
 * comparator (`"server.p99{verb=LIST}": "< 30s"`).
 */
export const parseThreshold = (
  name: string,
  expressions: ExpressionSpec | ReadonlyArray<ExpressionSpec>
): Either.Either<Threshold, ThresholdParseError> => {
  const parsed = parseThresholdParts(name, expressions)
  return parsed.problems.length > 0 ? Either.left(parsed.problems[0]!.error) : Either.right(parsed.threshold!)
}

/**
 * Where a threshold's problems are, for `validate` to report every one at its place: `at` is empty for the name,
 * `[i]` for the i-th expression of a list, with `"threshold"` for the object form's expression.
 */
export interface ThresholdProblem {
  readonly at: ReadonlyArray<number | "threshold">
  readonly error: ThresholdParseError
}

/** Every problem of one threshold: its name's, else each expression's. */
export const thresholdProblems = (name: string, expressions: ExpressionSpec | ReadonlyArray<ExpressionSpec>): ReadonlyArray<ThresholdProblem> =>
  parseThresholdParts(name, expressions).problems

const parseThresholdParts = (
  name: string,
  expressions: ExpressionSpec | ReadonlyArray<ExpressionSpec>
): { readonly threshold?: Threshold; readonly problems: ReadonlyArray<ThresholdProblem> } => {
  // a problem of the name: the expressions cannot be judged without it
  const whole = (input: string, token: string, reason: string) => ({ problems: [{ at: [], error: new ThresholdParseError({ input, token, reason }) }] })
  const m = /^\s*([^{\s]+)\s*(?:\{(.*)\})?\s*$/s.exec(name)
  if (!m) return whole(name, name, "malformed threshold name")
  const [, written, tagText] = m as unknown as [string, string, string | undefined]
  const inName = /^([^.]+)\.p(\d+(?:\.\d+)?)$/.exec(written)
  const metricName = inName ? inName[1]! : written
  if (!isKnown(metricName) && !isClusterMetric(metricName) && metricName !== ServerMetricName) return whole(name, metricName, `unknown metric (known: ${knownNames})`)
  if (inName && !ALLOWED[kindOf(metricName)].includes("Percentile")) return whole(name, written, `${metricName} has no percentiles, got`)
  const tags = tagsOf(metricName)
  const selector: Partial<Record<AnyTag, ReadonlyArray<string>>> = {}
  const groupBy: Array<AnyTag> = []
  if (tagText !== undefined) {
    for (const part of tagText.split(",")) {
      const kv = /^\s*([^:=\s]+)\s*[:=]\s*(.*?)\s*$/.exec(part)
      if (!kv) return whole(name, part.trim() || "{}", "expected tag:value, got")
      const [, tag, quotedValue] = kv as unknown as [string, string, string]
      // Prometheus quotes its values: `{verb="LIST"}`
      const value = /^"(.*)"$/.exec(quotedValue)?.[1] ?? quotedValue
      if (!tags.includes(tag as AnyTag)) return whole(name, tag, tags.length === 0 ? `${metricName} has no tags, got` : `unknown tag (known: ${tags.join(", ")})`)
      if (value === "") return whole(name, part.trim(), "empty tag value")
      const known = tag as AnyTag
      if (selector[known] || groupBy.includes(known)) return whole(name, tag, "tag given twice")
      if (value === "*") groupBy.push(known)
      else selector[known] = value.split("|").map((v) => v.trim().toLowerCase())
    }
  }
  const isList = Array.isArray(expressions)
  const list: ReadonlyArray<ExpressionSpec> = isList ? expressions : [expressions as ExpressionSpec]
  if (list.length === 0) return whole(name, name, "no expressions for")
  const conditions: Array<Condition> = []
  const problems: Array<ThresholdProblem> = []
  list.forEach((e, i) => {
    const text = typeof e === "string" ? e : e.threshold
    const at: ReadonlyArray<number | "threshold"> = [...(isList ? [i] : []), ...(typeof e === "string" ? [] : ["threshold" as const])]
    if (inName && !/^\s*(<=|>=|==|!=|<|>)/.test(text)) {
      problems.push({ at, error: new ThresholdParseError({ input: text, token: text.trim().split(/\s+/)[0] || "<end>", reason: `${written} names its aggregation: expected a comparator (<, <=, >, >=, ==, !=), got` }) })
      return
    }
    const c = parseCondition(inName ? `p(${inName[2]}) ${text}` : text, kindOf(metricName))
    if (Either.isLeft(c)) {
      problems.push({ at, error: c.left })
      return
    }
    const condition = inName ? { ...c.right, source: `${written} ${text.trim()}` } : c.right
    conditions.push(typeof e !== "string" && e.allowNoData === true ? { ...condition, allowNoData: true } : condition)
  })
  return problems.length > 0 ? { problems } : { threshold: { name, metric: metricName, selector, groupBy, conditions }, problems: [] }
}

/** Parse a scenario's `thresholds` map; the first error wins. */
export const parseThresholds = (
  spec: Readonly<Record<string, ExpressionSpec | ReadonlyArray<ExpressionSpec>>>
): Either.Either<ReadonlyArray<Threshold>, ThresholdParseError> => {
  const out: Array<Threshold> = []
  for (const [name, exprs] of Object.entries(spec)) {
    const t = parseThreshold(name, exprs)
    if (Either.isLeft(t)) return Either.left(t.left)
    out.push(t.right)
  }
  return Either.right(out)
}

// ---------------------------------------------------------------------------------------------
// SLO presets (kubernetes/community sig-scalability/slos; docs/measurement.md)
// ---------------------------------------------------------------------------------------------

const preset = (
  name: string,
  metric: KnownMetric,
  selector: Threshold["selector"],
  groupBy: ReadonlyArray<Tag>,
  expression: string
): Threshold => ({
  name,
  metric,
  selector,
  groupBy,
  conditions: [Either.getOrThrow(parseCondition(expression, KnownMetrics[metric]))]
})

const MUTATING = ["post", "put", "patch", "delete"]
const READS = ["get", "list"] // non-streaming: WATCH is excluded from the SLI

/** Official API-call and pod-startup SLOs, p99 judged per (resource, verb) / (resource, scope). */
export const SloPresets = {
  /** Mutating calls on single objects, per (resource, verb): p99 ≤ 1 s. */
  mutatingApiCalls: preset(
    "slo:mutating-api-calls",
    "latency",
    { metric: ["api_call"], operation: MUTATING, scope: ["resource"] },
    ["resource", "operation"],
    "p(99) <= 1s"
  ),
  /** GET/LIST of a single object (`scope=resource`), per resource: p99 ≤ 1 s. */
  readResource: preset("slo:read-resource", "latency", { metric: ["api_call"], operation: READS, scope: ["resource"] }, ["resource"], "p(99) <= 1s"),
  /** LIST in a namespace, per resource: p99 ≤ 30 s (the SLO since 2022-04-11). */
  readNamespace: preset("slo:read-namespace", "latency", { metric: ["api_call"], operation: READS, scope: ["namespace"] }, ["resource"], "p(99) <= 30s"),
  /** Legacy namespace-LIST threshold, 5 s (before 2022-04-11; CL2's SlowCount still uses it). */
  readNamespaceLegacy: preset(
    "slo:read-namespace-legacy",
    "latency",
    { metric: ["api_call"], operation: READS, scope: ["namespace"] },
    ["resource"],
    "p(99) <= 5s"
  ),
  /** LIST across the cluster, per resource: p99 ≤ 30 s. */
  readCluster: preset("slo:read-cluster", "latency", { metric: ["api_call"], operation: READS, scope: ["cluster"] }, ["resource"], "p(99) <= 30s"),
  /** Stateless pod startup (creation → all containers started, observed via watch): p99 ≤ 5 s. */
  podStartup: preset("slo:pod-startup", "latency", { metric: ["pod_startup"] }, [], "p(99) <= 5s")
} as const

/** Upstream's SLOs (docs/measurement.md); `legacyNamespaceList` swaps the 30 s namespace-LIST SLO for the old 5 s. */
export const sloThresholds = (options?: { readonly legacyNamespaceList?: boolean }): ReadonlyArray<Threshold> => [
  SloPresets.mutatingApiCalls,
  SloPresets.readResource,
  options?.legacyNamespaceList ? SloPresets.readNamespaceLegacy : SloPresets.readNamespace,
  SloPresets.readCluster,
  SloPresets.podStartup
]

const serverPreset = (name: string, scope: string, expression: string, allowNoData: boolean): Threshold => ({
  name,
  metric: ServerMetricName,
  selector: { scope: [scope] },
  groupBy: ["resource", "subresource", "verb"],
  conditions: [{ ...Either.getOrThrow(parseCondition(expression, "buckets")), ...(allowNoData ? { allowNoData: true } : {}) }]
})

/**
 * ClusterLoader2's API responsiveness on the server's own histograms (`APIResponsivenessPrometheus`,
 * api_responsiveness_prometheus.go `getSLOThreshold`): p99 per (resource, subresource, verb, scope) over the run,
 * 1 s for a single object (`scope=resource`: GET and every mutating call), 30 s for a LIST of a namespace or the
 * cluster; WATCH and the streaming subresources are not measured (./ServerLatency.ts). `legacyNamespaceList`: 5 s
 * for a namespace's LIST, the threshold before 2022-04-11 (CL2's slow-call count still uses it). `measured`: the
 * run has the server's figures, so a scope it made no call of passes; without them every row fails on no data.
 */
export const serverSloThresholds = (options?: { readonly legacyNamespaceList?: boolean; readonly measured?: boolean }): ReadonlyArray<Threshold> => {
  const measured = options?.measured === true
  return [
    serverPreset("server-slo:resource", "resource", "p(99) <= 1s", measured),
    options?.legacyNamespaceList
      ? serverPreset("server-slo:namespace-legacy", "namespace", "p(99) <= 5s", measured)
      : serverPreset("server-slo:namespace", "namespace", "p(99) <= 30s", measured),
    serverPreset("server-slo:cluster", "cluster", "p(99) <= 30s", measured)
  ]
}

// ---------------------------------------------------------------------------------------------
// Evaluation (pure)
// ---------------------------------------------------------------------------------------------

export interface ThresholdResult {
  readonly threshold: string
  readonly condition: string
  /** Tag values of the group judged (empty without `groupBy`). */
  readonly group: Readonly<Partial<Record<AnyTag, string>>>
  /** Observed value (ms for durations); undefined when there was no data. */
  readonly observed: number | undefined
  /** `ms` when `observed` is a duration (absent in v1 artifacts), `/s` for a cluster counter's rate per second. */
  readonly unit?: "ms" | "/s"
  /** Series that contributed. */
  readonly series: number
  readonly noData: boolean
  /** No data fails unless the expression says `allowNoData: true` (k6: a threshold must not pass silently). */
  readonly passed: boolean
}

/** A key's value for a tag; v1 artifacts and untagged series have no name or phase (""). */
export const tagValue = (key: MetricKey, tag: Tag): string => key[tag] ?? ""

/** Whether a series key is selected by `{tag: allowed values}` (lower-cased; a missing tag matches all). */
export const selectorMatches = (selector: Threshold["selector"], key: MetricKey): boolean =>
  Tags.every((tag) => {
    const allowed = selector[tag]
    return allowed === undefined || allowed.includes(tagValue(key, tag).toLowerCase())
  })

const matches = (t: Threshold, key: MetricKey): boolean => selectorMatches(t.selector, key)

const compare = (observed: number, c: Comparator, value: number): boolean => {
  switch (c) {
    case "<":
      return observed < value
    case "<=":
      return observed <= value
    case ">":
      return observed > value
    case ">=":
      return observed >= value
    case "==":
      return observed === value
    case "!=":
      return observed !== value
  }
}

/** A trend's aggregation of a histogram of µs, in ms (`count` as a number). */
const fromHistogram = (h: Histogram, a: Aggregation): number | undefined => {
  if (a._tag === "Count") return h.totalCount
  if (h.totalCount === 0) return undefined
  const ms = (us: number) => us / 1000
  switch (a._tag) {
    case "Percentile":
      return ms(h.getValueAtPercentile(a.percentile))
    case "Avg":
      return ms(h.mean)
    case "Min":
      return ms(h.getValueAtPercentile(0))
    case "Med":
      return ms(h.getValueAtPercentile(50))
    case "Max":
      return ms(h.maxValue)
    default:
      return undefined
  }
}

const observeSeries = (metric: KnownMetric, a: Aggregation, group: ReadonlyArray<SeriesSnapshot>): number | undefined => {
  const sum = (f: (s: SeriesSnapshot) => number) => group.reduce((acc, s) => acc + f(s), 0)
  switch (KnownMetrics[metric]) {
    case "counter":
      return metric === "dropped_iterations" ? sum((s) => s.dropped) : sum((s) => s.count)
    case "rate": {
      const errors = sum((s) => s.errors)
      if (a._tag === "Count") return errors
      const total = sum((s) => s.count)
      return total === 0 ? undefined : errors / total
    }
    case "trend":
      return fromHistogram(mergeHistograms(group.map((s) => (metric === "latency" ? s.latency : s.serviceTime))), a)
  }
}

const observeCluster = (metric: ClusterMetric, a: Aggregation, group: ReadonlyArray<ClusterSample>, durationMs: number): number | undefined => {
  if (ClusterMetrics[metric].kind === "trend") return fromHistogram(mergeHistograms(group.flatMap((s) => (s.histogram ? [s.histogram] : []))), a)
  if (group.length === 0) return undefined
  if (ClusterMetrics[metric].kind === "gauge") return Math.max(...group.map((s) => s.count))
  const count = group.reduce((n, s) => n + s.count, 0)
  if (a._tag === "Count") return count
  return durationMs > 0 ? count / (durationMs / 1000) : undefined
}

/** One phase's call, as a server threshold selects and groups it. */
interface ServerSample {
  readonly phase: string
  readonly call: ServerCallFigures
}

const serverTag = (s: ServerSample, tag: AnyTag): string => (tag === "phase" ? s.phase : tag === "verb" || tag === "resource" || tag === "subresource" || tag === "scope" ? s.call[tag] : "")

const serverSelected = (t: Threshold, s: ServerSample): boolean =>
  ServerTags.every((tag) => {
    const allowed = t.selector[tag]
    return allowed === undefined || allowed.includes(serverTag(s, tag).toLowerCase())
  })

/** The group's bucket counts pooled, then PromQL's `histogram_quantile` (./HistogramQuantile.ts); ms. */
const observeServer = (a: Aggregation, group: ReadonlyArray<ServerSample>): number | undefined => {
  const pooled = addBuckets(group.map((s) => s.call.buckets))
  const count = group.reduce((n, s) => n + s.call.count, 0)
  if (a._tag === "Count") return count
  if (pooled === undefined || count === 0) return undefined
  if (a._tag === "Avg") return (group.reduce((n, s) => n + s.call.sumSeconds, 0) / count) * 1000
  const q = a._tag === "Percentile" ? a.percentile / 100 : a._tag === "Med" ? 0.5 : undefined
  const v = q === undefined ? undefined : bucketQuantile(q, pooled)
  return v === undefined ? undefined : v.value * 1000
}

/** Members of one threshold's groups, by the values of its `groupBy` tags. */
const groupsOf = <M>(t: Threshold, selected: ReadonlyArray<M>, tagOf: (m: M, tag: AnyTag) => string) => {
  const groups = new Map<string, { tags: Partial<Record<AnyTag, string>>; members: Array<M> }>()
  for (const m of selected) {
    const tags: Partial<Record<AnyTag, string>> = {}
    for (const tag of t.groupBy) tags[tag] = tagOf(m, tag)
    const id = t.groupBy.map((tag) => tagOf(m, tag).toLowerCase()).join("\u0000")
    const g = groups.get(id) ?? { tags, members: [] }
    g.members.push(m)
    groups.set(id, g)
  }
  if (groups.size === 0) groups.set("", { tags: {}, members: [] })
  return [...groups.values()]
}

const clusterTag = (s: ClusterSample, tag: AnyTag): string => s.tags[tag as ClusterTag] ?? ""
const clusterSelected = (t: Threshold, s: ClusterSample): boolean =>
  s.metric === t.metric &&
  ClusterMetrics[s.metric].tags.every((tag: ClusterTag) => {
    const allowed = t.selector[tag]
    return allowed === undefined || allowed.includes(clusterTag(s, tag).toLowerCase())
  })

/**
 * Judge every threshold condition against whole-run (or windowed) series and, for the cluster's metrics, the
 * cluster run's figures; one result per group. A cluster metric without a cluster run has no data.
 */
export const evaluate = (
  thresholds: ReadonlyArray<Threshold>,
  series: ReadonlyArray<SeriesSnapshot>,
  cluster?: ClusterFigures,
  server?: ServerSideReport
): ReadonlyArray<ThresholdResult> => {
  const results: Array<ThresholdResult> = []
  const serverSamples: ReadonlyArray<ServerSample> = (server?.phases ?? []).flatMap((p) => p.calls.map((call) => ({ phase: p.phase, call })))
  for (const t of thresholds) {
    const metric = t.metric
    const judged = metric === ServerMetricName
      ? groupsOf(t, serverSamples.filter((s) => serverSelected(t, s)), serverTag).map((g) => ({
          tags: g.tags,
          size: g.members.length,
          observe: (a: Aggregation) => observeServer(a, g.members)
        }))
      : isClusterMetric(metric)
      ? groupsOf(t, (cluster?.samples ?? []).filter((s) => clusterSelected(t, s)), clusterTag).map((g) => ({
          tags: g.tags,
          size: g.members.length,
          observe: (a: Aggregation) => observeCluster(metric, a, g.members, cluster?.durationMs ?? 0)
        }))
      : groupsOf(t, series.filter((s) => matches(t, s.key)), (s, tag) => tagValue(s.key, tag as Tag)).map((g) => ({
          tags: g.tags,
          size: g.members.length,
          observe: (a: Aggregation) => observeSeries(metric, a, g.members)
        }))
    for (const g of judged) {
      for (const c of t.conditions) {
        const observed = g.observe(c.aggregation)
        results.push({
          threshold: t.name,
          condition: c.source,
          group: g.tags,
          observed,
          ...((kindOf(metric) === "trend" || kindOf(metric) === "buckets") && c.aggregation._tag !== "Count"
            ? { unit: "ms" as const }
            : kindOf(metric) === "throughput" && c.aggregation._tag === "Rate"
              ? { unit: "/s" as const }
              : {}),
          series: g.size,
          noData: observed === undefined,
          passed: observed === undefined ? c.allowNoData === true : compare(observed, c.comparator, c.value)
        })
      }
    }
  }
  return results
}

// ---------------------------------------------------------------------------------------------
// Exit codes
// ---------------------------------------------------------------------------------------------

/**
 * 0 pass, 1 run error, 2 invalid input (scenario, thresholds, config), 99 thresholds breached (k6), 130 / 143
 * stopped by SIGINT / SIGTERM (128 + the signal's number, as a shell reports it).
 */
export const ExitCode = { Pass: 0, RunError: 1, InvalidInput: 2, ThresholdsBreached: 99, Interrupted: 130, Terminated: 143 } as const
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode]

/** How a run ended, as its artifact says. */
export type RunEnd = "pass" | "thresholds-breached" | "run-error" | "interrupted" | "invalid-input"

/** The one map from how a run ended (and, if stopped, by which signal) to its exit code. */
export const exitCodeOf = (end: RunEnd, signal?: "SIGINT" | "SIGTERM"): ExitCode => {
  switch (end) {
    case "pass":
      return ExitCode.Pass
    case "thresholds-breached":
      return ExitCode.ThresholdsBreached
    case "invalid-input":
      return ExitCode.InvalidInput
    case "run-error":
      return ExitCode.RunError
    case "interrupted":
      return signal === "SIGTERM" ? ExitCode.Terminated : ExitCode.Interrupted
  }
}

/**
 * `clustersim compare`: the same scenario against two or more targets (or stored runs), series by series; with
 * `allowDifferent`, runs of different scenarios (a what-if), their differing fields listed (`ScenarioDiff.ts`); and
 * for cluster runs their cluster figures side by side (`ClusterComparison.ts`). Pure: artifacts in, a `Comparison`
 * out. The statistics and why they were chosen: `Statistics.ts`, docs/compare.md.
 */
import { keyString, type MetricKey } from "../loadgen/LatencyRecorder.js"
import { shownPercentile } from "../loadgen/ShownPercentile.js"
import { selectorMatches, type Threshold } from "../loadgen/Thresholds.js"
import type { ArtifactSeries, RunArtifact } from "../loadgen/Artifact.js"
import { type ClusterPairComparison, compareClusters } from "./ClusterComparison.js"
import { empiricalOf } from "./PooledHistogram.js"
import { compareServerSide, type ServerPairComparison } from "./ServerComparison.js"
import { differenceText, effectiveScenario, type FieldDifference, scenarioDifferences } from "./ScenarioDiff.js"
import { type Empirical, expInterval, histogramQuantileRatio, type Interval, pairedMeanInterval, welchInterval } from "./Statistics.js"

export const ComparisonFormat = "clustersim/compare-v1"

/** One target (or one set of stored runs) with its rounds, in the order they ran. */
export interface Side {
  readonly label: string
  readonly rounds: ReadonlyArray<RunArtifact>
}

export const Quantiles = ["p50", "p90", "p99"] as const
export type Quantile = (typeof Quantiles)[number]
const quantileValue: Record<Quantile, number> = { p50: 0.5, p90: 0.9, p99: 0.99 }

export interface CompareOptions {
  /** Confidence level of the intervals; default 0.99 (docs/compare.md: why not 0.95). */
  readonly level?: number
  /** Only series matching these tags; default: all but `phase:setup`. */
  readonly select?: Threshold["selector"]
  /** Rounds of the sides ran interleaved (round i of each side back to back): pair them. */
  readonly paired?: boolean
  /** Compare sides that ran different scenarios (a what-if: `--set`, another file); the fields that differ are listed. */
  readonly allowDifferent?: boolean
}

export interface SeriesSide {
  readonly rounds: number
  readonly count: number
  readonly errors: number
  readonly connectionErrors: number
  readonly dropped: number
  readonly errorRate: number
  /** Completed operations per second while the series' action ran (mean over rounds; `activeSeconds`). */
  readonly throughput: number
  /** Pooled over rounds, ms. */
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
}

export interface QuantileRatio extends Interval {
  readonly quantile: Quantile
  /** The interval excludes 1. */
  readonly significant: boolean
}

export type Method = "rounds-paired" | "rounds-welch" | "requests" | "none"

export interface SeriesComparison {
  readonly key: MetricKey
  readonly label: string
  readonly baseline: SeriesSide
  readonly other: SeriesSide
  readonly method: Method
  readonly ratios: ReadonlyArray<QuantileRatio>
  readonly verdict: string
}

export interface PairComparison {
  readonly baseline: string
  readonly other: string
  readonly series: ReadonlyArray<SeriesComparison>
  /** Series labels seen on one side only. */
  readonly onlyBaseline: ReadonlyArray<string>
  readonly onlyOther: ReadonlyArray<string>
  /** The scenario fields that differ (`--allow-different`); absent when both ran the same scenario. */
  readonly differences?: ReadonlyArray<FieldDifference>
  /** Cluster results side by side, when either side simulated or drove a cluster (./ClusterComparison.ts). */
  readonly cluster?: ClusterPairComparison
  /** The targets' own latency figures side by side, when either side's runs read them (./ServerComparison.ts). */
  readonly server?: ServerPairComparison
}

export interface SideInfo {
  readonly label: string
  readonly target: string
  readonly rounds: number
  /** One line per saturated round: the generator, not the target, may have set the figures. */
  readonly saturated: ReadonlyArray<string>
  readonly failedRounds: number
  /** The scenario's name and file, and its `--set` overrides (absent: none). */
  readonly scenario?: string
  readonly sets?: ReadonlyArray<string>
}

export interface Comparison {
  readonly format: typeof ComparisonFormat
  /** The baseline's scenario; with `differentScenarios` each side's is in `sides` and the pairs list the differences. */
  readonly scenario: { readonly name: string; readonly sha256: string }
  readonly differentScenarios?: boolean
  readonly level: number
  readonly sides: ReadonlyArray<SideInfo>
  readonly pairs: ReadonlyArray<PairComparison>
}

export type CompareResult = { readonly _tag: "Compared"; readonly comparison: Comparison } | { readonly _tag: "Refused"; readonly reason: string }

/** `api_call LIST configmaps namespace steady/list-a` */
export const keyLabel = (k: MetricKey): string => {
  const tags = [k.phase, k.name].filter((t) => t !== undefined && t !== "").join("/")
  return `${k.metric} ${k.operation} ${k.resource} ${k.scope}${tags === "" ? "" : ` ${tags}`}`
}

/** Two runs ran the same scenario: the same file and the same effective scenario (after `${VAR}` and `--set`). */
const sameScenario = (a: RunArtifact, b: RunArtifact): boolean =>
  a.scenario.sha256 === b.scenario.sha256 && scenarioDifferences(effectiveScenario(a), effectiveScenario(b)).length === 0

const scenarioText = (r: RunArtifact): string =>
  `"${r.scenario.name}" (${r.scenario.file}, sha256 ${r.scenario.sha256.slice(0, 12)}…${r.scenario.sets?.length ? `, ${r.scenario.sets.map((x) => `--set ${x}`).join(" ")}` : ""})`

/** At most `MaxListed` differing fields in a refusal; compare.json lists every one when allowed. */
const MaxListed = 10

const differencesText = (a: RunArtifact, b: RunArtifact): string => {
  const d = scenarioDifferences(effectiveScenario(a), effectiveScenario(b))
  if (d.length === 0) return "the files differ only where the scenario does not (comments, layout)"
  const listed = d.slice(0, MaxListed).map(differenceText).join("; ")
  return `differing fields: ${listed}${d.length > MaxListed ? `; … and ${d.length - MaxListed} more` : ""}`
}

/** Why these sides cannot be compared, if they cannot. */
export const refusal = (sides: ReadonlyArray<Side>, allowDifferent = false): string | undefined => {
  if (sides.length < 2) return `compare needs at least two sides, got ${sides.length}`
  for (const s of sides) if (s.rounds.length === 0) return `side ${s.label} has no runs`
  // a side's rounds are pooled: they must be runs of one scenario, what-if or not
  for (const s of sides)
    for (const [i, r] of s.rounds.entries())
      if (!sameScenario(s.rounds[0]!, r))
        return `side ${s.label} mixes scenarios: round 1 ran ${scenarioText(s.rounds[0]!)}, round ${i + 1} ran ${scenarioText(r)}; ${differencesText(s.rounds[0]!, r)}`
  if (allowDifferent) return undefined
  const first = sides[0]!.rounds[0]!
  for (const s of sides.slice(1)) {
    const r = s.rounds[0]!
    if (!sameScenario(first, r))
      return (
        `runs of different scenarios: ${sides[0]!.label} ran ${scenarioText(first)}, ${s.label} ran ${scenarioText(r)}; ${differencesText(first, r)}; ` +
        `a comparison of unlike workloads says nothing about the servers — to compare the scenarios themselves (a what-if), use clustersim compare --allow-different`
      )
  }
  return undefined
}

const defaultSelect = (k: MetricKey): boolean => k.phase !== "setup"

interface Rounds {
  readonly key: MetricKey
  /** Per round: the series, or undefined when that round did not record it. */
  readonly perRound: ReadonlyArray<ArtifactSeries | undefined>
}

const collect = (side: Side, select: (k: MetricKey) => boolean): Map<string, Rounds> => {
  const out = new Map<string, { key: MetricKey; perRound: Array<ArtifactSeries | undefined> }>()
  side.rounds.forEach((round, i) => {
    for (const s of round.series) {
      if (!select(s.key)) continue
      const id = keyString(s.key)
      const entry = out.get(id) ?? { key: s.key, perRound: Array.from({ length: side.rounds.length }, () => undefined) }
      entry.perRound[i] = s
      out.set(id, entry)
    }
  })
  return out
}

/**
 * How long a series was being driven in one run, s: its action's executor span when the artifact has it,
 * else the span of its tagged intervals, else the whole run. A rate over the whole run would understate a
 * series that ran in one phase of several (50/s for 8 s of a 13 s run is not 30/s).
 */
export const activeSeconds = (key: MetricKey, a: RunArtifact): number => {
  const executor = a.actions.find((x) => x.phase === key.phase && x.action === key.name)?.executor
  if (executor && executor.endedAtMs > executor.startedAtMs) return (executor.endedAtMs - executor.startedAtMs) / 1000
  const id = keyString(key)
  let start = Infinity
  let end = -Infinity
  for (const iv of a.intervals)
    if (keyString(iv.key) === id) {
      start = Math.min(start, iv.startMs)
      end = Math.max(end, iv.endMs)
    }
  return end > start ? (end - start) / 1000 : a.durationMs / 1000
}

const sideFigures = (r: Rounds, artifacts: ReadonlyArray<RunArtifact>): SeriesSide & { readonly empirical: Empirical } => {
  const present = r.perRound.filter((s): s is ArtifactSeries => s !== undefined)
  const sum = (f: (s: ArtifactSeries) => number) => present.reduce((a, s) => a + f(s), 0)
  const count = sum((s) => s.count)
  const errors = sum((s) => s.errors)
  const e = empiricalOf(present.map((s) => s.latencyHistogram))
  // the recorded max (the stored summaries'): a decoded histogram's max is its bucket's bound (../loadgen/ShownPercentile.ts)
  const max = present.reduce((m, s) => Math.max(m, s.latency.max), 0)
  const rates = r.perRound.map((s, i) => (s === undefined ? 0 : s.count / Math.max(0.001, activeSeconds(r.key, artifacts[i]!))))
  return {
    rounds: present.length,
    count,
    errors,
    connectionErrors: sum((s) => s.connectionErrors ?? 0),
    dropped: sum((s) => s.dropped),
    errorRate: count === 0 ? 0 : errors / count,
    throughput: rates.reduce((a, x) => a + x, 0) / Math.max(1, rates.length),
    p50: shownPercentile(e.quantile(0.5), max),
    p90: shownPercentile(e.quantile(0.9), max),
    p99: shownPercentile(e.quantile(0.99), max),
    max,
    empirical: e
  }
}

const logOf = (ms: number): number => Math.log(Math.max(ms, 0.001))
const perRoundQuantile = (s: ArtifactSeries | undefined, q: Quantile): number | undefined =>
  s === undefined || s.latency.count === 0 ? undefined : s.latency[q]

const ratioFor = (
  q: Quantile,
  a: Rounds,
  b: Rounds,
  ea: Empirical,
  eb: Empirical,
  o: Required<Pick<CompareOptions, "level" | "paired">>
): { readonly method: Method; readonly interval: Interval } | undefined => {
  if (ea.count === 0 || eb.count === 0) return undefined
  const va = a.perRound.map((s) => perRoundQuantile(s, q))
  const vb = b.perRound.map((s) => perRoundQuantile(s, q))
  const pairs = o.paired && va.length === vb.length ? va.flatMap((x, i) => (x !== undefined && vb[i] !== undefined ? [logOf(vb[i]!) - logOf(x)] : [])) : []
  if (pairs.length >= 2) return { method: "rounds-paired", interval: expInterval(pairedMeanInterval(pairs, o.level)) }
  const la = va.filter((x): x is number => x !== undefined).map(logOf)
  const lb = vb.filter((x): x is number => x !== undefined).map(logOf)
  if (la.length >= 2 && lb.length >= 2) return { method: "rounds-welch", interval: expInterval(welchInterval(la, lb, o.level)) }
  return { method: "requests", interval: histogramQuantileRatio(ea, eb, quantileValue[q], o.level) }
}

/** A ratio in a few digits: 1.83, 0.52, 12.4; far from 1 (an interval from two rounds) as 1.7e+15. */
export const formatRatio = (x: number): string =>
  !Number.isFinite(x) ? String(x) : x >= 1000 || (x > 0 && x < 0.01) ? x.toExponential(1) : x >= 10 ? x.toFixed(1) : x.toFixed(2)

/** `×1.83 [1.52–2.21]` */
export const formatRatioInterval = (r: Interval): string => `×${formatRatio(r.estimate)} [${formatRatio(r.low)}–${formatRatio(r.high)}]`

const ratioText = (r: QuantileRatio): string => `${r.quantile} ${formatRatioInterval(r)}`

/** "B slower, p99 ×1.8 [1.5–2.2]", "B faster, p50 ×0.52 [0.48–0.55]", or "no significant difference". */
export const verdictText = (other: string, ratios: ReadonlyArray<QuantileRatio>): string => {
  const slower = ratios.filter((r) => r.significant && r.low > 1)
  const faster = ratios.filter((r) => r.significant && r.high < 1)
  const parts: Array<string> = []
  if (slower.length > 0) parts.push(`${other} slower, ${slower.map(ratioText).join(", ")}`)
  if (faster.length > 0) parts.push(`${other} faster, ${faster.map(ratioText).join(", ")}`)
  return parts.length === 0 ? "no significant difference" : parts.join("; ")
}

const comparePair = (baseline: Side, other: Side, select: (k: MetricKey) => boolean, o: Required<Pick<CompareOptions, "level" | "paired">>): PairComparison => {
  const a = collect(baseline, select)
  const b = collect(other, select)
  const series: Array<SeriesComparison> = []
  for (const [id, ra] of a) {
    const rb = b.get(id)
    if (!rb) continue
    const fa = sideFigures(ra, baseline.rounds)
    const fb = sideFigures(rb, other.rounds)
    const ratios: Array<QuantileRatio> = []
    let method: Method = "none"
    // the verdict is one claim about three quantiles: Bonferroni keeps its false-alarm rate at 1 − level
    const perQuantile = { ...o, level: 1 - (1 - o.level) / Quantiles.length }
    for (const q of Quantiles) {
      const r = ratioFor(q, ra, rb, fa.empirical, fb.empirical, perQuantile)
      if (!r) continue
      method = r.method
      ratios.push({ quantile: q, ...r.interval, significant: r.interval.low > 1 || r.interval.high < 1 })
    }
    const { empirical: _a, ...baselineFigures } = fa
    const { empirical: _b, ...otherFigures } = fb
    series.push({
      key: ra.key,
      label: keyLabel(ra.key),
      baseline: baselineFigures,
      other: otherFigures,
      method,
      ratios,
      verdict: ratios.length === 0 ? "no latency samples on one side" : verdictText(other.label, ratios)
    })
  }
  series.sort((x, y) => x.label.localeCompare(y.label))
  const labels = (m: Map<string, Rounds>, not: Map<string, Rounds>) => [...m].filter(([id]) => !not.has(id)).map(([, r]) => keyLabel(r.key)).sort()
  const differences = sameScenario(baseline.rounds[0]!, other.rounds[0]!)
    ? undefined
    : scenarioDifferences(effectiveScenario(baseline.rounds[0]!), effectiveScenario(other.rounds[0]!))
  const cluster = compareClusters(baseline.rounds, other.rounds)
  const server = compareServerSide(baseline.rounds, other.rounds)
  return {
    baseline: baseline.label,
    other: other.label,
    series,
    onlyBaseline: labels(a, b),
    onlyOther: labels(b, a),
    ...(differences !== undefined ? { differences } : {}),
    ...(cluster !== undefined ? { cluster } : {}),
    ...(server !== undefined ? { server } : {})
  }
}

const sideInfo = (s: Side): SideInfo => {
  const first = s.rounds[0]!
  return {
    label: s.label,
    target: first.target.url ? `${first.target.kind} ${first.target.url}` : first.target.kind,
    rounds: s.rounds.length,
    saturated: s.rounds.flatMap((r, i) => (r.health?.saturated ? [`round ${i + 1}: ${r.health.reasons.join("; ")}`] : [])),
    failedRounds: s.rounds.filter((r) => r.outcome !== "pass").length,
    scenario: `${first.scenario.name} (${first.scenario.file})`,
    ...(first.scenario.sets?.length ? { sets: first.scenario.sets } : {})
  }
}

/** Compare every side against the first (the baseline). */
export const compareSides = (sides: ReadonlyArray<Side>, options: CompareOptions = {}): CompareResult => {
  const refused = refusal(sides, options.allowDifferent ?? false)
  if (refused !== undefined) return { _tag: "Refused", reason: refused }
  const o = { level: options.level ?? 0.99, paired: options.paired ?? false }
  const select = options.select === undefined ? defaultSelect : (k: MetricKey) => selectorMatches(options.select!, k)
  const [baseline, ...others] = sides
  const first = baseline!.rounds[0]!
  return {
    _tag: "Compared",
    comparison: {
      format: ComparisonFormat,
      scenario: { name: first.scenario.name, sha256: first.scenario.sha256 },
      ...(sides.some((x) => !sameScenario(first, x.rounds[0]!)) ? { differentScenarios: true as const } : {}),
      level: o.level,
      sides: sides.map(sideInfo),
      pairs: others.map((other) => comparePair(baseline!, other, select, o))
    }
  }
}

/**
 * One run from the artifacts of its execution segments (`run --segment i/n` on n machines or processes,
 * docs/distributed.md): histograms added bucket by bucket (./WorkerMerge.ts), counts summed, intervals aligned — every
 * segment's intervals count from the run's common start — and each segment's own figures kept as the spread.
 * Artifacts of different scenarios, seeds or segment plans are refused; a missing or failed segment is named, and the
 * merged run fails (its caller judges the outcome). Pure; tested in test/loadgen/SegmentMerge.test.ts.
 */
import type { RunArtifact, SegmentSpread } from "./Artifact.js"
import type { HealthReport } from "./GeneratorHealth.js"
import { combineHealth } from "./GeneratorHealth.js"
import { decodeHistogram, type IntervalSnapshot, mergeHistograms, type SeriesSnapshot, summarize } from "./LatencyRecorder.js"
import { mergeActions, mergeIntervals, mergeSeries } from "./WorkerMerge.js"
import { shownSummary } from "./ShownPercentile.js"
import { placeOf, samePlan, segmentText, sequenceText } from "./ExecutionSegment.js"

/** A stored series back into histograms. */
export const seriesOfArtifact = (a: RunArtifact): ReadonlyArray<SeriesSnapshot> =>
  a.series.map((s) => ({
    key: s.key,
    models: s.models,
    latency: decodeHistogram(s.latencyHistogram),
    serviceTime: decodeHistogram(s.serviceTimeHistogram),
    count: s.count,
    errors: s.errors,
    connectionErrors: s.connectionErrors ?? 0,
    dropped: s.dropped,
    outOfRange: s.outOfRange
  }))

/** What the segments ran together, for the caller to judge and write as one artifact. */
export interface MergedSegments {
  /** The first segment's artifact: the scenario, seed and target every segment shares. */
  readonly first: RunArtifact
  readonly count: number
  readonly startAtMs: number
  readonly series: ReadonlyArray<SeriesSnapshot>
  readonly intervals: ReadonlyArray<IntervalSnapshot>
  readonly intervalMs: number
  readonly actions: RunArtifact["actions"]
  readonly errors: RunArtifact["errors"]
  readonly health?: HealthReport
  readonly startedAt: string
  readonly endedAt: string
  readonly spread: ReadonlyArray<SegmentSpread>
  /** Missing or failed segments, each in one line; the merged run fails when there is any. */
  readonly failures: ReadonlyArray<string>
  /** The stop the caller asked for, when a segment ended on it: the merged run is interrupted (partial), not failed. */
  readonly interruptedBy?: StopSignal
}

/** Input that cannot be one run: said, nothing merged. */
export interface MergeRefusal {
  readonly refused: string
}

interface Named {
  readonly path: string
  readonly artifact: RunArtifact
}

/** The same file with the same `--set` values and variables: segments decode it with the same code, so equal JSON. */
const sameScenario = (a: RunArtifact, b: RunArtifact): boolean =>
  a.scenario.sha256 === b.scenario.sha256 && JSON.stringify(a.scenario.effective) === JSON.stringify(b.scenario.effective)

/** The first place two decoded scenarios differ, as a `--set` path names it (`phases[1].duration: 8s vs 5s`). */
const firstDifference = (a: unknown, b: unknown, path = ""): string | undefined => {
  if (JSON.stringify(a) === JSON.stringify(b)) return undefined
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`)
      if (d !== undefined) return d
    }
  } else if (isRecord(a) && isRecord(b)) {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], path === "" ? k : `${path}.${k}`)
      if (d !== undefined) return d
    }
  }
  const text = (v: unknown) => (v === undefined ? "unset" : typeof v === "string" ? v : JSON.stringify(v))
  return `${path || "the whole scenario"}: ${text(b)} vs ${text(a)}`
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v)

/** Why two segments' scenarios are not one: another file, or the same file made another by `--set` values or variables. */
const scenarioDifference = (a: RunArtifact, b: RunArtifact): string => {
  if (a.scenario.sha256 !== b.scenario.sha256) return `another scenario file (${b.scenario.name}, sha256 ${b.scenario.sha256.slice(0, 12)}… vs ${a.scenario.name}, ${a.scenario.sha256.slice(0, 12)}…)`
  const sets = (x: RunArtifact) => (x.scenario.sets ?? []).join(" ") || "none"
  const inputs = sets(a) !== sets(b) ? `other --set values (${sets(b)} vs ${sets(a)})` : "other values of its variables"
  const where = firstDifference(a.scenario.effective, b.scenario.effective)
  return `the same scenario file with ${inputs}${where !== undefined ? `; they differ at ${where}` : ""}`
}

/** A signal that stops a run and leaves its partial artifact (docs/scenarios.md). */
type StopSignal = NonNullable<RunArtifact["interruptedBy"]>

/**
 * Why a segment's figures do not make a whole run (undefined: it completed; breached thresholds are re-judged). A
 * segment stopped by `stoppedBy` — the stop whoever merges asked for (`run --segments` passing a Ctrl-C on) — ended as
 * asked: its part is partial, not failed. A segment stopped on its own (a signal nobody merging sent) failed.
 */
const failureOf = (a: RunArtifact, stoppedBy?: StopSignal): string | undefined =>
  a.outcome === "run-error"
    ? `segment ${segmentText(a.segment!)} failed: ${a.runError ?? "run error"}`
    : a.outcome === "interrupted" && (stoppedBy === undefined || a.interruptedBy !== stoppedBy)
      ? `segment ${segmentText(a.segment!)} was stopped (${a.interruptedBy ?? "signal"}) before its end`
      : undefined

/** Checks that the artifacts are segments of one run, each at most once. */
const refusal = (all: ReadonlyArray<Named>): string | undefined => {
  if (all.length === 0) return "no segment artifacts given"
  const plain = all.find((n) => n.artifact.segment === undefined)
  if (plain) return `${plain.path}: not a segment's artifact (run it with --segment i/n)`
  const [first, ...rest] = all
  const a = first!.artifact
  for (const { path, artifact: b } of rest) {
    if (!sameScenario(a, b)) return `${path}: another scenario than ${first!.path}: ${scenarioDifference(a, b)}`
    if (b.seed !== a.seed) return `${path}: seed ${b.seed}, but ${first!.path} has seed ${a.seed}`
    if (b.segment!.count !== a.segment!.count) return `${path}: a plan of ${b.segment!.count} segments, but ${first!.path} has ${a.segment!.count}`
    if (!samePlan(a.segment!, b.segment!)) return `${path}: a part of the sequence ${sequenceText(b.segment!)}, but ${first!.path} of ${sequenceText(a.segment!)}`
    // a segment that failed before the start (at the rendezvous) has none of its own to compare
    if (b.segment!.startAtMs !== a.segment!.startAtMs && failureOf(a) === undefined && failureOf(b) === undefined) {
      return `${path}: started at ${new Date(b.segment!.startAtMs).toISOString()}, but ${first!.path} at ${new Date(a.segment!.startAtMs).toISOString()}: segments of different runs`
    }
  }
  const seen = new Map<number, string>()
  for (const { path, artifact } of all) {
    const other = seen.get(artifact.segment!.index)
    if (other !== undefined) return `${path}: segment ${segmentText(artifact.segment!)} again (also ${other})`
    seen.set(artifact.segment!.index, path)
  }
  return undefined
}

const requestSeries = (series: ReadonlyArray<SeriesSnapshot>) => series.filter((s) => s.key.metric === "api_call")

const spreadOf = (a: RunArtifact): SegmentSpread => {
  const requests = requestSeries(seriesOfArtifact(a))
  const latency = summarize(mergeHistograms(requests.map((s) => s.latency)))
  return {
    ...placeOf(a.segment!),
    outcome: a.outcome,
    ...(a.runError !== undefined ? { runError: a.runError } : {}),
    requests: requests.reduce((n, s) => n + s.count, 0),
    errors: requests.reduce((n, s) => n + s.errors, 0),
    ...(latency.count > 0 ? { p50Ms: shownSummary(latency).p50, p99Ms: shownSummary(latency).p99 } : {}),
    startLagMs: a.segment!.startLagMs,
    ...(a.segment!.clockSkewMs !== undefined ? { clockSkewMs: a.segment!.clockSkewMs } : {}),
    ...(a.health ? { saturated: a.health.saturated } : {})
  }
}

/** `stoppedBy`: the stop the caller passed on to the segments, if it did (see `failureOf`). */
export const mergeSegments = (all: ReadonlyArray<Named>, stoppedBy?: StopSignal): MergedSegments | MergeRefusal => {
  const refused = refusal(all)
  if (refused !== undefined) return { refused }
  const sorted = [...all].sort((x, y) => x.artifact.segment!.index - y.artifact.segment!.index)
  const artifacts = sorted.map((n) => n.artifact)
  // the run's start is a segment's that got to it
  const first = artifacts.find((a) => failureOf(a, stoppedBy) === undefined) ?? artifacts[0]!
  const count = first.segment!.count
  const plan = placeOf(first.segment!)
  const present = new Set(artifacts.map((a) => a.segment!.index))
  const missing = Array.from({ length: count }, (_, index) => index).filter((i) => !present.has(i))
  const failures = [
    ...missing.map((index) => `segment ${segmentText({ ...plan, index })} is missing: no artifact of it was given`),
    ...artifacts.flatMap((a) => failureOf(a, stoppedBy) ?? [])
  ]
  const interrupted = stoppedBy !== undefined && artifacts.some((a) => a.outcome === "interrupted" && a.interruptedBy === stoppedBy)
  const messages = new Map<string, number>()
  for (const a of artifacts) for (const m of a.errors.messages) messages.set(m.message, (messages.get(m.message) ?? 0) + m.count)
  const healths = artifacts.flatMap((a) => (a.health ? [a.health] : []))
  return {
    first,
    count,
    startAtMs: first.segment!.startAtMs,
    series: mergeSeries(artifacts.map(seriesOfArtifact)),
    intervals: mergeIntervals(artifacts.map((a) => a.intervals)),
    intervalMs: first.intervalMs,
    actions: mergeActions(artifacts.map((a) => a.actions)),
    errors: {
      total: artifacts.reduce((n, a) => n + a.errors.total, 0),
      messages: [...messages].map(([message, n]) => ({ message, count: n })).sort((x, y) => y.count - x.count)
    },
    ...(healths.length > 0 ? { health: combineHealth(healths) } : {}),
    startedAt: artifacts.map((a) => a.startedAt).sort()[0]!,
    endedAt: artifacts.map((a) => a.endedAt).sort().at(-1)!,
    spread: [
      ...artifacts.map(spreadOf),
      ...missing.map((index): SegmentSpread => ({ index, count, ...(plan.sequence !== undefined ? { sequence: plan.sequence } : {}), outcome: "missing", requests: 0, errors: 0 }))
    ].sort((x, y) => x.index - y.index),
    failures,
    ...(interrupted ? { interruptedBy: stoppedBy } : {})
  }
}

/**
 * The run artifact: one self-contained JSON file per run (`run.json`) — scenario text and its sha256,
 * target identity, seed, environment, per-metric summaries with V2-base64 HDR histograms, interval
 * histograms over time, errors, generator health, threshold results. Written atomically (temp + rename).
 */
import { createHash } from "node:crypto"
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import * as os from "node:os"
import { dirname, join } from "node:path"
import { Either, ParseResult, Schema } from "effect"
import type { ExecutorReport } from "./Arrival.js"
import type { HealthReport } from "./GeneratorHealth.js"
import { jsonSyntaxPlace } from "./JsonSyntaxPlace.js"
import {
  encodeHistogram,
  type IntervalSnapshot,
  MetricKey,
  type LoadModel,
  type SeriesSnapshot,
  summarize,
  type Summary
} from "./LatencyRecorder.js"
import type { ServerSideReport } from "./ServerLatency.js"
import { ExitCode, type ThresholdResult } from "./Thresholds.js"

/**
 * v2 added the `name`/`phase` tags on series keys, `connectionErrors` on series and intervals, and the
 * `outcome:` checks among the threshold results; readers accept both (v1 fields are a subset).
 */
export const ArtifactFormat = "clustersim/run-v2"
export const ArtifactFormats: ReadonlyArray<string> = ["clustersim/run-v1", ArtifactFormat]

/** What one scenario action did; the shapes below are recorded as they are, so they live with the format. */
export interface ActionReport {
  readonly phase: string
  readonly action: string
  /** The scenario action's `type` (`compact`, `informers`, `constant-arrival-rate`, …). */
  readonly type: string
  /** Executor figures for load actions. */
  readonly executor?: ExecutorReport
  /** Failure steps, watchers, pagers: what happened, in counts. */
  readonly counts?: Readonly<Record<string, number>>
  readonly informers?: InformerReport
  /** After an `expire-tokens` step: this action's client's 401s, recovery times and lost requests. */
  readonly tokens?: TokenRecovery
  /** A `replay` action: the log read, the world seeded, and the replayed requests against the recorded ones. */
  readonly replay?: ReplayReport
}

/** Milliseconds. */
export interface LatencyFigures {
  readonly count: number
  readonly p50: number
  readonly p99: number
  readonly max: number
}

/** A line of a log the replay could not use, and why (src/replay/AuditLine.ts has the classes). */
export interface BadInputExample {
  readonly file: string
  readonly line: number
  readonly class: string
  readonly message: string
}

/** One response-code class that differed from the log: recorded 200, replayed 404 (docs/replay.md "Reading the report"). */
export interface CodeMismatch {
  readonly recorded: number | null
  /** The replayed code, or `connection error`. */
  readonly replayed: number | string
  readonly count: number
  readonly examples: ReadonlyArray<{ readonly verb: string; readonly uri: string; readonly file: string; readonly line: number; readonly message?: string }>
}

export interface ReplayGroup {
  readonly verb: string
  readonly resource: string
  readonly user: string
  readonly count: number
  readonly mismatched: number
  /** `stageTimestamp − requestReceivedTimestamp` in the log. */
  readonly recorded: LatencyFigures
  /** From the intended start to the answer's headers (a watch: its first response), on the target. */
  readonly replayed: LatencyFigures
}

/** What a `replay` action did (src/replay/Replay.ts). */
export interface ReplayReport {
  readonly logs: ReadonlyArray<{ readonly file: string; readonly lines: number; readonly events: number }>
  readonly speed: number
  readonly scale: number
  readonly rounds: number
  /** From the schedule's start to the last answer (seeding and reading the log before it apart), ms. */
  readonly durationMs: number
  readonly impersonate: boolean
  readonly namespacePrefix?: string
  readonly badInput: { readonly total: number; readonly byClass: Readonly<Record<string, number>>; readonly examples: ReadonlyArray<BadInputExample> }
  readonly selection: { readonly windowMs: number; readonly requestReceived: number; readonly duplicates: number; readonly lateBeyondWindow: number; readonly filteredOut: number }
  readonly requests: {
    readonly planned: number
    readonly sent: number
    readonly matched: number
    readonly mismatched: number
    readonly connectionErrors: number
    readonly dropped: number
    readonly synthesized: number
    readonly longRunning: number
  }
  readonly seeding: {
    readonly namespaces: number
    readonly objects: number
    readonly synthesized: number
    readonly failed: number
    readonly examples: ReadonlyArray<{ readonly key: string; readonly message: string }>
  }
  /** Per verb, resource and user; the busiest first. */
  readonly groups: ReadonlyArray<ReplayGroup>
  readonly mismatches: ReadonlyArray<CodeMismatch>
  /** Requests started per bucket of replay time: as the log has them (at `--speed`) and as replayed. */
  readonly throughput: { readonly bucketMs: number; readonly recorded: ReadonlyArray<number>; readonly replayed: ReadonlyArray<number> }
  /** Actual start − intended start, ms; `late` started more than 10 ms late, `lateOver5ms` more than 5 ms (issue 41's p99 goal). */
  readonly scheduling: LatencyFigures & { readonly late: number; readonly lateOver5ms?: number }
}

/** Replayed requests that failed: no answer, or another code than the log's. A run with any does not pass. */
export const replayFailures = (r: ReplayReport): number => r.requests.mismatched + r.requests.connectionErrors

/** The `informers` action's reflectors, summed. */
export interface InformerReport {
  readonly count: number
  readonly synced: number
  /** Summed over the reflectors. */
  readonly relists: number
  readonly expiredContinue: number
  readonly expired: { readonly watchHttp: number; readonly watchStream: number; readonly list: number }
  readonly rewatches: number
  readonly events: number
  readonly listFailures: number
  readonly triggers: Readonly<Record<string, number>>
  /** Syncs by a WatchList stream, and streams fallen back from to LIST + WATCH (docs/watchlist.md); absent when none. */
  readonly watchListSyncs?: number
  readonly watchListFallbacks?: number
  /** LISTs and watch opens sent, and those that failed (`ReflectorRequests`); absent when none failed. */
  readonly requests?: number
  readonly failedRequests?: number
}

/**
 * A reflector's own requests — its LISTs and watch opens — and those that failed: a LIST that failed, a watch that
 * did not open (docs/scenarios.md "Honest outcomes"). Recorded in an action's report only when some failed and an
 * `outcome:error-rate` row judged them, so a run whose watches all opened, or whose scenario judges errors itself,
 * keeps the artifact it had.
 */
export interface ReflectorRequests {
  readonly requests: number
  readonly failedRequests: number
}

/** `{ requests, failedRequests }` when any failed, else nothing. */
export const failedReflectorRequests = (requests: number, failedRequests: number): Partial<ReflectorRequests> =>
  failedRequests > 0 ? { requests, failedRequests } : {}

/**
 * The action as the artifact records it when no `outcome:error-rate` row judged its reflector requests (the
 * scenario judges errors itself): without them, so that such a run's artifact is what it was before they were counted.
 */
export const withoutReflectorRequests = (a: ActionReport): ActionReport => {
  if (a.informers?.failedRequests !== undefined) {
    const { requests: _r, failedRequests: _f, ...informers } = a.informers
    return { ...a, informers }
  }
  if (a.counts?.failedRequests !== undefined) {
    const { requests: _r, failedRequests: _f, ...counts } = a.counts
    return { ...a, counts }
  }
  return a
}

/** The reflector requests of a `watch` (its counts) or `informers` action, if any failed. */
export const reflectorRequestsOf = (a: ActionReport): ReflectorRequests | undefined => {
  const r = a.informers ?? a.counts
  return r?.failedRequests !== undefined && r.failedRequests > 0 ? { requests: r.requests ?? r.failedRequests, failedRequests: r.failedRequests } : undefined
}

/**
 * One client's figures since the last expiry; times in ms from the expiry. A client without a 401 since then was
 * not affected (an informer whose watch carried on): it has no recovery time.
 */
export interface TokenRecovery {
  /** 401 answers. */
  readonly unauthorized: number
  readonly firstUnauthorizedMs?: number
  /** The first success of a request sent after the expiry, once the client was refused; absent while it has not recovered. */
  readonly recoveredMs?: number
  /** Requests given up on a 401. */
  readonly lost: number
}

export interface TargetIdentity {
  readonly kind: "embedded" | "in-process" | "url" | "simulated-cluster"
  readonly url?: string
  /** `gitVersion` from `/version`, when reachable. */
  readonly version?: string
  readonly context?: string
}

export interface ArtifactSeries {
  readonly key: MetricKey
  readonly models: ReadonlyArray<LoadModel>
  readonly count: number
  readonly errors: number
  /** Requests that got no answer: counted in `count` and `errors`, absent from the histograms (v2). */
  readonly connectionErrors?: number
  readonly dropped: number
  readonly outOfRange: number
  /** Milliseconds. */
  readonly latency: Summary
  readonly serviceTime: Summary
  /** HdrHistogram V2 compressed base64, integer microseconds. */
  readonly latencyHistogram: string
  readonly serviceTimeHistogram: string
}

/**
 * The scenario a run ran: the file as read (`text`, `sha256`) and, since `--set` and `${VAR}` (docs/scenarios.md
 * "Overrides", "Variables"), what was decoded. The three optional fields are absent from older artifacts, whose
 * effective scenario is their `text` as YAML reads it (`effectiveScenario`).
 */
export interface ArtifactScenario {
  readonly name: string
  readonly description?: string
  readonly file: string
  readonly sha256: string
  readonly text: string
  /** The scenario as decoded: the file's YAML value after `${VAR}` substitution and the `--set` overrides. */
  readonly effective?: unknown
  /** The `--set path=value` overrides, as given, in order. */
  readonly sets?: ReadonlyArray<string>
  /** The environment variables the file referred to (their values are in `effective`). */
  readonly variables?: ReadonlyArray<string>
}

/** What makes a run's effective scenario besides its file. */
export interface ScenarioInputs {
  readonly effective: unknown
  readonly sets: ReadonlyArray<string>
  readonly variables: ReadonlyArray<string>
}

/** The artifact with its scenario's inputs recorded: one step after assembly, whichever path assembled it. */
export const withScenarioInputs = (a: RunArtifact, inputs: ScenarioInputs): RunArtifact => ({
  ...a,
  scenario: {
    ...a.scenario,
    effective: inputs.effective,
    ...(inputs.sets.length > 0 ? { sets: inputs.sets } : {}),
    ...(inputs.variables.length > 0 ? { variables: inputs.variables } : {})
  }
})

export interface RunArtifact {
  readonly format: typeof ArtifactFormat | "clustersim/run-v1"
  readonly scenario: ArtifactScenario
  readonly target: TargetIdentity
  readonly seed: number
  readonly environment: {
    readonly node: string
    readonly platform: string
    readonly arch: string
    readonly cpus: number
    readonly cpuModel: string
    readonly totalMemoryBytes: number
  }
  readonly startedAt: string
  readonly endedAt: string
  readonly durationMs: number
  /** Interrupted (Ctrl-C) or failed before the end: the figures cover what ran. */
  readonly partial: boolean
  readonly outcome: "pass" | "thresholds-breached" | "run-error" | "interrupted"
  readonly exitCode: number
  readonly runError?: string
  /** The signal that stopped the run (`outcome: interrupted`). */
  readonly interruptedBy?: "SIGINT" | "SIGTERM"
  readonly series: ReadonlyArray<ArtifactSeries>
  readonly intervalMs: number
  readonly intervals: ReadonlyArray<IntervalSnapshot>
  readonly errors: { readonly total: number; readonly messages: ReadonlyArray<{ readonly message: string; readonly count: number }> }
  readonly actions: ReadonlyArray<ActionReport>
  /** Summed over every informer action. */
  readonly relists: number
  readonly thresholds: ReadonlyArray<ThresholdResult>
  readonly health?: HealthReport
  /** The cluster result (`ClusterResult` in simulator/cluster/ClusterResult.ts) of a scenario with a `cluster` section. */
  readonly cluster?: Readonly<Record<string, unknown>>
  /** Results of the `scheduler:` / `eviction:` sections. */
  readonly sections?: Readonly<Record<string, unknown>>
  /** A real target's own latency figures per phase, or why there are none (./ServerLatency.ts; docs/metrics.md). */
  readonly server?: ServerSideReport
  /** A segment's artifact (`run --segment i/n`): which share of the run it is, and the run's common start. */
  readonly segment?: SegmentPlace
  /** A merged run (`clustersim merge`): each segment's own figures, so one slow generator shows. */
  readonly segments?: ReadonlyArray<SegmentSpread>
}

/**
 * The process's exit code for its artifact. A segment's own thresholds are not the run's — they are judged once on
 * the merged figures (`clustersim merge`, docs/distributed.md) — so a segment that only breached them exits 0: a
 * Job's pod exiting 99 would fail the Job, and with `backoffLimit: 0` the Job controller would stop the other
 * segments. Its run.json still says `thresholds-breached`; its summary and reports say the thresholds are judged at merge.
 */
export const processExitCode = (artifact: RunArtifact): number =>
  artifact.segment !== undefined && artifact.exitCode === ExitCode.ThresholdsBreached ? ExitCode.Pass : artifact.exitCode

/** Where a segment's artifact belongs (docs/distributed.md). `index` is 0-based; people read `index + 1` of `count`. */
export interface SegmentPlace {
  readonly index: number
  readonly count: number
  /** k6's segment sequence (`0,1/4,3/4,1`) when the parts are not equal (./ExecutionSegment.ts). */
  readonly sequence?: string
  /** The instant every segment's measured phases began (epoch ms): the origin of its intervals. */
  readonly startAtMs: number
  /** How late this segment's phases began after `startAtMs`. */
  readonly startLagMs: number
  /** This process's clock minus the target's, estimated from its `Date` headers, when measured. */
  readonly clockSkewMs?: number
}

/** One segment's share of a merged run. */
export interface SegmentSpread {
  readonly index: number
  readonly count: number
  readonly sequence?: string
  readonly outcome: RunArtifact["outcome"] | "missing"
  readonly runError?: string
  readonly requests: number
  readonly errors: number
  /** Over every request series of the segment. */
  readonly p50Ms?: number
  readonly p99Ms?: number
  readonly startLagMs?: number
  readonly clockSkewMs?: number
  readonly saturated?: boolean
}

export const sha256 = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex")

export const environment = (): RunArtifact["environment"] => ({
  node: process.version,
  platform: process.platform,
  arch: process.arch,
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? "unknown",
  totalMemoryBytes: os.totalmem()
})

export const artifactSeries = (s: SeriesSnapshot): ArtifactSeries => ({
  key: s.key,
  models: s.models,
  count: s.count,
  errors: s.errors,
  connectionErrors: s.connectionErrors,
  dropped: s.dropped,
  outOfRange: s.outOfRange,
  latency: summarize(s.latency),
  serviceTime: summarize(s.serviceTime),
  latencyHistogram: encodeHistogram(s.latency),
  serviceTimeHistogram: encodeHistogram(s.serviceTime)
})

/** Where runs and comparisons go by default: ignored by git, apart from the sources of `reports/`. */
export const outputRoot = "runs"

const stamp = (at: Date) => at.toISOString().replace(/\.\d+Z$/, "Z").replace(/:/g, "-")

/** `runs/2026-11-25T22-30-00Z-quickstart` */
export const defaultOutDir = (name: string, at: Date, root = outputRoot): string => join(root, `${stamp(at)}-${name}`)

/** `runs/compare/2026-11-25T22-30-00Z`: a comparison's rounds, compare.json and compare.html. */
export const defaultCompareDir = (at: Date, root = outputRoot): string => join(root, "compare", stamp(at))

/** Write `run.json` in `dir` atomically: a reader sees the old file or the whole new one. */
export const writeArtifact = (dir: string, artifact: RunArtifact): string => {
  mkdirSync(dir, { recursive: true })
  const path = join(dir, "run.json")
  writeAtomically(path, JSON.stringify(artifact, null, 2) + "\n")
  return path
}

/** Writes a temporary file and renames it over `path`; on any error the temporary file is removed (a full disk leaves nothing). */
export const writeAtomically = (path: string, text: string): void => {
  mkdirSync(dirname(path), { recursive: true })
  const tmp = `${path}.${process.pid}.tmp`
  try {
    writeFileSync(tmp, text)
    renameSync(tmp, path)
  } catch (e) {
    try {
      rmSync(tmp, { force: true })
    } catch {
      // the write's own error is the one to report
    }
    throw e
  }
}

export class ArtifactReadError extends Error {}

const Count = Schema.Number
// identifiers keep a message short: `Expected ReadonlyArray<ArtifactSeries>, actual null`, not the whole shape
const SummarySchema = Schema.Struct({ count: Count, min: Count, mean: Count, p50: Count, p90: Count, p95: Count, p99: Count, p99_9: Count, max: Count }).annotations({ identifier: "Summary" })
const SeriesKey = MetricKey.annotations({ identifier: "MetricKey" })
const SeriesSchema = Schema.Struct({
  key: SeriesKey,
  models: Schema.Array(Schema.Literal("open", "closed")),
  count: Count,
  errors: Count,
  connectionErrors: Schema.optional(Count),
  dropped: Count,
  outOfRange: Count,
  latency: SummarySchema,
  serviceTime: SummarySchema,
  latencyHistogram: Schema.String,
  serviceTimeHistogram: Schema.String
}).annotations({ identifier: "ArtifactSeries" })
const IntervalSchema = Schema.Struct({
  key: SeriesKey,
  index: Count,
  startMs: Count,
  endMs: Count,
  latency: SummarySchema,
  serviceTime: SummarySchema,
  errors: Count,
  connectionErrors: Schema.optional(Count),
  dropped: Count,
  latencyHistogram: Schema.String,
  serviceTimeHistogram: Schema.String
}).annotations({ identifier: "IntervalSnapshot" })

/**
 * What a reader of a stored run.json may count on: every field the summary, reports, compare, merge and sweep read
 * without a check of their own, with its type; sections with shapes of their own (health, cluster, server, …) are
 * checked to be objects when present. The compiler keeps it no stricter than `RunArtifact` (`_artifactFits`): a
 * field added to the artifact is one the schema may leave out, never one it contradicts. Other fields are kept as read.
 */
const StoredArtifact = Schema.Struct({
  format: Schema.Literal("clustersim/run-v1", ArtifactFormat),
  scenario: Schema.Struct({
    name: Schema.String,
    description: Schema.optional(Schema.String),
    file: Schema.String,
    sha256: Schema.String,
    text: Schema.String,
    sets: Schema.optional(Schema.Array(Schema.String)),
    variables: Schema.optional(Schema.Array(Schema.String))
  }).annotations({ identifier: "ArtifactScenario" }),
  target: Schema.Struct({
    kind: Schema.Literal("embedded", "in-process", "url", "simulated-cluster"),
    url: Schema.optional(Schema.String),
    version: Schema.optional(Schema.String),
    context: Schema.optional(Schema.String)
  }).annotations({ identifier: "TargetIdentity" }),
  seed: Count,
  environment: Schema.Struct({ node: Schema.String, platform: Schema.String, arch: Schema.String, cpus: Count, cpuModel: Schema.String, totalMemoryBytes: Count }).annotations({ identifier: "Environment" }),
  startedAt: Schema.String,
  endedAt: Schema.String,
  durationMs: Count,
  partial: Schema.Boolean,
  outcome: Schema.Literal("pass", "thresholds-breached", "run-error", "interrupted"),
  exitCode: Count,
  runError: Schema.optional(Schema.String),
  interruptedBy: Schema.optional(Schema.Literal("SIGINT", "SIGTERM")),
  series: Schema.Array(SeriesSchema),
  intervalMs: Count,
  intervals: Schema.Array(IntervalSchema),
  errors: Schema.Struct({ total: Count, messages: Schema.Array(Schema.Struct({ message: Schema.String, count: Count })) }).annotations({ identifier: "Errors" }),
  actions: Schema.Array(Schema.Struct({ phase: Schema.String, action: Schema.String, type: Schema.String, counts: Schema.optional(Schema.Record({ key: Schema.String, value: Count })) }).annotations({ identifier: "ActionReport" })),
  relists: Count,
  thresholds: Schema.Array(
    Schema.Struct({
      threshold: Schema.String,
      condition: Schema.String,
      group: Schema.Record({ key: Schema.String, value: Schema.String }),
      observed: Schema.optional(Count),
      unit: Schema.optional(Schema.Literal("ms", "/s")),
      series: Count,
      noData: Schema.Boolean,
      passed: Schema.Boolean
    }).annotations({ identifier: "ThresholdResult" })
  ),
  health: Schema.optional(Schema.Object),
  cluster: Schema.optional(Schema.Object),
  sections: Schema.optional(Schema.Object),
  server: Schema.optional(Schema.Object),
  segment: Schema.optional(Schema.Struct({ index: Count, count: Count, sequence: Schema.optional(Schema.String), startAtMs: Count, startLagMs: Count, clockSkewMs: Schema.optional(Count) }).annotations({ identifier: "SegmentPlace" })),
  segments: Schema.optional(Schema.Array(Schema.Object))
})
/** Every artifact this program writes is one the schema accepts (a compile-time check; see `StoredArtifact`). */
const _artifactFits = (a: RunArtifact): Schema.Schema.Type<typeof StoredArtifact> => a
void _artifactFits

// the guard first: it builds nothing, so a valid artifact of thousands of intervals costs little more than its JSON.parse
const isStored = Schema.is(StoredArtifact)
const decodeStored = Schema.decodeUnknownEither(StoredArtifact, { errors: "first", onExcessProperty: "ignore" })

/** A parse issue's place as a field path: `series[0].latency.p50`. */
const fieldPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? String(p) : `.${String(p)}`)).join("")

/**
 * Read a stored `run.json`; a missing file, bad JSON, an unknown format or a field missing or of the wrong type is an
 * error naming the file and the field.
 */
export const readArtifact = (path: string): RunArtifact => {
  let text: string
  try {
    text = readFileSync(path, "utf8")
  } catch (e) {
    throw new ArtifactReadError(`${path}: cannot read: ${(e as Error).message}`)
  }
  return parseArtifact(path, text)
}

/** A run.json's text as the artifact, checked as `readArtifact` does (`source` names it in errors). */
const parseArtifact = (source: string, text: string): RunArtifact => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (e) {
    if (!(e instanceof SyntaxError)) throw e
    const at = jsonSyntaxPlace(text, e)
    throw new ArtifactReadError(`${source}:${at.line}:${at.column}: not a run.json artifact: ${at.message}`)
  }
  const format = typeof parsed === "object" && parsed !== null ? (parsed as { format?: unknown }).format : undefined
  if (typeof format !== "string" || !ArtifactFormats.includes(format)) {
    throw new ArtifactReadError(`${source}: not a run.json artifact: format is ${JSON.stringify(format)}, expected one of ${ArtifactFormats.join(", ")}`)
  }
  if (isStored(parsed)) return parsed as RunArtifact
  const decoded = decodeStored(parsed)
  if (Either.isLeft(decoded)) {
    const issue = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]!
    throw new ArtifactReadError(`${source}: not a run.json artifact: ${fieldPath(issue.path)}: ${issue.message}`)
  }
  // the value as read, not the decoded copy: fields the schema leaves out (health, cluster, …) are kept whole
  return parsed as RunArtifact
}

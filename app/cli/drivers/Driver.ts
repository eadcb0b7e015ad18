/**
 * What runs a scenario for `clustersim run` (../run.ts): a driver — load only against a target, a cluster in virtual
 * time, a cluster on the real clock against a target (and later replays or segments) — runs the scenario's parts and
 * hands back one `DriverResult`; the pipeline (../RunPipeline.ts) turns every driver's result into the artifact, the
 * same way. A driver never writes the artifact, judges the outcome or words a failure.
 */
import { type Cause, Data, Effect, Either, type Scope } from "effect"
import type { ApiClient } from "../../../src/client/ApiClient.js"
import type { TrafficCounter } from "../../../src/client/HttpTransport.js"
import type { SegmentPlace, TargetIdentity } from "../../../src/loadgen/Artifact.js"
import type { ExecutionSegment } from "../../../src/loadgen/ExecutionSegment.js"
import type { RendezvousPlan } from "../../../src/loadgen/Rendezvous.js"
import type { HealthReport } from "../../../src/loadgen/GeneratorHealth.js"
import type { ServerSideReport } from "../../../src/loadgen/ServerLatency.js"
import type { IntervalSnapshot, LatencyRecorder, SeriesSnapshot } from "../../../src/loadgen/LatencyRecorder.js"
import type { ThresholdResult } from "../../../src/loadgen/Thresholds.js"
import type { ClusterResult } from "../../../simulator/cluster/ClusterResult.js"
import type { RealTimeReport } from "../../../simulator/cluster/RealTimeCluster.js"
import type { Clock } from "../../scenario/PossibleSeries.js"
import { checkTargetSupports, type RunState } from "../../scenario/Run.js"
import type { Scenario } from "../../scenario/Scenario.js"
import type { StopSignal } from "../artifact.js"
import type { TargetFlag } from "../target.js"
import { Target, targetLayer } from "../TargetLayer.js"

/** A target URL's `host:port` (client-go's `host` label of its metrics); the URL itself when it is none. */
export const hostOf = (url: string | undefined): string => {
  if (url === undefined) return "in-process"
  try {
    return new URL(url).host
  } catch {
    return url
  }
}

/** Without a terminal, a progress line at least this often. */
export const NON_TTY_PROGRESS_MS = 5_000

export interface DriverInput {
  readonly file: string
  readonly scenario: Scenario
  readonly seed: number
  readonly target: TargetFlag
  /** Resolves when a signal asks the run to stop. */
  readonly interrupt: Effect.Effect<StopSignal>
  /** Progress lines and the driver's own notes (stderr). */
  readonly err: (s: string) => void
  /** Whether stderr is a terminal (a `\r`-rewritten progress line). */
  readonly tty: boolean
  /** `--workers`, when given. */
  readonly workers?: number
  /** What generator workers need to load the scenario as this process did (`--set` overrides, `${VAR}` values). */
  readonly workerInputs?: { readonly sets?: ReadonlyArray<string>; readonly env?: Readonly<Record<string, string>> }
  /** `--cleanup`: a real-time cluster deletes what it owns at its end. */
  readonly cleanup: boolean
  /** `--metrics-out FILE` (virtual time): the run's modelled metrics as OpenMetrics, scraped every `everyMs` of virtual time. */
  readonly metricsOut?: { readonly path: string; readonly everyMs: number }
  /** `--metrics-addr HOST:PORT` (real time, load only): the generator's metrics served on `/metrics` during the run. */
  readonly metricsAddr?: { readonly host: string; readonly port: number }
  /** `--segment`: this process runs only this share of the load (load-only driver). */
  readonly segment?: ExecutionSegment
  /** `--start-at`: the epoch ms the measured phases begin. */
  readonly startAtMs?: number
  /** `--rendezvous`: the start agreed with the other segments through the target. */
  readonly rendezvous?: Omit<RendezvousPlan, "segment" | "skewMs">
  /** Where the target's server-side figures come from (`--prometheus`, `--server-metrics-timeout`; ./ServerSide.ts). */
  readonly serverSide?: ServerSideFlags
}

export interface ServerSideFlags {
  /** An existing Prometheus to ask instead of the target's `/metrics`. */
  readonly prometheus?: string
  /** Bound on one reading; default `DefaultServerMetricsTimeoutMs`. */
  readonly timeoutMs?: number
}

/** Series recorded in other processes (generator workers), merged with the driver's own recorder's. */
export interface RemoteRecording {
  readonly series: ReadonlyArray<SeriesSnapshot>
  readonly intervals: ReadonlyArray<IntervalSnapshot>
}

/** The cluster part of a result: a simulated cluster's, or a real-time one's with what only real time measures. */
export type DriverCluster = ClusterResult & { readonly realTime?: RealTimeReport }

/** What a driver ran, for the pipeline to judge and write. */
export interface DriverResult {
  readonly target: TargetIdentity
  /** The clock the cluster ran on (which pod start-up series it has); default virtual. */
  readonly clock?: Clock
  /** The load's recorder: the pipeline flushes and reads it (none when the run failed before it existed). */
  readonly recorder: LatencyRecorder["Type"] | undefined
  readonly remote?: ReadonlyArray<RemoteRecording>
  readonly state: RunState
  readonly health?: HealthReport
  readonly cluster?: DriverCluster
  readonly sections?: Readonly<Record<string, unknown>>
  /** Checks of the driver's own parts besides the load's (a real-time cluster's failed agent requests). */
  readonly checks?: ReadonlyArray<ThresholdResult>
  /** The signal that stopped the run, when that is how it ended. */
  readonly stopped?: StopSignal
  /** Why the run failed, when it did (and was not stopped). */
  readonly error?: Cause.Cause<unknown>
  /** The target's own latency figures per phase, or why there are none (src/loadgen/ServerLatency.ts). */
  readonly server?: ServerSideReport
  /** A segment's place in its run, for the segment artifact. */
  readonly segment?: SegmentPlace
}

/** A scenario this driver cannot run with these flags: said before anything runs (exit 2), as the whole line. */
export class Refused extends Data.TaggedClass("Refused")<{ readonly line: string }> {}

export type DriverOutcome = Either.Either<DriverResult, Refused>

export interface Driver {
  readonly name: "load-only" | "virtual-time cluster" | "real-time cluster"
  /** Fails only when the run itself cannot go on (a target that cannot be started): a run error. */
  readonly run: (input: DriverInput) => Effect.Effect<DriverOutcome, unknown>
}

/**
 * A driver's run against the flags' target: the target's client and identity provided, and the checks that must
 * pass before the first phase (the scenario's failure steps need the target's admin hooks) done once, here.
 */
export const withTarget = <E>(
  input: DriverInput,
  traffic: TrafficCounter,
  run: (target: Target["Type"]) => Effect.Effect<DriverOutcome, E, ApiClient | Target | Scope.Scope>
): Effect.Effect<DriverOutcome, unknown> =>
  Effect.scoped(
    Effect.gen(function* () {
      const target = yield* Target
      // before the first phase: what the target must offer the scenario
      const supported = checkTargetSupports(input.scenario, target.admin !== undefined)
      if (Either.isLeft(supported)) return Either.left(new Refused({ line: `clustersim: ${input.file}: ${supported.left.message}\n` }))
      return yield* run(target)
    }).pipe(Effect.provide(targetLayer(input.target, input.scenario, input.seed, traffic)))
  )

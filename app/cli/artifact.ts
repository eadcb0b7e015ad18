/**
 * The run artifact assembled from what a run collected: thresholds and outcome checks judged, the outcome and its
 * exit code (k6's: 0 pass, 99 thresholds breached, 1 run error; 128 + the signal's number when stopped).
 */
import { Either } from "effect"
import { renderSummary } from "../../reports/summary.js"
import type { HealthReport } from "../../src/loadgen/GeneratorHealth.js"
import type { ClusterFigures } from "../../src/loadgen/ClusterMetrics.js"
import type { SeriesSnapshot } from "../../src/loadgen/LatencyRecorder.js"
import { evaluate, exitCodeOf, parseThresholds, serverSloThresholds, sloThresholds, type Threshold, type ThresholdResult } from "../../src/loadgen/Thresholds.js"
import type { ServerSideReport } from "../../src/loadgen/ServerLatency.js"
import { ArtifactFormat, artifactSeries, environment, readArtifact, sha256, type RunArtifact, type TargetIdentity, withoutReflectorRequests } from "../../src/loadgen/Artifact.js"
import { unreachableReason } from "../../src/loadgen/SeriesPattern.js"
import { defaultErrorThreshold, outcomeChecks } from "../scenario/Outcome.js"
import { type Clock, possibleSeries } from "../scenario/PossibleSeries.js"
import { SetupNamespacesErrors, type RunState } from "../scenario/Run.js"
import type { Scenario } from "../scenario/Scenario.js"

/** The signals that stop a run, and the exit code each gives (128 + the signal's number, the shell's convention). */
export type StopSignal = "SIGINT" | "SIGTERM"
export const signalExitCode: Readonly<Record<StopSignal, number>> = { SIGINT: exitCodeOf("interrupted", "SIGINT"), SIGTERM: exitCodeOf("interrupted", "SIGTERM") }

/**
 * The scenario's own thresholds, then its presets' rows its series can reach; the server presets' rows pass on no
 * data when the run has the server's figures (`server`: a scope the run never called), and fail without them.
 */
export const scenarioThresholds = (scenario: Scenario, clock: Clock = "virtual", server?: ServerSideReport): ReadonlyArray<Threshold> => {
  const parsed = parseThresholds(scenario.thresholds ?? {})
  // the scenario decoder already checked every expression
  const own = Either.isRight(parsed) ? parsed.right : []
  // a preset row for calls the scenario never makes would fail on no data: only the rows its series can reach
  const patterns = possibleSeries(scenario, clock)
  const presets = (scenario.presets ?? [])
    .flatMap((p) => (p === "slo" ? sloThresholds() : p === "slo-legacy" ? sloThresholds({ legacyNamespaceList: true }) : []))
    .filter((t) => unreachableReason(t, patterns) === undefined)
  // the server's figures: judged on the calls the target measured (a call the run never made has no row)
  // every phase read: a phase whose figures could not be read (too short for Prometheus' scrapes) may hold any call
  const measured = server !== undefined && server.absent === undefined && server.phases.every((p) => p.unread === undefined)
  const serverPresets = (scenario.presets ?? []).flatMap((p) =>
    p === "server-slo" ? serverSloThresholds({ measured }) : p === "server-slo-legacy" ? serverSloThresholds({ legacyNamespaceList: true, measured }) : []
  )
  return [...own, ...presets, ...serverPresets]
}

export interface Collected {
  readonly series: ReadonlyArray<SeriesSnapshot>
  readonly intervals: RunArtifact["intervals"]
  readonly intervalMs: number
}

export const assembleArtifact = (o: {
  readonly scenario: Scenario
  readonly file: string
  readonly text: string
  readonly target: TargetIdentity
  readonly seed: number
  readonly startedAt: Date
  readonly endedAt: Date
  readonly collected: Collected
  readonly state: RunState
  readonly health: HealthReport | undefined
  readonly outcome: "completed" | { readonly interrupted: StopSignal } | { readonly error: string }
  readonly cluster?: Record<string, unknown>
  /** The cluster's figures its thresholds judge (`lease_writes`, `apf_rejected`, …). */
  readonly clusterFigures?: ClusterFigures
  readonly sections?: Record<string, unknown>
  /** Checks of the run's own parts besides the load's (a real-time cluster's failed agent requests). */
  readonly checks?: ReadonlyArray<ThresholdResult>
  /** The clock a cluster ran on (which pod start-up series it has); default virtual. */
  readonly clock?: Clock
  /** A real target's own latency figures (or why there are none). */
  readonly server?: ServerSideReport
}): RunArtifact => {
  const thresholds = [
    ...(o.checks ?? []),
    ...evaluate([...scenarioThresholds(o.scenario, o.clock, o.server), ...defaultErrorThreshold(o.scenario)], o.collected.series, o.clusterFigures, o.server),
    ...outcomeChecks({
      scenario: o.scenario,
      series: o.collected.series,
      actions: o.state.actions,
      errorsTotal: o.state.progress.errors,
      setupNamespaceErrors: [...o.state.progress.errorMessages].reduce((n, [m, c]) => n + (m.startsWith(SetupNamespacesErrors) ? c : 0), 0),
      setupUnfinished: o.state.progress.setupUnfinished
    })
  ]
  const judged = new Set(thresholds.flatMap((t) => (t.threshold === "outcome:error-rate" && t.group.name !== undefined ? [`${t.group.phase}\u0000${t.group.name}`] : [])))
  const completed = o.outcome === "completed"
  const passed = thresholds.every((t) => t.passed)
  const interrupted = typeof o.outcome === "object" && "interrupted" in o.outcome ? o.outcome.interrupted : undefined
  const outcome: RunArtifact["outcome"] = interrupted ? "interrupted" : completed ? (passed ? "pass" : "thresholds-breached") : "run-error"
  const exitCode = exitCodeOf(outcome, interrupted)
  const relists = o.state.actions.reduce((n, a) => n + (a.informers?.relists ?? 0), 0)
  return {
    format: ArtifactFormat,
    scenario: {
      name: o.scenario.metadata.name,
      ...(o.scenario.metadata.description !== undefined ? { description: o.scenario.metadata.description } : {}),
      file: o.file,
      sha256: sha256(o.text),
      text: o.text
    },
    target: o.target,
    seed: o.seed,
    environment: environment(),
    startedAt: o.startedAt.toISOString(),
    endedAt: o.endedAt.toISOString(),
    durationMs: o.endedAt.getTime() - o.startedAt.getTime(),
    partial: !completed,
    outcome,
    exitCode,
    ...(typeof o.outcome === "object" && "error" in o.outcome ? { runError: o.outcome.error } : {}),
    ...(interrupted ? { interruptedBy: interrupted } : {}),
    series: o.collected.series.map(artifactSeries),
    intervalMs: o.collected.intervalMs,
    intervals: o.collected.intervals,
    errors: {
      total: o.state.progress.errors,
      messages: [...o.state.progress.errorMessages].map(([message, count]) => ({ message, count })).sort((a, b) => b.count - a.count)
    },
    // the reflector requests an outcome row judged are its evidence; unjudged, they are left out (Artifact.ts)
    actions: o.state.actions.map((a) => (judged.has(`${a.phase}\u0000${a.action}`) ? a : withoutReflectorRequests(a))),
    relists,
    thresholds,
    ...(o.health ? { health: o.health } : {}),
    ...(o.cluster ? { cluster: o.cluster } : {}),
    ...(o.sections ? { sections: o.sections } : {}),
    ...(o.server ? { server: o.server } : {})
  }
}

/** `clustersim report run.json`: render a stored artifact's summary again. */
export const renderArtifactFile = (path: string): string => renderSummary(readArtifact(path))

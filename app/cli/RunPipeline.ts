/**
 * The one run pipeline of `clustersim run` (./run.ts): a scenario goes to the driver its sections and the target flags
 * call for (./drivers/), and whatever the driver ran is made into the artifact here, once for every driver: the
 * recorder flushed and read (with generator workers' series merged), the cluster's pod start-up series added, the
 * outcome judged (stopped, failed — its cause in one line — or completed), the artifact assembled.
 */
import { Cause, Effect, Option } from "effect"
import { podStartupSeries } from "../../simulator/cluster/PodStartupSeries.js"
import { clusterFigures } from "../../simulator/cluster/ClusterFigures.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { mergeIntervals, mergeSeries } from "../../src/loadgen/WorkerMerge.js"
import type { Scenario } from "../scenario/Scenario.js"
import { isSimulated } from "../scenario/Simulated.js"
import { assembleArtifact, type Collected } from "./artifact.js"
import type { Driver, DriverResult } from "./drivers/Driver.js"
import { loadOnlyDriver } from "./drivers/LoadOnlyDriver.js"
import { realTimeDriver, runsInRealTime } from "./drivers/RealTimeDriver.js"
import { virtualTimeDriver } from "./drivers/VirtualTimeDriver.js"
import type { TargetFlag } from "./target.js"

/**
 * The driver of a scenario: simulated sections run in virtual time, or on the real clock beside a named target;
 * a scenario of load phases only runs them against the target.
 */
export const driverFor = (scenario: Scenario, target: TargetFlag): Driver =>
  isSimulated(scenario) ? (runsInRealTime(target) ? realTimeDriver : virtualTimeDriver) : loadOnlyDriver

/** A failure in one line: the error's message, else the cause's first line. */
export const causeText = (c: Cause.Cause<unknown>): string => {
  const f = Cause.failureOption(c)
  if (Option.isSome(f)) {
    const e = f.value
    return typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e)
  }
  return Cause.pretty(c).split("\n")[0] ?? "unknown error"
}

/** How the run ended, for the artifact: a stop wins, then a failure. */
export const outcomeOf = (r: Pick<DriverResult, "stopped" | "error">): Parameters<typeof assembleArtifact>[0]["outcome"] =>
  r.stopped !== undefined ? { interrupted: r.stopped } : r.error !== undefined ? { error: causeText(r.error) } : "completed"

/** The series and intervals of a run: its recorder's (flushed), its workers' merged in, the cluster's pod start-ups. */
export const collect = (r: DriverResult): Effect.Effect<Collected> =>
  Effect.gen(function* () {
    if (r.recorder !== undefined) yield* r.recorder.flush
    const own = r.recorder === undefined ? { series: [], intervals: [] } : { series: yield* r.recorder.snapshot, intervals: yield* r.recorder.intervals }
    const remote = r.remote ?? []
    const merged =
      remote.length === 0
        ? own
        : { series: mergeSeries([own.series, ...remote.map((w) => w.series)]), intervals: mergeIntervals([own.intervals, ...remote.map((w) => w.intervals)]) }
    return { series: [...merged.series, ...(r.cluster ? podStartupSeries(r.cluster) : [])], intervals: merged.intervals, intervalMs: 1000 }
  })

/** What the run command knows of a run besides its driver's result. */
export interface RunContext {
  readonly scenario: Scenario
  readonly file: string
  readonly text: string
  readonly seed: number
  readonly startedAt: Date
}

/** The artifact of a driver's run. */
export const artifactOf = (run: RunContext, r: DriverResult): Effect.Effect<RunArtifact> =>
  Effect.map(collect(r), (collected) => ({
    ...assembleArtifact({
      ...run,
      ...(r.clock !== undefined ? { clock: r.clock } : {}),
      target: r.target,
      endedAt: new Date(),
      health: r.health,
      collected,
      state: r.state,
      outcome: outcomeOf(r),
      ...(r.cluster ? { cluster: r.cluster, clusterFigures: clusterFigures(r.cluster) } : {}),
      ...(r.checks ? { checks: r.checks } : {}),
      ...(r.server ? { server: r.server } : {}),
      ...(r.sections ? { sections: r.sections } : {})
    }),
    ...(r.segment ? { segment: r.segment } : {})
  }))

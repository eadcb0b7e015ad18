/**
 * `clustersim run cluster.yaml --target URL | --kubeconfig FILE | --target embedded`: the
 * scenario's cluster section on the real clock against that target (simulator/cluster/RealTimeCluster.ts, docs/cluster.md
 * "Real time"), its load phases beside it against the same target. Without `--target` a cluster scenario runs in
 * virtual time (run.ts). The `scheduler:` section runs beside the agents (its replicas electing a leader on the target);
 * the eviction section exists only in virtual time (one node's usage model, no agent to host it): refused here, by name.
 */
import { Effect, Exit } from "effect"
import { dirname } from "node:path"
import { progressLine } from "../../reports/progress.js"
import { clusterFigures } from "../../simulator/cluster/ClusterFigures.js"
import { podStartupSeries } from "../../simulator/cluster/PodStartupSli.js"
import { DefaultSchedulerDurationMs } from "../../simulator/scheduler/SchedulerScenario.js"
import { unexpectedFailures } from "../../simulator/cluster/CountingClient.js"
import { realTimeProblems, runRealTimeCluster, type RealTimeClusterResult } from "../../simulator/cluster/RealTimeCluster.js"
import { simulatedLabel, simulatedLabelValue } from "../../src/api/WellKnown.js"
import type { TrafficCounter } from "../../src/client/HttpTransport.js"
import { LatencyRecorder, nowMillis } from "../../src/loadgen/LatencyRecorder.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { check } from "../scenario/Outcome.js"
import { makeRunState, runScenario } from "../scenario/Run.js"
import type { Scenario } from "../scenario/Scenario.js"
import { simulationOf } from "../scenario/Simulated.js"
import { assembleArtifact, type Collected, type StopSignal } from "./artifact.js"
import { Target, targetLayer, type TargetFlag } from "./target.js"

/**
 * Whether a scenario with simulated sections runs on the real clock: a server was named (a URL, a kubeconfig,
 * `--target embedded`). Without `--target`, and with `--target in-process` — the simulation's own server, in this
 * process — it runs in virtual time.
 */
export const runsInRealTime = (target: TargetFlag): boolean => target._tag === "url" || (target._tag === "embedded" && target.explicit === true)

export interface RealTimeRunInput {
  readonly file: string
  readonly text: string
  readonly scenario: Scenario
  readonly target: TargetFlag
  readonly seed: number
  readonly startedAt: Date
  readonly cleanup: boolean
  readonly interrupt: Effect.Effect<StopSignal>
  readonly err: (s: string) => void
  readonly finish: (a: RunArtifact) => { readonly exitCode: number }
}

const ownedSelector = `${simulatedLabel}=${simulatedLabelValue}`

/** The failed agent (and scheduler) requests, judged like thresholds: a run whose requests failed never passes. */
const agentChecks = (r: RealTimeClusterResult) => {
  const failed = Object.values(r.realTime.errorsByCode).reduce((a, b) => a + b, 0)
  const scheduler = r.realTime.schedulerErrorsByCode
  const schedulerFailed = scheduler === undefined ? 0 : unexpectedFailures(scheduler)
  return [
    check("outcome:node-agent-requests", "failed node-agent requests == 0", failed, failed === 0),
    ...(scheduler !== undefined ? [check("outcome:scheduler-requests", "failed scheduler requests (but 404, 409) == 0", schedulerFailed, schedulerFailed === 0)] : [])
  ]
}

export const runRealTimeScenario = (i: RealTimeRunInput): Effect.Effect<{ readonly exitCode: number }> =>
  Effect.gen(function* () {
    const { scenario, err } = i
    const simulation = simulationOf(scenario, i.seed, dirname(i.file))
    const spec = scenario.cluster
    if (spec === undefined || scenario.eviction !== undefined) {
      err(
        spec === undefined
          ? `clustersim: ${i.file}: with a target, the simulated sections run on the real clock beside a "cluster" section (the scheduler places pods on its nodes); this scenario has none: run it without --target\n`
          : `clustersim: ${i.file}: "eviction": the eviction section runs only in virtual time (run without --target); a target runs the "cluster" section and its "scheduler"\n`
      )
      return { exitCode: ExitCode.InvalidInput }
    }
    // the section's own length as in virtual time (app/scenario/Simulated.ts): its duration, else the scenario's
    const scheduler = scenario.scheduler && {
      ...scenario.scheduler,
      duration: scenario.scheduler.duration ?? (scenario.duration !== undefined ? simulation.durationMs : DefaultSchedulerDurationMs)
    }
    const traffic: TrafficCounter = { bytesIn: 0, bytesOut: 0 }
    let stoppedBy: StopSignal | undefined
    const program = Effect.gen(function* () {
      const target = yield* Target
      const problems = realTimeProblems(spec, simulation.faults, target.admin !== undefined, scheduler)
      if (problems.length > 0) {
        err(`clustersim: ${i.file}: ${problems.join("; ")}\n`)
        return { exitCode: ExitCode.InvalidInput }
      }
      const recorder = yield* LatencyRecorder.make()
      const state = makeRunState(yield* nowMillis)
      let workloadError: string | undefined
      // the load phases against the same target, beside the agents (as the load runner runs them)
      if (scenario.phases.length > 0) {
        yield* Effect.forkScoped(
          runScenario(scenario, { seed: i.seed, admin: target.admin, state }).pipe(
            Effect.provideService(LatencyRecorder, recorder),
            Effect.catchAllCause((c) => Effect.sync(() => void (workloadError = String(c))))
          )
        )
      }
      const exit = yield* Effect.exit(
        runRealTimeCluster({
          spec,
          faults: simulation.faults,
          seed: i.seed,
          durationMs: simulation.durationMs,
          ...(simulation.baseDir !== undefined ? { baseDir: simulation.baseDir } : {}),
          cleanup: i.cleanup,
          admin: target.admin,
          ...(scheduler ? { scheduler } : {}),
          stop: Effect.map(i.interrupt, (signal) => void (stoppedBy = signal)),
          onProgress: (p) =>
            err(
              progressLine({
                doneMs: p.elapsedMs,
                totalMs: simulation.durationMs,
                wallMs: p.elapsedMs,
                clock: "real",
                detail: `${p.registered} nodes registered · ${p.leaseWrites} lease writes · ${p.errors} failed requests`
              }) + "\n"
            )
        })
      )
      yield* recorder.flush
      const result = Exit.isSuccess(exit) ? exit.value : undefined
      // pod start-up as the SLI counts it, judged by thresholds like the load's (`latency{metric:pod_startup}`)
      const podStartup = result?.realTime.podStartup ? [podStartupSeries(result.realTime.podStartup)] : []
      const collected: Collected = { series: [...(yield* recorder.snapshot), ...podStartup], intervals: yield* recorder.intervals, intervalMs: 1000 }
      if (result !== undefined) reportLeftovers(result, i.cleanup, err)
      if (result?.realTime.driver.saturated) err(`clustersim: the driver was saturated (${result.realTime.driver.reasons.join("; ")}): its figures measure it, not the server\n`)
      const outcome =
        result === undefined
          ? { error: failureText(exit) }
          : stoppedBy
            ? { interrupted: stoppedBy }
            : workloadError !== undefined
              ? { error: workloadError }
              : ("completed" as const)
      return i.finish(
        assembleArtifact({
          scenario,
          clock: "real",
          file: i.file,
          text: i.text,
          target: target.identity,
          seed: i.seed,
          startedAt: i.startedAt,
          endedAt: new Date(),
          health: result?.realTime.driver,
          collected,
          state,
          outcome,
          ...(result ? { cluster: clusterOf(result), clusterFigures: clusterFigures(result), checks: agentChecks(result) } : {}),
          ...(result && Object.keys(result.sections).length > 0 ? { sections: result.sections } : {})
        })
      )
    })
    const exit = yield* Effect.exit(Effect.scoped(Effect.provide(program, targetLayer(i.target, scenario, i.seed, traffic))))
    if (Exit.isSuccess(exit)) return exit.value
    err(`clustersim: run error: ${failureText(exit)}\n`)
    return { exitCode: ExitCode.RunError }
  })

/** The artifact's `cluster`: the result without its sections, which the artifact carries as in virtual time. */
const clusterOf = ({ sections: _sections, ...cluster }: RealTimeClusterResult): Record<string, unknown> => cluster

const failureText = (exit: Exit.Exit<unknown, unknown>): string => {
  if (Exit.isSuccess(exit)) return ""
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  if (typeof failure === "string") return failure
  if (typeof failure === "object" && failure !== null && "message" in failure) return String((failure as { message: unknown }).message)
  return String(exit.cause).split("\n")[0] ?? "unknown error"
}

/** Says what the run left on the target (without `--cleanup`) and how to remove it. */
const reportLeftovers = (r: RealTimeClusterResult, cleanup: boolean, err: (s: string) => void): void => {
  const c = r.realTime.cleanup
  if (c.error !== undefined) err(`clustersim: could not ${cleanup ? "clean up" : "count what is left"}: ${c.error}\n`)
  const { nodes, leases, pods } = c.left
  if (nodes + leases + pods === 0) return
  err(
    `clustersim: left on the target: ${nodes} nodes, ${leases} node leases, ${pods} pods (label ${ownedSelector}); ` +
      `the next run adopts them, --cleanup deletes them at its end, or: kubectl delete nodes -l ${ownedSelector}\n`
  )
}

/**
 * A scenario with simulated sections (`cluster`, `scheduler`, `eviction`) without a named target: ONE simulation in
 * virtual time runs them all with the load phases as its workload (app/scenario/Simulated.ts). It runs in slices, so
 * a signal stops it within a slice and the artifact covers the virtual time reached.
 */
import { progressLine } from "../../../reports/progress.js"
import { type Cause, Deferred, Effect, Either, Exit, Option } from "effect"
import { dirname } from "node:path"
import { runSimulation, type SimulationResult, startMillis } from "../../../simulator/cluster/ClusterRun.js"
import { unexpectedFailures } from "../../../simulator/cluster/CountingClient.js"
import { DefaultSchedulerDurationMs, type SchedulerScenarioResult } from "../../../simulator/scheduler/SchedulerScenario.js"
import type { ThresholdResult } from "../../../src/loadgen/Thresholds.js"
import { check } from "../../scenario/Outcome.js"
import type { ClusterFault } from "../../../simulator/cluster/ClusterSpec.js"
import { clockText } from "../../../reports/format.js"
import { LatencyRecorder } from "../../../src/loadgen/LatencyRecorder.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { instrumentedClient, RestClientMetrics } from "../../../src/client/RestClientMetrics.js"
import { GeneratorMetrics, tappedRecorder } from "../../../src/loadgen/GeneratorMetrics.js"
import { OpenMetricsFile } from "../../../src/loadgen/OpenMetricsFile.js"
import { Registry } from "prom-client"
import { makeRunState, runScenario } from "../../scenario/Run.js"
import { simulationOf } from "../../scenario/Simulated.js"
import type { StopSignal } from "../artifact.js"
import { type Driver, NON_TTY_PROGRESS_MS } from "./Driver.js"

/** A Deferred's value once it is done. */
const polled = <A, E>(d: Deferred.Deferred<A, E>): Effect.Effect<Option.Option<A>> =>
  Effect.flatMap(Deferred.poll(d), Option.match({ onNone: () => Effect.succeedNone, onSome: (value) => Effect.option(value) }))

export const virtualTimeDriver: Driver = {
  name: "virtual-time cluster",
  run: (i) =>
    Effect.scoped(
      Effect.gen(function* () {
        const { scenario, seed, err, tty } = i
        const stop = yield* Deferred.make<StopSignal>()
        yield* Effect.forkScoped(Effect.flatMap(i.interrupt, (signal) => Deferred.succeed(stop, signal)))
        // the phases' recorder and state start where the simulation's virtual clock does (the workload starts at once)
        const recorder = yield* LatencyRecorder.make({ originMs: startMillis })
        const state = makeRunState(startMillis)
        const workloadFailed = yield* Deferred.make<Cause.Cause<unknown>>()
        // --metrics-out: one registry for the simulation's modelled metrics and the workload's client-side ones
        const registry = i.metricsOut === undefined ? undefined : new Registry()
        const file = i.metricsOut === undefined || registry === undefined ? undefined : yield* metricsFile(i.metricsOut.path, registry)
        const clientSide =
          registry === undefined ? undefined : { rest: new RestClientMetrics([registry], SimulatedHost), generator: new GeneratorMetrics([registry]) }
        const workload = runScenario(scenario, { seed, admin: undefined, state }).pipe(
          Effect.provideService(LatencyRecorder, clientSide === undefined ? recorder : tappedRecorder(recorder, clientSide.generator)),
          (run) => (clientSide === undefined ? run : Effect.updateService(run, ApiClient, (client) => instrumentedClient(client, clientSide.rest, () => performance.now()))),
          Effect.catchAllCause((c) => Deferred.succeed(workloadFailed, c)),
          Effect.asVoid
        )
        const simulation = simulationOf(scenario, seed, dirname(i.file))
        for (const line of pastTheEnd(simulation.faults, simulation.durationMs)) err(line)
        if (scenario.scheduler?.killLeaderAt !== undefined) {
          const sectionMs = scenario.scheduler.duration ?? (scenario.duration !== undefined ? simulation.durationMs : DefaultSchedulerDurationMs)
          if (scenario.scheduler.killLeaderAt >= sectionMs) {
            err(`clustersim: warning: scheduler.killLeaderAt (${clockText(scenario.scheduler.killLeaderAt)}) does not happen: the section ends at ${clockText(sectionMs)}\n`)
          }
        }
        let lastLineMs = 0
        const onProgress = (p: { readonly virtualMs: number; readonly wallMs: number }) => {
          const ph = state.progress
          const pace = p.wallMs > 0 ? `${(p.virtualMs / p.wallMs).toFixed(1)}× real time` : ""
          const detail = [pace, `${ph.phase} ${ph.ops} ops ${ph.errors} errors`].filter((x) => x !== "").join(" · ")
          const line = progressLine({ doneMs: p.virtualMs, totalMs: simulation.durationMs, wallMs: p.wallMs, clock: "virtual", detail })
          if (tty) err(`\r\x1b[2K${line}`)
          else if (p.wallMs - lastLineMs >= NON_TTY_PROGRESS_MS) {
            lastLineMs = p.wallMs
            err(`${line}\n`)
          }
        }
        const exit = yield* Effect.exit(
          runSimulation({
            ...simulation,
            workload,
            stopRequested: Deferred.isDone(stop),
            // a log gets a line every few seconds of wall time even when a virtual minute takes longer
            progressEveryWallMs: tty ? 500 : NON_TTY_PROGRESS_MS,
            onProgress,
            ...(registry !== undefined && file !== undefined && i.metricsOut !== undefined
              ? { metrics: { registers: [registry], everyMs: i.metricsOut.everyMs, scrape: (t: number) => Effect.orDie(Effect.tryPromise(() => file.scrape(t))) } }
              : {})
          })
        )
        const stoppedBy = Option.getOrUndefined(yield* polled(stop))
        const workloadError = Option.getOrUndefined(yield* polled(workloadFailed))
        if (Exit.isFailure(exit)) return Either.right({ target, recorder, state, error: exit.cause })
        const result = exit.value
        const ended = result.stopped && stoppedBy ? { stopped: stoppedBy } : workloadError !== undefined ? { error: workloadError } : {}
        const checks = simulatedChecks(result)
        return Either.right({
          target,
          recorder,
          state,
          ...(result.cluster ? { cluster: result.cluster } : {}),
          ...(Object.keys(result.sections).length > 0 ? { sections: result.sections } : {}),
          ...(checks.length > 0 ? { checks } : {}),
          ...ended
        })
      })
    )
}

const target = { kind: "simulated-cluster" } as const

/**
 * A warning line for each fault that falls at or after the run's end, so does not happen (docs/cluster.md "Faults"):
 * a run without `duration` is as long as its phases and sections, which may be shorter than the faults meant.
 */
export const pastTheEnd = (faults: ReadonlyArray<ClusterFault>, durationMs: number): ReadonlyArray<string> =>
  faults.flatMap((f, index) =>
    f.at >= durationMs ? [`clustersim: warning: faults[${index}] (${f.type} at ${clockText(f.at)}) does not happen: the run ends at ${clockText(durationMs)}\n`] : []
  )

const sum = (counts: Readonly<Record<string, number>>): number => Object.values(counts).reduce((a, b) => a + b, 0)

/**
 * The virtual-time side of the real clock's `agentChecks` (./RealTimeDriver.ts): a run whose node agents' requests
 * the server refused, whose section did not finish, or whose scheduler could not create its pods or bound none of
 * them never passes (docs/scenarios.md "Honest outcomes"). A row only when it fails: a run without failures has
 * none, so its artifact is the one it always was. Not counted: 429s given up (the server model's overload, judged by
 * `serverModel.givenUp` and the scenario's APF thresholds) and requests that found the server unreachable (a
 * partition or pause: the faults' measured effect, `failedAttempts`).
 */
export const simulatedChecks = (result: SimulationResult): ReadonlyArray<ThresholdResult> => {
  const out: Array<ThresholdResult> = []
  const { "429": _givenUp, ...refused } = result.nodeAgentErrorsByCode ?? {}
  const failed = sum(refused)
  if (failed > 0) out.push(check("outcome:node-agent-requests", "failed node-agent requests (but 429s given up) == 0", failed, false))
  // a run stopped by a signal cut its sections short: that is the interruption, not a failure of theirs
  if (result.stopped) return out
  for (const [name, section] of Object.entries(result.sections)) {
    const s = section as { readonly finished?: unknown; readonly error?: string }
    if (s.finished === false) out.push(check("outcome:section-finished", "the section finished", 0, false, { name }))
  }
  const scheduler = result.sections.scheduler as Partial<SchedulerScenarioResult> | undefined
  if (scheduler?.podsCreated !== undefined) {
    const createFailures = unexpectedFailures(scheduler.createErrorsByCode ?? {})
    if (createFailures > 0) out.push(check("outcome:scheduler-requests", "failed scheduler pod creates (but 409) == 0", createFailures, false))
    if (scheduler.podsCreated > 0 && scheduler.podsBound === 0) out.push(check("outcome:scheduler-binds", "pods bound > 0", 0, false))
  }
  return out
}

/** The `host` label of the workload's client-side metrics in a simulation (its server has no address). */
const SimulatedHost = "simulation"

/** The `--metrics-out` file, closed (written) when the run's scope closes, however the run ended. */
const metricsFile = (path: string, registry: Registry) =>
  Effect.acquireRelease(
    Effect.sync(() => OpenMetricsFile.open(path, registry)),
    (file) => Effect.sync(() => file.close())
  )

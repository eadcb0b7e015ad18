/**
 * A scenario with simulated sections (`cluster`, `scheduler`, `eviction`) without a named target: ONE simulation in
 * virtual time runs them all with the load phases as its workload (app/scenario/Simulated.ts). It runs in slices, so
 * a signal stops it within a slice and the artifact covers the virtual time reached.
 */
import { progressLine } from "../../../reports/progress.js"
import { type Cause, Deferred, Effect, Either, Exit, Option } from "effect"
import { dirname } from "node:path"
import { runSimulation, startMillis } from "../../../simulator/cluster/ClusterRun.js"
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
        return Either.right({
          target,
          recorder,
          state,
          ...(result.cluster ? { cluster: result.cluster } : {}),
          ...(Object.keys(result.sections).length > 0 ? { sections: result.sections } : {}),
          ...ended
        })
      })
    )
}

const target = { kind: "simulated-cluster" } as const

/** The `host` label of the workload's client-side metrics in a simulation (its server has no address). */
const SimulatedHost = "simulation"

/** The `--metrics-out` file, closed (written) when the run's scope closes, however the run ended. */
const metricsFile = (path: string, registry: Registry) =>
  Effect.acquireRelease(
    Effect.sync(() => OpenMetricsFile.open(path, registry)),
    (file) => Effect.sync(() => file.close())
  )

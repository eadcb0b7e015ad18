/**
 * A generator worker: its segment of a scenario's phases (./WorkerProtocol.ts) against an HTTP target, recorded in a
 * recorder of its own and sent back to the coordinator when the run ends or `stop` comes. Setup is the
 * coordinator's; the failure steps are the first segment's, which the coordinator runs.
 */
import { Deferred, Effect, Either, FiberId } from "effect"
import { readFileSync } from "node:fs"
import { ApiClient } from "../../src/client/ApiClient.js"
import type { TrafficCounter } from "../../src/client/HttpTransport.js"
import { GeneratorHealth } from "../../src/loadgen/GeneratorHealth.js"
import { encodeSeries, LatencyRecorder } from "../../src/loadgen/LatencyRecorder.js"
import { parseScenario } from "../scenario/load.js"
import { parseSetOverrides } from "../scenario/SetOverrides.js"
import { makeRunState, runScenario } from "../scenario/Run.js"
import { exitWithParent } from "./ChildEntry.js"
import type { FromWorker, ToWorker, WorkerConfig } from "./WorkerProtocol.js"

const send = (m: FromWorker): Promise<void> => new Promise((resolve) => process.send!(m, undefined, undefined, () => resolve()))

const runWorker = (config: WorkerConfig, start: Deferred.Deferred<void>, stop: Deferred.Deferred<void>) => {
  const traffic: TrafficCounter = { bytesIn: 0, bytesOut: 0 }
  return Effect.scoped(
    Effect.gen(function* () {
      // the coordinator checked these overrides already, and sends the values its `${VAR}` references had
      const sets = Either.getOrThrow(parseSetOverrides(config.sets ?? []))
      const loaded = parseScenario(readFileSync(config.file, "utf8"), config.file, undefined, { sets, env: config.env ?? {} })
      if (Either.isLeft(loaded)) return yield* Effect.fail(new Error(loaded.left.message))
      const health = yield* GeneratorHealth.make()
      const recorder = yield* LatencyRecorder.make({ originMs: config.originMs })
      yield* Effect.promise(() => send({ type: "ready" }))
      yield* Deferred.await(start)
      const state = makeRunState(config.originMs)
      const run = runScenario(loaded.right.scenario, { seed: config.seed, admin: undefined, state, segment: config.segment, parts: "phases", runTag: config.runTag })
      yield* Effect.raceFirst(Effect.asVoid(run), Deferred.await(stop)).pipe(Effect.provideService(LatencyRecorder, recorder))
      yield* recorder.flush
      yield* health.addBytesIn(traffic.bytesIn)
      yield* health.addBytesOut(traffic.bytesOut)
      return {
        series: (yield* recorder.snapshot).map(encodeSeries),
        intervals: yield* recorder.intervals,
        actions: state.actions,
        ops: state.progress.ops,
        errors: state.progress.errors,
        errorMessages: [...state.progress.errorMessages],
        health: yield* health.summary
      }
    }).pipe(Effect.provide(ApiClient.layerHttp({ ...config.client, traffic })))
  )
}

exitWithParent()
const start = Deferred.unsafeMake<void>(FiberId.none)
const stop = Deferred.unsafeMake<void>(FiberId.none)
process.on("message", (m: ToWorker) => {
  if (m.type === "config") {
    Effect.runPromise(runWorker(m.config, start, stop)).then(
      (result) => send({ type: "done", result }).then(() => process.exit(0)),
      (e) => send({ type: "failed", message: e instanceof Error ? e.message : String(e) }).then(() => process.exit(1))
    )
  } else if (m.type === "start") Effect.runSync(Deferred.succeed(start, undefined))
  else Effect.runSync(Deferred.succeed(stop, undefined))
})

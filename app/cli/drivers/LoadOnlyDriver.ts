/**
 * The load runner: the scenario's setup and phases against the target, in this process or shared with generator
 * worker processes (k6 execution segments, ../GeneratorWorkers.ts), with a live progress line.
 */
import { progressLine } from "../../../reports/progress.js"
import { Cause, Duration, Effect, Either, Exit, Option } from "effect"
import type { TrafficCounter } from "../../../src/client/HttpTransport.js"
import { combineHealth, GeneratorHealth } from "../../../src/loadgen/GeneratorHealth.js"
import { LatencyRecorder, nowMillis } from "../../../src/loadgen/LatencyRecorder.js"
import { decodeSeries } from "../../../src/loadgen/WorkerMerge.js"
import { makeRunState, ms, runScenario, runTagOf, type RunState } from "../../scenario/Run.js"
import type { StopSignal } from "../artifact.js"
import { defaultWorkers, machineCores, mergeActions, startWorkers } from "../GeneratorWorkers.js"
import { isLocalTarget, type TargetFlag } from "../target.js"
import type { WorkerResult } from "../WorkerProtocol.js"
import { type Driver, NON_TTY_PROGRESS_MS, Refused, withTarget } from "./Driver.js"

/** The live progress line (reports/progress.ts): `\r`-rewritten on a TTY at ~2/s, otherwise a line per phase and every 5 s. */
const progressReporter = (state: RunState, totalMs: number, tty: boolean, write: (s: string) => void) =>
  Effect.gen(function* () {
    let lastOps = 0
    let lastAt = yield* nowMillis
    let lastPhase = ""
    let lastLineAt = lastAt
    let lastLineOps = 0
    for (;;) {
      yield* Effect.sleep(Duration.millis(500))
      const p = state.progress
      const now = yield* nowMillis
      const elapsedMs = now - state.startedAtMs
      if (tty) {
        const rate = ((p.ops - lastOps) * 1000) / Math.max(1, now - lastAt)
        write(`\r\x1b[2K${progressLine({ doneMs: elapsedMs, totalMs, wallMs: elapsedMs, clock: "real", detail: `${p.phase} · ${rate.toFixed(0)} ops/s · ${p.errors} errors` })}`)
      } else if (p.phase !== lastPhase || now - lastLineAt >= NON_TTY_PROGRESS_MS) {
        // a log (CI, a pipe) gets a line per phase and one every few seconds: phase, rate since the last line, errors
        const rate = ((p.ops - lastLineOps) * 1000) / Math.max(1, now - lastLineAt)
        write(progressLine({ doneMs: elapsedMs, totalMs, wallMs: elapsedMs, clock: "real", detail: `phase ${p.phase} · ${rate.toFixed(0)} ops/s · ${p.ops} ops · ${p.errors} errors` }) + "\n")
        lastLineAt = now
        lastLineOps = p.ops
      }
      lastOps = p.ops
      lastAt = now
      lastPhase = p.phase
    }
  })

/** Targets whose server lives in this process: the run cannot be split into generator processes. */
const sharesThisProcess = (t: TargetFlag): boolean => t._tag === "in-process" || (t._tag === "embedded" && t.serverProcess !== "own")

/** The workers' action reports and error counts into the coordinator's (their series merge in the pipeline). */
const foldWorkers = (state: RunState, results: ReadonlyArray<WorkerResult>): void => {
  const merged = mergeActions([state.actions, ...results.map((r) => r.actions)])
  state.actions.splice(0, state.actions.length, ...merged)
  for (const r of results) {
    state.progress.ops += r.ops
    state.progress.errors += r.errors
    for (const [message, count] of r.errorMessages) state.progress.errorMessages.set(message, (state.progress.errorMessages.get(message) ?? 0) + count)
  }
}

/** The signal a stopped run failed with (the race against `interrupt` below). */
const stopSignalOf = (cause: Cause.Cause<unknown>): StopSignal | undefined => {
  const f = Option.getOrUndefined(Cause.failureOption(cause))
  return typeof f === "object" && f !== null && "interrupted" in f ? (f as { interrupted: StopSignal }).interrupted : undefined
}

export const loadOnlyDriver: Driver = {
  name: "load-only",
  run: (i) => {
    const traffic: TrafficCounter = { bytesIn: 0, bytesOut: 0 }
    return withTarget(i, traffic, (target) =>
      Effect.gen(function* () {
        const { scenario, seed } = i
        const workerCount = i.workers ?? scenario.generator?.workers ?? (sharesThisProcess(i.target) ? 1 : defaultWorkers(machineCores(), isLocalTarget(i.target)))
        if (workerCount > 1 && sharesThisProcess(i.target)) {
          return Either.left(
            new Refused({
              line: `clustersim: --workers ${workerCount}: generator workers need a target they reach over HTTP in their own processes (embedded or a URL), not ${i.target._tag}\n`
            })
          )
        }
        const health = yield* GeneratorHealth.make()
        const state = makeRunState(yield* nowMillis)
        const recorder = yield* LatencyRecorder.make({ originMs: state.startedAtMs })
        const runTag = runTagOf(seed, state.startedAtMs)
        const client = i.target._tag === "url" ? i.target.options : { baseUrl: target.identity.url ?? "" }
        // workers load while the coordinator runs the setup; their phases start together with its own
        const workers =
          workerCount > 1 ? yield* startWorkers({ count: workerCount, file: i.file, ...i.workerInputs, seed, runTag, client, originMs: state.startedAtMs }) : undefined
        yield* Effect.forkScoped(progressReporter(state, scenario.phases.reduce((n, p) => n + ms(p.duration, 0), 0), i.tty, i.err))
        const options = { seed, admin: target.admin, state, runTag, ...(target.credentials ? { credentials: target.credentials } : {}) }
        const phases = workers
          ? Effect.zipRight(
              Effect.zipRight(runScenario(scenario, { ...options, parts: "setup" }), workers.start),
              runScenario(scenario, { ...options, parts: "phases", segment: { index: 0, count: workerCount } })
            )
          : runScenario(scenario, options)
        const run = phases.pipe(Effect.provideService(LatencyRecorder, recorder))
        const exit = yield* Effect.exit(Effect.raceFirst(Effect.asVoid(run), Effect.flatMap(i.interrupt, (signal) => Effect.fail({ interrupted: signal }))))
        yield* health.addBytesIn(traffic.bytesIn)
        yield* health.addBytesOut(traffic.bytesOut)
        const ownHealth = yield* health.summary
        const got = workers === undefined ? Either.right([]) : yield* Effect.either(Effect.zipRight(Exit.isFailure(exit) ? workers.stop : Effect.void, workers.results))
        const results: ReadonlyArray<WorkerResult> = Either.getOrElse(got, () => [])
        if (results.length > 0) foldWorkers(state, results)
        const stopped = Exit.isFailure(exit) ? stopSignalOf(exit.cause) : undefined
        const error = Exit.isFailure(exit) ? exit.cause : Either.isLeft(got) ? Cause.fail(got.left) : undefined
        return Either.right({
          target: target.identity,
          recorder,
          remote: results.map((r) => ({ series: r.series.map(decodeSeries), intervals: r.intervals })),
          state,
          health: combineHealth([ownHealth, ...results.map((r) => r.health)]),
          ...(stopped !== undefined ? { stopped } : error !== undefined ? { error } : {})
        })
      })
    )
  }
}

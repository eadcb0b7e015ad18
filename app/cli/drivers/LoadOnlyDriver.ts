/**
 * The load runner: the scenario's setup and phases against the target, in this process or shared with generator
 * worker processes (k6 execution segments, ../GeneratorWorkers.ts), with a live progress line.
 */
import { progressLine } from "../../../reports/progress.js"
import { Cause, Duration, Effect, Either, Exit, Option } from "effect"
import type { TrafficCounter } from "../../../src/client/HttpTransport.js"
import { combineHealth, GeneratorHealth } from "../../../src/loadgen/GeneratorHealth.js"
import { encodeSeries, LatencyRecorder, nowMillis } from "../../../src/loadgen/LatencyRecorder.js"
import { decodeSeries, mergeActions } from "../../../src/loadgen/WorkerMerge.js"
import { makeRunState, ms, runScenario, runTagOf, type RunState, SetupDone } from "../../scenario/Run.js"
import type { StopSignal } from "../artifact.js"
import { defaultWorkers, machineCores, startWorkers } from "../GeneratorWorkers.js"
import { isLocalTarget, type TargetFlag } from "../target.js"
import type { WorkerResult } from "../WorkerProtocol.js"
import { placeOf, runsOnce, wholeRun } from "../../../src/loadgen/ExecutionSegment.js"
import { agreeOnStart, untilInstant } from "./CommonStart.js"
import { RawLatencies, tapRawLatencies } from "../../../src/loadgen/RawLatencies.js"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { type Driver, hostOf, NON_TTY_PROGRESS_MS, Refused, withTarget } from "./Driver.js"
import { serveLiveMetrics } from "../LiveMetrics.js"
import { serverSideReaderFor } from "./ServerSide.js"

/** The live progress line (reports/progress.ts): `\r`-rewritten on a TTY at ~2/s, otherwise a line per phase and every 5 s. */
const progressReporter = (state: RunState, plannedMs: number, tty: boolean, write: (s: string) => void) =>
  Effect.gen(function* () {
    let lastOps = 0
    let lastAt = yield* nowMillis
    let lastPhase = ""
    let lastLineAt = lastAt
    let lastLineOps = 0
    for (;;) {
      yield* Effect.sleep(Duration.millis(500))
      const p = state.progress
      for (const line of p.notices.splice(0)) write(`${tty ? "\r\x1b[2K" : ""}${line}\n`)
      const now = yield* nowMillis
      const elapsedMs = now - state.startedAtMs
      // a replay's phase lasts as long as its schedule: its end gives the line a total and an ETA
      const totalMs = p.expectedEndAtMs === undefined ? plannedMs : Math.max(plannedMs, p.expectedEndAtMs - state.startedAtMs)
      if (elapsedMs < 0 || p.phase === SetupDone) {
        // a segment before the run's common start (docs/distributed.md), or at it before its first phase began: no
        // progress of the load to show yet
        const line = elapsedMs < 0 ? `waiting for the common start, in ${Math.ceil(-elapsedMs / 1000)} s` : "starting the phases"
        if (tty) write(`\r\x1b[2K${line}`)
        else if (now - lastLineAt >= NON_TTY_PROGRESS_MS) {
          write(line + "\n")
          lastLineAt = now
        }
        continue
      }
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
        const segment = i.segment
        if (segment !== undefined && (i.workers ?? 1) > 1) {
          return Either.left(new Refused({ line: `clustersim: --workers ${i.workers} with --segment: a segment runs in one process; give each process its own segment\n` }))
        }
        const workerCount = segment !== undefined ? 1 : i.workers ?? scenario.generator?.workers ?? (sharesThisProcess(i.target) ? 1 : defaultWorkers(machineCores(), isLocalTarget(i.target)))
        if (workerCount > 1 && sharesThisProcess(i.target)) {
          return Either.left(
            new Refused({
              line: `clustersim: --workers ${workerCount}: generator workers need a target they reach over HTTP in their own processes (embedded or a URL), not ${i.target._tag}\n`
            })
          )
        }
        const health = yield* GeneratorHealth.make()
        const own = segment ?? wholeRun
        // --rendezvous: the first segment's setup, then the start agreed through the target (src/loadgen/Rendezvous.ts)
        let setupRun: { readonly state: RunState; readonly recorder: LatencyRecorder["Type"] } | undefined
        let startAtMs = i.startAtMs
        let clockSkewMs: number | undefined
        let agreedStartMs: number | undefined
        if (i.rendezvous !== undefined) {
          if (runsOnce(own)) {
            setupRun = { state: makeRunState(yield* nowMillis), recorder: yield* LatencyRecorder.make() }
            const setup = yield* Effect.exit(
              runScenario(scenario, { seed, admin: target.admin, state: setupRun.state, parts: "setup", ...(target.credentials ? { credentials: target.credentials } : {}) }).pipe(
                Effect.provideService(LatencyRecorder, setupRun.recorder)
              )
            )
            if (Exit.isFailure(setup)) {
              const place = { ...placeOf(own), startAtMs: 0, startLagMs: 0 }
              return Either.right({ target: target.identity, recorder: setupRun.recorder, state: setupRun.state, error: setup.cause, segment: place })
            }
          }
          const agreed = yield* agreeOnStart(i, own)
          if (Either.isLeft(agreed)) {
            const state = setupRun?.state ?? makeRunState(yield* nowMillis)
            // a segment artifact still, so that a merge names this segment's failure
            return Either.right({ target: target.identity, recorder: setupRun?.recorder, state, error: Cause.fail(agreed.left.error), segment: agreed.left.place })
          }
          agreedStartMs = agreed.right.agreedStartMs
          startAtMs = agreed.right.localStartAtMs
          clockSkewMs = agreed.right.clockSkewMs
        }
        // a common start (--start-at, --rendezvous) is every segment's origin: the run's tag and its intervals are the same in each
        const state: RunState = setupRun ? { ...setupRun.state, startedAtMs: startAtMs! } : makeRunState(startAtMs ?? (yield* nowMillis))
        const recorder = yield* LatencyRecorder.make({ originMs: state.startedAtMs })
        if (setupRun) for (const series of yield* setupRun.recorder.snapshot) yield* recorder.merge(encodeSeries(series))
        const runTag = runTagOf(seed, state.startedAtMs)
        const client = i.target._tag === "url" ? i.target.options : { baseUrl: target.identity.url ?? "" }
        // workers load while the coordinator runs the setup; their phases start together with its own
        const workers =
          workerCount > 1 ? yield* startWorkers({ count: workerCount, file: i.file, ...i.workerInputs, seed, runTag, client, originMs: state.startedAtMs }) : undefined
        yield* Effect.forkScoped(progressReporter(state, scenario.phases.reduce((n, p) => n + ms(p.duration, 0), 0), i.tty, i.err))
        const server = yield* serverSideReaderFor(i.serverSide, i.target, target, i.err)
        const phaseHooks = server ? { phaseHooks: { started: server.phaseStarted, ended: server.phaseEnded } } : {}
        const options = { seed, admin: target.admin, state, runTag, ...(target.credentials ? { credentials: target.credentials } : {}) }
        let startLagMs = 0
        const phases = workers
          ? Effect.zipRight(
              Effect.zipRight(runScenario(scenario, { ...options, parts: "setup" }), workers.start),
              runScenario(scenario, { ...options, ...phaseHooks, parts: "phases", segment: { index: 0, count: workerCount } })
            )
          : startAtMs !== undefined || segment !== undefined
            ? Effect.gen(function* () {
                // the setup is the first segment's, before the common start (docs/distributed.md)
                if (runsOnce(own) && setupRun === undefined) yield* runScenario(scenario, { ...options, parts: "setup" })
                yield* untilInstant(state.startedAtMs)
                startLagMs = Math.max(0, (yield* nowMillis) - state.startedAtMs)
                yield* runScenario(scenario, { ...options, ...phaseHooks, parts: "phases", segment: own })
              })
            : runScenario(scenario, { ...options, ...phaseHooks })
        // --metrics-addr: the generator's metrics served while it runs (../LiveMetrics.ts)
        const live = i.metricsAddr === undefined ? undefined : yield* Effect.either(serveLiveMetrics(i.metricsAddr, hostOf(target.identity.url)))
        if (live !== undefined && Either.isLeft(live)) return Either.left(new Refused({ line: `clustersim: ${live.left.message}\n` }))
        if (live !== undefined) i.err(`metrics: ${live.right.url}\n`)
        // CLUSTERSIM_RAW_LATENCIES=DIR: every latency beside the histograms, for checking their percentiles (bench/segments.ts)
        const rawDir = process.env.CLUSTERSIM_RAW_LATENCIES
        const raw = rawDir !== undefined && rawDir !== "" ? new RawLatencies() : undefined
        const measured = raw ? tapRawLatencies(recorder, raw) : recorder
        const run = live === undefined ? phases.pipe(Effect.provideService(LatencyRecorder, measured)) : live.right.instrument(phases, measured)
        const exit = yield* Effect.exit(Effect.raceFirst(Effect.asVoid(run), Effect.flatMap(i.interrupt, (signal) => Effect.fail({ interrupted: signal }))))
        if (raw) writeFileSync(join(rawDir!, `raw-latencies-${own.index + 1}-of-${own.count}-${process.pid}.txt`), raw.text())
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
          ...(server ? { server: yield* server.report } : {}),
          ...(segment !== undefined ? { segment: { ...placeOf(segment), startAtMs: agreedStartMs ?? state.startedAtMs, startLagMs, ...(clockSkewMs !== undefined ? { clockSkewMs } : {}) } } : {}),
          ...(stopped !== undefined ? { stopped } : error !== undefined ? { error } : {})
        })
      })
    )
  }
}

/**
 * `clustersim run scenario.yaml [--target embedded|in-process|URL] [--kubeconfig FILE] [--context C]
 * [--out DIR] [--seed N] [--cleanup]`: the load runner against a target, and the simulation runner for scenarios with
 * simulated sections — in virtual time, or with a named target in real time (./realtime.ts). Targets: ./target.ts; the artifact: ./artifact.ts; `validate`: ./validate.ts.
 *
 * Exit codes (k6): 0 pass, 99 thresholds breached, 2 invalid input, 1 run error; stopped by a signal (the partial
 * artifact written): 130 for SIGINT, 143 for SIGTERM (128 + the signal's number, as a shell reports it).
 */
import { Cause, Duration, Effect, Either, Exit, Option } from "effect"
import { readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import { parseArgs } from "node:util"
import { clusterFigures } from "../../simulator/cluster/ClusterFigures.js"
import { runSimulation } from "../../simulator/cluster/ClusterRun.js"
import { podStartupSeries } from "../../simulator/nodeagent/images/ImagePulls.js"
import { renderSummary } from "../../reports/summary.js"
import { assembleArtifact, type Collected, type StopSignal } from "./artifact.js"
import { outDirProblem, reasonOf } from "./outDir.js"
import { preflight } from "./preflight.js"
import { writeReports } from "./reportFiles.js"
import { isLocalTarget, resolveTarget, RunUsageError, Target, type TargetFlag, targetLayer } from "./target.js"
import { runRealTimeScenario, runsInRealTime } from "./realtime.js"
import type { TrafficCounter } from "../../src/client/HttpTransport.js"
import { combineHealth, GeneratorHealth } from "../../src/loadgen/GeneratorHealth.js"
import { decodeSeries, mergeIntervals, mergeSeries } from "../../src/loadgen/WorkerMerge.js"
import { defaultWorkers, machineCores, mergeActions, startWorkers } from "./GeneratorWorkers.js"
import type { WorkerResult } from "./WorkerProtocol.js"
import { LatencyRecorder, nowMillis } from "../../src/loadgen/LatencyRecorder.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { defaultOutDir, type RunArtifact, withScenarioInputs, writeArtifact } from "../../src/loadgen/Artifact.js"
import { parseScenario } from "../scenario/load.js"
import { parseSetOverrides } from "../scenario/SetOverrides.js"
import type { Environment } from "../scenario/Substitution.js"
import { checkTargetSupports, makeRunState, runScenario, runTagOf, type RunState } from "../scenario/Run.js"
import type { Scenario } from "../scenario/Scenario.js"
import { isSimulated, simulationOf } from "../scenario/Simulated.js"

export interface RunCommandOptions {
  readonly file: string
  readonly target: TargetFlag
  readonly outDir?: string
  readonly seed?: number
  /** Where text goes; the CLI passes process streams, tests capture. */
  readonly stdout?: (s: string) => void
  readonly stderr?: (s: string) => void
  /** Show the live progress line (default: when stderr is a TTY). */
  readonly tty?: boolean
  /** Resolves to request an early stop (Ctrl-C: SIGINT when it names no signal); the partial artifact is written. */
  readonly interrupt?: Effect.Effect<StopSignal | void>
  /** Also write the threshold results as junit.xml here. */
  readonly junit?: string
  /** Generator workers (`--workers`); default: the scenario's `generator.workers`, else what the machine fits. */
  readonly workers?: number
  /** A real-time cluster deletes the nodes, leases and pods it owns at its end (or stop). */
  readonly cleanup?: boolean
  /** `--set path=value` overrides of the scenario (../scenario/SetOverrides.ts), in order. */
  readonly sets?: ReadonlyArray<string>
  /** Values of the file's `${VAR}` references; default `process.env`. */
  readonly env?: Environment
}

export interface RunCommandResult {
  readonly exitCode: number
  readonly artifactPath?: string
  readonly artifact?: RunArtifact
}

/** Without a terminal, a progress line at least this often. */
const NON_TTY_PROGRESS_MS = 5_000

/** The live progress line: `\r`-rewritten on a TTY at ~2/s, otherwise a line per phase and every 5 s. */
const progressReporter = (state: RunState, tty: boolean, write: (s: string) => void) =>
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
      const rate = ((p.ops - lastOps) * 1000) / Math.max(1, now - lastAt)
      lastOps = p.ops
      lastAt = now
      const elapsed = ((now - state.startedAtMs) / 1000).toFixed(1)
      if (tty) write(`\r\x1b[2K${p.phase}  ${elapsed}s  ${rate.toFixed(0)} ops/s  ${p.errors} errors`)
      else if (p.phase !== lastPhase || now - lastLineAt >= NON_TTY_PROGRESS_MS) {
        // a log (CI, a pipe) gets a line per phase and one every few seconds: phase, rate, errors
        write(`[${elapsed}s] phase ${p.phase}: ${(((p.ops - lastLineOps) * 1000) / Math.max(1, now - lastLineAt)).toFixed(0)} ops/s, ${p.ops} ops, ${p.errors} errors so far\n`)
        lastLineAt = now
        lastLineOps = p.ops
      }
      lastPhase = p.phase
    }
  })

const causeText = (c: Cause.Cause<unknown>): string => {
  const f = Cause.failureOption(c)
  if (Option.isSome(f)) {
    const e = f.value
    return typeof e === "object" && e !== null && "message" in e ? String((e as { message: unknown }).message) : String(e)
  }
  return Cause.pretty(c).split("\n")[0] ?? "unknown error"
}

/** Loads, runs and reports one scenario; never fails — the outcome is the exit code. */
export const runCommand = (o: RunCommandOptions): Effect.Effect<RunCommandResult> =>
  Effect.gen(function* () {
    const out = o.stdout ?? ((s: string) => void process.stdout.write(s))
    const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
    const tty = o.tty ?? process.stderr.isTTY === true
    let text: string
    try {
      text = readFileSync(o.file, "utf8")
    } catch (e) {
      err(`clustersim: cannot read ${o.file}: ${(e as Error).message}\n`)
      return { exitCode: ExitCode.InvalidInput }
    }
    const sets = parseSetOverrides(o.sets ?? [])
    if (Either.isLeft(sets)) {
      err(`clustersim: ${sets.left}\n`)
      return { exitCode: ExitCode.InvalidInput }
    }
    const loaded = parseScenario(text, o.file, undefined, { sets: sets.right, ...(o.env ? { env: o.env } : {}) })
    if (Either.isLeft(loaded)) {
      err(loaded.left.message + "\n")
      return { exitCode: ExitCode.InvalidInput }
    }
    const scenario = loaded.right.scenario
    const seed = o.seed ?? scenario.seed ?? 1
    const startedAt = new Date()
    const outDir = o.outDir ?? defaultOutDir(scenario.metadata.name, startedAt)
    const interrupt: Effect.Effect<StopSignal> = Effect.map(o.interrupt ?? Effect.never, (signal) => signal ?? "SIGINT")

    // checked before the run, not found at its end (./outDir.ts)
    const outProblem = outDirProblem(outDir)
    if (outProblem !== undefined) {
      err(`clustersim: ${o.outDir !== undefined ? "--out " : ""}${outDir}: cannot write run.json there: ${outProblem}\n`)
      return { exitCode: ExitCode.InvalidInput }
    }

    // a target that cannot serve the scenario (credentials) or does not answer ends the run now (./preflight.ts)
    const refused = yield* preflight(scenario, o.target)
    if (refused !== undefined) {
      err(`clustersim: ${refused.exitCode === ExitCode.InvalidInput ? `${o.file}: ` : ""}${refused.message}\n`)
      return { exitCode: refused.exitCode }
    }

    /** Writes the artifact and prints the summary; the summary is printed even when the artifact cannot be written (then exit 1). */
    const finish = (assembled: RunArtifact): RunCommandResult => {
      const artifact = withScenarioInputs(assembled, loaded.right)
      let path: string | undefined
      let writeError: string | undefined
      try {
        path = writeArtifact(outDir, artifact)
      } catch (e) {
        writeError = reasonOf(e, outDir)
      }
      writeReports(outDir, artifact, o.junit, err, { besideRunJson: path !== undefined })
      if (tty) err("\r\x1b[2K")
      out(renderSummary(artifact) + "\n")
      if (path !== undefined) {
        out(`artifact: ${path}\n`)
        return { exitCode: artifact.exitCode, artifactPath: path, artifact }
      }
      err(`clustersim: could not write ${join(outDir, "run.json")}: ${writeError}\n`)
      return { exitCode: ExitCode.RunError, artifact }
    }

    if (isSimulated(scenario)) {
      if (runsInRealTime(o.target)) {
        return (yield* runRealTimeScenario({ file: o.file, text, scenario, target: o.target, seed, startedAt, cleanup: o.cleanup ?? false, interrupt, err, finish })) as RunCommandResult
      }
      return yield* runSimulatedScenario(o, scenario, text, seed, startedAt, finish, err, interrupt)
    }

    const traffic: TrafficCounter = { bytesIn: 0, bytesOut: 0 }
    const program = Effect.scoped(
      Effect.gen(function* () {
        const target = yield* Target
        const supported = checkTargetSupports(scenario, target.admin !== undefined)
        if (Either.isLeft(supported)) {
          err(`clustersim: ${o.file}: ${supported.left.message}\n`)
          return { exitCode: ExitCode.InvalidInput } as RunCommandResult
        }
        const workerCount = o.workers ?? scenario.generator?.workers ?? (sharesThisProcess(o.target) ? 1 : defaultWorkers(machineCores(), isLocalTarget(o.target)))
        if (workerCount > 1 && sharesThisProcess(o.target)) {
          err(`clustersim: --workers ${workerCount}: generator workers need a target they reach over HTTP in their own processes (embedded or a URL), not ${o.target._tag}\n`)
          return { exitCode: ExitCode.InvalidInput } as RunCommandResult
        }
        const health = yield* GeneratorHealth.make()
        const state = makeRunState(yield* nowMillis)
        const recorder = yield* LatencyRecorder.make({ originMs: state.startedAtMs })
        const runTag = runTagOf(seed, state.startedAtMs)
        const client = o.target._tag === "url" ? o.target.options : { baseUrl: target.identity.url ?? "" }
        // workers load while the coordinator runs the setup; their phases start together with its own
        const workers =
          workerCount > 1 ? yield* startWorkers({ count: workerCount, file: o.file, sets: loaded.right.sets, env: usedVariables(loaded.right.variables, o.env ?? process.env), seed, runTag, client, originMs: state.startedAtMs }) : undefined
        yield* Effect.forkScoped(progressReporter(state, tty, err))
        const options = { seed, admin: target.admin, state, runTag, ...(target.credentials ? { credentials: target.credentials } : {}) }
        const phases = workers
          ? Effect.zipRight(
              Effect.zipRight(runScenario(scenario, { ...options, parts: "setup" }), workers.start),
              runScenario(scenario, { ...options, parts: "phases", segment: { index: 0, count: workerCount } })
            )
          : runScenario(scenario, options)
        const run = phases.pipe(Effect.provideService(LatencyRecorder, recorder))
        const exit = yield* Effect.exit(Effect.raceFirst(Effect.asVoid(run), Effect.flatMap(interrupt, (signal) => Effect.fail({ interrupted: signal }))))
        yield* recorder.flush
        const own: Collected = { series: yield* recorder.snapshot, intervals: yield* recorder.intervals, intervalMs: 1000 }
        yield* health.addBytesIn(traffic.bytesIn)
        yield* health.addBytesOut(traffic.bytesOut)
        const ownHealth = yield* health.summary
        let workersError: string | undefined
        let results: ReadonlyArray<WorkerResult> = []
        if (workers) {
          if (Exit.isFailure(exit)) yield* workers.stop
          const got = yield* Effect.either(workers.results)
          if (got._tag === "Left") workersError = got.left.message
          else results = got.right
        }
        const collected: Collected = results.length === 0 ? own : {
          series: mergeSeries([own.series, ...results.map((r) => r.series.map(decodeSeries))]),
          intervals: mergeIntervals([own.intervals, ...results.map((r) => r.intervals)]),
          intervalMs: 1000
        }
        if (results.length > 0) foldWorkers(state, results)
        const stop = Exit.isFailure(exit) ? stopSignalOf(exit.cause) : undefined
        const outcome =
          Exit.isSuccess(exit) && workersError === undefined
            ? ("completed" as const)
            : stop
              ? { interrupted: stop }
              : { error: Exit.isFailure(exit) ? causeText(exit.cause) : workersError! }
        return finish(
          assembleArtifact({
            scenario,
            file: o.file,
            text,
            target: target.identity,
            seed,
            startedAt,
            endedAt: new Date(),
            collected,
            state,
            health: combineHealth([ownHealth, ...results.map((r) => r.health)]),
            outcome
          })
        )
      })
    )
    const exit = yield* Effect.exit(Effect.provide(program, targetLayer(o.target, scenario, seed, traffic)))
    if (Exit.isSuccess(exit)) return exit.value
    err(`clustersim: run error: ${causeText(exit.cause)}\n`)
    return { exitCode: ExitCode.RunError }
  })

/** The values of the variables a scenario refers to, for its workers (those unset are left out: their default applies). */
const usedVariables = (names: ReadonlyArray<string>, env: Environment): Record<string, string> =>
  Object.fromEntries(names.flatMap((n) => (env[n] === undefined ? [] : [[n, env[n]!]])))

/** Targets whose server lives in this process: the run cannot be split into generator processes. */
const sharesThisProcess = (t: TargetFlag): boolean => t._tag === "in-process" || (t._tag === "embedded" && t.serverProcess !== "own")

/** The workers' action reports and error counts into the coordinator's (their series merge separately). */
const foldWorkers = (state: RunState, results: ReadonlyArray<WorkerResult>): void => {
  const merged = mergeActions([state.actions, ...results.map((r) => r.actions)])
  state.actions.splice(0, state.actions.length, ...merged)
  for (const r of results) {
    state.progress.ops += r.ops
    state.progress.errors += r.errors
    for (const [message, count] of r.errorMessages) state.progress.errorMessages.set(message, (state.progress.errorMessages.get(message) ?? 0) + count)
  }
}

const stopSignalOf = (cause: Cause.Cause<unknown>): StopSignal | undefined => {
  const f = Option.getOrUndefined(Cause.failureOption(cause))
  return typeof f === "object" && f !== null && "interrupted" in f ? (f as { interrupted: StopSignal }).interrupted : undefined
}

/**
 * A scenario with simulated sections (`cluster`, `scheduler`, `eviction`): ONE simulation in virtual time runs
 * them all with the load phases as its workload (app/scenario/Simulated.ts). It runs in slices, so a signal
 * stops it within a slice and the artifact covers the virtual time reached.
 */
const runSimulatedScenario = (
  o: RunCommandOptions,
  scenario: Scenario,
  text: string,
  seed: number,
  startedAt: Date,
  finish: (a: RunArtifact) => RunCommandResult,
  err: (s: string) => void,
  interrupt: Effect.Effect<StopSignal>
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const tty = o.tty ?? process.stderr.isTTY === true
      let stoppedBy: StopSignal | undefined
      yield* Effect.forkScoped(Effect.flatMap(interrupt, (signal) => Effect.sync(() => void (stoppedBy = signal))))
      let captured: { recorder: LatencyRecorder["Type"]; state: RunState } | undefined
      let lastProgressLineMs = 0
      let workloadError: string | undefined
      const workload = Effect.gen(function* () {
        const recorder = yield* LatencyRecorder.make()
        const state = makeRunState(yield* nowMillis)
        captured = { recorder, state }
        yield* runScenario(scenario, { seed, admin: undefined, state }).pipe(Effect.provideService(LatencyRecorder, recorder))
      }).pipe(Effect.catchAllCause((c) => Effect.sync(() => void (workloadError = causeText(c)))))
      const exit = yield* Effect.exit(
        runSimulation({
          ...simulationOf(scenario, seed, dirname(o.file)),
          workload,
          stopRequested: Effect.sync(() => stoppedBy !== undefined),
          // a log gets a line every few seconds of wall time even when a virtual minute takes longer
          progressEveryWallMs: tty ? 500 : NON_TTY_PROGRESS_MS,
          onProgress: (p) => {
            const ph = captured?.state.progress
            const ratio = p.wallMs > 0 ? `${(p.virtualMs / p.wallMs).toFixed(1)}× real time` : ""
            const line = `virtual ${(p.virtualMs / 1000).toFixed(0)}s  wall ${(p.wallMs / 1000).toFixed(1)}s  ${ratio}  ${ph ? `${ph.phase}  ${ph.ops} ops  ${ph.errors} errors` : ""}`
            if (tty) err(`\r\x1b[2K${line}`)
            else if (p.wallMs - lastProgressLineMs >= NON_TTY_PROGRESS_MS) {
              lastProgressLineMs = p.wallMs
              err(`[${line.trim()}]\n`)
            }
          }
        })
      )
      const empty: Collected = { series: [], intervals: [], intervalMs: 1000 }
      if (captured) yield* captured.recorder.flush
      const recorded: Collected = captured
        ? { series: yield* captured.recorder.snapshot, intervals: yield* captured.recorder.intervals, intervalMs: 1000 }
        : empty
      const result = Exit.isSuccess(exit) ? exit.value : undefined
      // pod start-up latency of the simulated node agents (with `cluster.images`), judged by thresholds like the rest
      const collected: Collected = result?.cluster ? { ...recorded, series: [...recorded.series, ...podStartupSeries(result.cluster)] } : recorded
      const outcome =
        result === undefined
          ? { error: Exit.isFailure(exit) ? causeText(exit.cause) : "unknown error" }
          : result.stopped && stoppedBy
            ? { interrupted: stoppedBy }
            : workloadError !== undefined
              ? { error: workloadError }
              : ("completed" as const)
      return finish(
        assembleArtifact({
          scenario,
          file: o.file,
          text,
          target: { kind: "simulated-cluster" },
          seed,
          startedAt,
          endedAt: new Date(),
          health: undefined,
          collected,
          state: captured?.state ?? makeRunState(0),
          outcome,
          ...(result?.cluster ? { cluster: result.cluster as unknown as Record<string, unknown>, clusterFigures: clusterFigures(result.cluster) } : {}),
          ...(result && Object.keys(result.sections).length > 0 ? { sections: result.sections } : {})
        })
      )
    })
  )

// ---------------------------------------------------------------------------------------------
// Flags
// ---------------------------------------------------------------------------------------------

export const parseRunFlags = (argv: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const { values, positionals } = yield* Effect.try({
      try: () =>
        parseArgs({
          args: [...argv],
          options: {
            target: { type: "string" },
            kubeconfig: { type: "string" },
            context: { type: "string" },
            token: { type: "string" },
            ca: { type: "string" },
            "client-cert": { type: "string" },
            "client-key": { type: "string" },
            "insecure-skip-tls-verify": { type: "boolean" },
            out: { type: "string" },
            seed: { type: "string" },
            cleanup: { type: "boolean" },
            set: { type: "string", multiple: true }
          },
          allowPositionals: true,
          strict: true
        }),
      catch: (e) => new RunUsageError((e as Error).message)
    })
    if (positionals.length !== 1) return yield* Effect.fail(new RunUsageError("run takes exactly one scenario file"))
    let seed: number | undefined
    if (values.seed !== undefined) {
      seed = Number(values.seed)
      if (!Number.isInteger(seed)) return yield* Effect.fail(new RunUsageError(`--seed: not an integer: "${values.seed}"`))
    }
    const target = yield* resolveTarget({
      ...values,
      clientCert: values["client-cert"],
      clientKey: values["client-key"],
      insecureSkipTlsVerify: values["insecure-skip-tls-verify"]
    })
    return {
      file: positionals[0]!,
      target,
      ...(values.out !== undefined ? { outDir: values.out } : {}),
      ...(seed !== undefined ? { seed } : {}),
      ...(values.cleanup === true ? { cleanup: true } : {}),
      ...(values.set !== undefined ? { sets: values.set } : {})
    }
  })


/**
 * `clustersim run scenario.yaml [--target embedded|in-process|URL] [--kubeconfig FILE] [--context C]
 * [--out DIR] [--seed N] [--cleanup]`: the load runner against a target, and the simulation runner for scenarios with
 * simulated sections — in virtual time, or with a named target in real time: the driver for the scenario and the one
 * pipeline making its artifact are ./RunPipeline.ts, the drivers ./drivers/. Here: the scenario read, the output
 * directory checked, the artifact written with the reports and the summary. Targets: ./target.ts; the artifact:
 * ./artifact.ts; `validate`: ./validate.ts.
 *
 * Exit codes (k6): 0 pass, 99 thresholds breached, 2 invalid input, 1 run error; stopped by a signal (the partial
 * artifact written): 130 for SIGINT, 143 for SIGTERM (128 + the signal's number, as a shell reports it).
 */
import { Effect, Either, Exit } from "effect"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { defaultOutDir, processExitCode, type RunArtifact, withScenarioInputs, writeArtifact } from "../../src/loadgen/Artifact.js"
import { parseScenario } from "../scenario/load.js"
import { ms } from "../scenario/Run.js"
import type { Scenario } from "../scenario/Scenario.js"
import { parseSetOverrides } from "../scenario/SetOverrides.js"
import type { Environment } from "../scenario/Substitution.js"
import type { StopSignal } from "./artifact.js"
import { outDirProblem, outFileProblem, reasonOf } from "./outDir.js"
import { preflight } from "./preflight.js"
import type { TargetFlag } from "./target.js"
import type { ServerSideFlags } from "./drivers/Driver.js"
import { type ExecutionSegment, segmentText } from "../../src/loadgen/ExecutionSegment.js"

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
  /** `--metrics-out FILE`: a run in virtual time writes its modelled metrics there as OpenMetrics. */
  readonly metricsOut?: string
  /** `--metrics-interval`: virtual time between two scrapes of `metricsOut` (ms; default 15 s). */
  readonly metricsIntervalMs?: number
  /** `--metrics-addr HOST:PORT`: a real-time or load run serves the generator's metrics there. */
  readonly metricsAddr?: { readonly host: string; readonly port: number }
  /** Where a real target's server-side latency is read from (`--prometheus`, `--server-metrics-timeout`). */
  readonly serverSide?: ServerSideFlags
  /** `--segment`: run only this share of the load (docs/distributed.md). */
  readonly segment?: ExecutionSegment
  /** `--start-at`: when the measured phases begin (every segment's the same). */
  readonly startAt?: Date
  /** `--rendezvous ID`: the segments agree on their start through the target (docs/distributed.md). */
  readonly rendezvous?: string
  /** `--publish NAME`: the segment artifact stored in the target too, for `clustersim collect NAME`. */
  readonly publish?: string
}

/** Virtual time between two scrapes of `--metrics-out` unless `--metrics-interval` says otherwise: Prometheus' usual 15 s. */
export const DefaultMetricsIntervalMs = 15_000

export interface RunCommandResult {
  readonly exitCode: number
  readonly artifactPath?: string
  readonly artifact?: RunArtifact
}

/** The process's exit code for its artifact (a segment's breach of its own share's thresholds is not the run's). */
export { processExitCode }

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
    // two seeds for one run: run.json would record the --set's while the run used --seed's
    const seedSet = sets.right.find((s) => s.path.length === 1 && s.path[0] === "seed")
    if (seedSet !== undefined && o.seed !== undefined) {
      err(`clustersim: --set ${seedSet.source} with --seed ${o.seed}: give the seed once\n`)
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
    const junitProblem = o.junit === undefined ? undefined : outFileProblem(o.junit)
    if (junitProblem !== undefined) {
      err(`clustersim: --junit ${o.junit}: cannot write there: ${junitProblem}\n`)
      return { exitCode: ExitCode.InvalidInput }
    }

    /** Writes the artifact and prints the summary; the summary is printed even when the artifact cannot be written (then exit 1). */
    // a target that cannot serve the scenario (credentials) or does not answer ends the run now (./preflight.ts)
    const refused = yield* preflight(scenario, o.target)
    if (refused !== undefined) {
      err(`clustersim: ${refused.exitCode === ExitCode.InvalidInput ? `${o.file}: ` : ""}${refused.message}\n`)
      return { exitCode: refused.exitCode }
    }

    // loaded once the target answered (./preflight.ts): the simulator and the reports are most of the start-up
    const { artifactOf, causeText, driverFor } = yield* Effect.promise(() => import("./RunPipeline.js"))
    const { renderOutputFiles, renderSummary } = yield* Effect.promise(() => import("../../reports/summary.js"))
    const { writeReports } = yield* Effect.promise(() => import("./reportFiles.js"))

    const finish = (assembled: RunArtifact): RunCommandResult => {
      const artifact = withScenarioInputs(assembled, loaded.right)
      let path: string | undefined
      let writeError: string | undefined
      try {
        path = writeArtifact(outDir, artifact)
      } catch (e) {
        writeError = reasonOf(e, outDir)
      }
      const written = writeReports(outDir, artifact, o.junit, err, { besideRunJson: path !== undefined })
      if (tty) err("\r\x1b[2K")
      out(renderSummary(artifact) + "\n")
      out(renderOutputFiles({ ...written, ...(path !== undefined ? { runJson: path } : {}) }))
      // a junit file asked for and not written fails a run that passed: CI reads that file (its error is printed above)
      const junitLost = o.junit !== undefined && written.junit === undefined
      const exitCode = processExitCode(artifact)
      if (junitLost && exitCode === ExitCode.Pass) err(`clustersim: exit ${ExitCode.RunError}: --junit ${o.junit} was not written (above), although the run passed\n`)
      if (path !== undefined) return { exitCode: junitLost && exitCode === ExitCode.Pass ? ExitCode.RunError : exitCode, artifactPath: path, artifact }
      err(`clustersim: could not write ${join(outDir, "run.json")}: ${writeError}\n`)
      return { exitCode: ExitCode.RunError, artifact }
    }

    const driver = driverFor(scenario, o.target)
    // each metrics flag belongs to one clock: the modelled metrics to virtual time, a live endpoint to real time
    if (o.metricsOut !== undefined && driver.name !== "virtual-time cluster") {
      err(`clustersim: --metrics-out: only a run in virtual time (a scenario with simulated sections, without --target) has modelled metrics to write; this is a ${driver.name} run: serve its metrics with --metrics-addr\n`)
      return { exitCode: ExitCode.InvalidInput }
    }
    if (o.metricsAddr !== undefined && driver.name === "virtual-time cluster") {
      err(`clustersim: --metrics-addr: a run in virtual time is over before a scrape would come: write its metrics with --metrics-out FILE\n`)
      return { exitCode: ExitCode.InvalidInput }
    }
    if (o.segment !== undefined && driver.name === "virtual-time cluster") {
      err(`clustersim: --segment ${segmentText(o.segment)}: ${o.file} runs a ${driver.name}; segments split load phases and real-time clusters (give --target)\n`)
      return { exitCode: ExitCode.InvalidInput }
    }
    const input = {
      file: o.file,
      scenario,
      seed,
      target: o.target,
      interrupt,
      err,
      tty,
      cleanup: o.cleanup ?? false,
      // generator workers load the file as this process did: the same overrides, the variables it refers to
      workerInputs: { sets: loaded.right.sets, env: usedVariables(loaded.right.variables, o.env ?? process.env) },
      ...(o.workers !== undefined ? { workers: o.workers } : {}),
      ...(o.metricsOut !== undefined ? { metricsOut: { path: o.metricsOut, everyMs: o.metricsIntervalMs ?? DefaultMetricsIntervalMs } } : {}),
      ...(o.metricsAddr !== undefined ? { metricsAddr: o.metricsAddr } : {}),
      ...(o.serverSide !== undefined ? { serverSide: o.serverSide } : {}),
      ...(o.segment !== undefined ? { segment: o.segment } : {}),
      ...(o.startAt !== undefined ? { startAtMs: o.startAt.getTime() } : {}),
      ...(o.rendezvous !== undefined ? { rendezvous: rendezvousPlan(o.rendezvous, scenario) } : {})
    }
    const exit = yield* Effect.exit(driver.run(input))
    if (Exit.isFailure(exit)) {
      err(`clustersim: run error: ${causeText(exit.cause)}\n`)
      return { exitCode: ExitCode.RunError }
    }
    if (Either.isLeft(exit.value)) {
      err(exit.value.left.line)
      return { exitCode: ExitCode.InvalidInput }
    }
    const result = finish(yield* artifactOf({ scenario, file: o.file, text, seed, startedAt }, exit.value.right))
    return o.publish !== undefined && result.artifact !== undefined ? yield* published(o, scenario, result, err) : result
  })

/**
 * A segment's artifact stored in the target after the run (src/loadgen/ResultStore.ts): in the rendezvous namespace,
 * under the rendezvous id and the `--publish` name. A store that fails makes the run fail (exit 1): a Job's segment
 * whose result is lost is a lost segment.
 */
const published = (o: RunCommandOptions, scenario: Scenario, result: RunCommandResult, err: (s: string) => void): Effect.Effect<RunCommandResult> =>
  Effect.gen(function* () {
    const artifact = result.artifact!
    if (artifact.segment === undefined || o.target._tag !== "url") {
      err(`clustersim: --publish: only a segment run against a URL target publishes its artifact\n`)
      return { ...result, exitCode: ExitCode.InvalidInput }
    }
    const { ApiClient } = yield* Effect.promise(() => import("../../src/client/ApiClient.js"))
    const { publishArtifact } = yield* Effect.promise(() => import("../../src/loadgen/ResultStore.js"))
    const namespace = scenario.generator?.rendezvous?.namespace ?? "default"
    const stored = yield* Effect.either(
      publishArtifact({ run: o.rendezvous ?? o.publish!, job: o.publish!, namespace, segment: artifact.segment, runJson: JSON.stringify(artifact) }).pipe(Effect.provide(ApiClient.layerHttp(o.target.options)))
    )
    if (stored._tag === "Left") {
      err(`clustersim: --publish ${o.publish}: could not store the artifact in ${namespace}: ${stored.left.message}\n`)
      return { ...result, exitCode: ExitCode.RunError }
    }
    err(`clustersim: segment artifact published to ${namespace} (${stored.right} ConfigMap${stored.right > 1 ? "s" : ""}): clustersim collect ${o.publish} --namespace ${namespace}\n`)
    return result
  })

/** The scenario's rendezvous settings (`generator.rendezvous`) with their defaults: namespace `default`, 5 s margin, 2 min timeout. */
const rendezvousPlan = (id: string, scenario: Scenario) => {
  const r = scenario.generator?.rendezvous
  return { id, namespace: r?.namespace ?? "default", marginMs: ms(r?.margin, 5_000), timeoutMs: ms(r?.timeout, 120_000) }
}

/** The values of the variables a scenario refers to, for its workers (those unset are left out: their default applies). */
const usedVariables = (names: ReadonlyArray<string>, env: Environment): Record<string, string> =>
  Object.fromEntries(names.flatMap((n) => (env[n] === undefined ? [] : [[n, env[n]!]])))

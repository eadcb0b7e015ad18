/**
 * `clustersim sweep FILE --vary PATH=V1,V2 …` (docs/sweep.md): the points of a parameter sweep (./SweepPlan.ts) side
 * by side, each the CLI's own `run FILE --set PATH=V … --out DIR/<point>` as a process of its own (./ChildEntry.ts),
 * at most `workers` at once. A run in virtual time is one thread (docs/benchmarks.md "Both cores"); a sweep's points
 * are independent runs, so they fill the cores, and each point's result is exactly that `run`'s. Points finish in any
 * order; the table, `sweep.json` and `sweep.html` list them in point order.
 */
import { Effect, Either, Fiber } from "effect"
import type { ChildProcess } from "node:child_process"
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from "node:fs"
import { availableParallelism } from "node:os"
import { join } from "node:path"
import { defaultOutDir, readArtifact, writeAtomically } from "../../src/loadgen/Artifact.js"
import { artifactFingerprint, fingerprintModeOf } from "../../src/loadgen/ArtifactFingerprint.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { headlineLabels, runFigures } from "../../src/compare/SweepFigures.js"
import { type SweepPointResult, SweepFormat, type SweepResult, verdictOfExit } from "../../src/compare/SweepResult.js"
import { renderSweepHtml } from "../../reports/sweepHtml.js"
import { thresholdText } from "../../reports/summary.js"
import { renderSweep, sweepProgressLine } from "../../reports/sweepText.js"
import { signalExitCode, type StopSignal } from "./artifact.js"
import { spawnEntry } from "./ChildEntry.js"
import { outDirProblem } from "./outDir.js"
import { planSweep, type SweepPoint } from "./SweepPlan.js"

export interface SweepCommandOptions {
  readonly file: string
  readonly varies: ReadonlyArray<string>
  /** `--set`s every point gets before its own. */
  readonly sets: ReadonlyArray<string>
  readonly seed?: number
  /**
   * Points at once. Default: the machine's cores for a scenario in virtual time; 1 for a load scenario, which runs on
   * the real clock, where points side by side would share the cores and disturb each other's latencies.
   */
  readonly workers?: number
  /** The target flags as given, passed to every point's run (a real server's sweep has `workers` 1). */
  readonly targetArgs: ReadonlyArray<string>
  /** Default `runs/<timestamp>-<name>-sweep/`. */
  readonly outDir?: string
  /** Resolves when a signal asks the sweep to stop: the running points get it and write what they measured. */
  readonly interrupt: Effect.Effect<StopSignal>
  readonly stdout?: (s: string) => void
  readonly stderr?: (s: string) => void
}

/** The last lines a failed point printed, for the sweep's own stderr; the whole in its `stderr.log`. */
const TailLines = 5

/** Runs the sweep; never fails — the outcome is the exit code: 0 only when every point passed. */
export const sweepCommand = (o: SweepCommandOptions): Effect.Effect<number> =>
  Effect.gen(function* () {
    const out = o.stdout ?? ((s: string) => void process.stdout.write(s))
    const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
    let text: string
    try {
      text = readFileSync(o.file, "utf8")
    } catch (e) {
      err(`clustersim: cannot read ${o.file}: ${(e as Error).message}\n`)
      return ExitCode.InvalidInput
    }
    const plan = planSweep({ file: o.file, text, varies: o.varies, sets: o.sets })
    if (Either.isLeft(plan)) {
      err(`clustersim: ${plan.left}\nRun "clustersim sweep --help" for usage.\n`)
      return ExitCode.InvalidInput
    }
    const { parameters, points, scenario } = plan.right
    if (o.seed !== undefined && parameters.some((p) => p.path === "seed")) {
      err(`clustersim: --vary seed with --seed: --seed would give every point the same seed\n`)
      return ExitCode.InvalidInput
    }
    const startedAt = new Date()
    const outDir = o.outDir ?? defaultOutDir(`${scenario.name}-sweep`, startedAt)
    const problem = outDirProblem(outDir)
    if (problem !== undefined) {
      err(`clustersim: ${o.outDir !== undefined ? "--out " : ""}${outDir}: cannot write there: ${problem}\n`)
      return ExitCode.InvalidInput
    }
    const seed = o.seed ?? scenario.seed ?? 1
    // each point's own seed then: one seed in the header would be wrong for all but one
    const seedVaried = parameters.some((p) => p.path === "seed")
    const realClock = !scenario.simulated
    const workers = Math.min(o.workers ?? (realClock ? 1 : availableParallelism()), points.length)
    const why = realClock && o.workers === undefined && points.length > 1 ? " (a load scenario on the real clock: --workers N to run N at once)" : ""
    err(`clustersim: sweep of ${points.length} points (${parameters.map((p) => `${p.path}: ${p.values.length}`).join(" × ")}), ${workers} at a time${why}, ${seedVaried ? "the seed varied" : `seed ${seed}`}, into ${outDir}\n`)

    const running = new Set<ChildProcess>()
    let stopped: StopSignal | undefined
    const stop = yield* Effect.fork(
      Effect.flatMap(o.interrupt, (signal) =>
        Effect.sync(() => {
          stopped = signal
          err(`clustersim: ${signal}: stopping the ${running.size} running point${running.size === 1 ? "" : "s"}; they write what they measured\n`)
          for (const child of running) child.kill(signal)
        })
      )
    )
    const args = (p: SweepPoint) => [
      "run",
      o.file,
      ...o.targetArgs,
      ...(o.seed !== undefined ? ["--seed", String(o.seed)] : []),
      ...[...o.sets, ...p.sets].flatMap((s) => ["--set", s]),
      "--out",
      join(outDir, p.dir)
    ]
    const runPoint = (p: SweepPoint): Effect.Effect<SweepPointResult> =>
      Effect.gen(function* () {
        const base = { index: p.index, values: p.values, sets: p.sets, dir: p.dir }
        if (stopped !== undefined) return { ...base, verdict: verdictOfExit(undefined), figures: [] }
        const dir = join(outDir, p.dir)
        mkdirSync(dir, { recursive: true })
        const began = Date.now()
        const { code, stderr } = yield* childRun(args(p), join(dir, "stderr.log"), running)
        const result: SweepPointResult = { ...base, exitCode: code, verdict: verdictOfExit(code), wallMs: Date.now() - began, ...pointResult(dir) }
        err(sweepProgressLine(points.length, parameters, result) + "\n")
        if (code !== ExitCode.Pass && code !== ExitCode.ThresholdsBreached && stopped === undefined)
          for (const line of stderr.trimEnd().split("\n").slice(-TailLines)) err(`[sweep ${p.index}/${points.length}]   ${line}\n`)
        return result
      })
    const results = yield* Effect.forEach(points, runPoint, { concurrency: workers })
    yield* Fiber.interrupt(stop)

    const exitCode = stopped !== undefined ? signalExitCode[stopped] : sweepExitCode(results.map((r) => r.exitCode))
    const result: SweepResult = {
      format: SweepFormat,
      scenario: { name: scenario.name, file: o.file },
      seed,
      sets: o.sets,
      parameters,
      workers,
      startedAt: startedAt.toISOString(),
      durationMs: Date.now() - startedAt.getTime(),
      ...(stopped !== undefined ? { interruptedBy: stopped } : {}),
      headline: headlineLabels(results.map((r) => r.figures)),
      points: results,
      exitCode
    }
    const files = { json: join(outDir, "sweep.json"), html: join(outDir, "sweep.html") }
    writeAtomically(files.json, JSON.stringify(result, null, 2) + "\n")
    writeAtomically(files.html, renderSweepHtml(result))
    out(renderSweep(result, files))
    return exitCode
  })

/**
 * One point's run as a child process: its exit code (128 + the signal's number when one ended it) and stderr, which
 * also goes to `log` as it comes (a running point's progress lines are there).
 */
const childRun = (args: ReadonlyArray<string>, log: string, running: Set<ChildProcess>) =>
  Effect.async<{ readonly code: number; readonly stderr: string }>((resume) => {
    const child = spawnEntry("cliEntry", args, { pipeStderr: true, ownProcessGroup: true })
    running.add(child)
    let stderr = ""
    const file = openSync(log, "w")
    child.stderr!.on("data", (d: Buffer) => {
      stderr += d.toString()
      writeSync(file, d)
    })
    // its summary is in its run.json; the sweep prints the table
    child.stdout!.resume()
    child.once("close", (code, signal) => {
      running.delete(child)
      closeSync(file)
      resume(Effect.succeed({ code: code ?? (signal === "SIGINT" || signal === "SIGTERM" ? signalExitCode[signal] : ExitCode.RunError), stderr }))
    })
  })

/** What a point's run.json says: its figures and fingerprint (none when the run wrote no artifact). */
const pointResult = (dir: string): Pick<SweepPointResult, "figures" | "breached" | "fingerprint" | "fingerprintMode"> => {
  const path = join(dir, "run.json")
  if (!existsSync(path)) return { figures: [] }
  try {
    const artifact = readArtifact(path)
    const mode = fingerprintModeOf(artifact)
    const breached = artifact.thresholds.filter((t) => !t.passed).map(thresholdText)
    return { figures: runFigures(artifact), ...(breached.length > 0 ? { breached } : {}), fingerprint: artifactFingerprint(artifact, mode), fingerprintMode: mode }
  } catch {
    return { figures: [] }
  }
}

/** 0 when every point passed; else the gravest of the points' codes: invalid input, a run error, a breach. */
export const sweepExitCode = (codes: ReadonlyArray<number | undefined>): number => {
  if (codes.every((c) => c === ExitCode.Pass)) return ExitCode.Pass
  if (codes.includes(ExitCode.InvalidInput)) return ExitCode.InvalidInput
  if (codes.some((c) => c !== ExitCode.Pass && c !== ExitCode.ThresholdsBreached)) return ExitCode.RunError
  return ExitCode.ThresholdsBreached
}

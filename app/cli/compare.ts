/**
 * `clustersim compare`: (a) one scenario against two or more targets in interleaved rounds (the order of
 * each round from a Williams design, `RoundOrder.ts`, so slow drift of the machine falls on every side
 * alike), after warm-up rounds that are run and not counted (a fresh server's first run pays for its JIT
 * and caches); or (b) stored runs. Writes `compare.json` (and `compare.html`) and exits 99 when a
 * `--fail-if` rule holds.
 */
import { Effect, Either } from "effect"
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { renderComparison } from "../../reports/compareText.js"
import { compareSides, type Comparison, type Side } from "../../src/compare/Compare.js"
import { evaluateFailRules, type FailRule, parseFailRule } from "../../src/compare/FailIf.js"
import { roundOrder } from "../../src/compare/RoundOrder.js"
import { ExitCode, parseThreshold, Tags, tagValue, type Threshold } from "../../src/loadgen/Thresholds.js"
import type { MetricKey } from "../../src/loadgen/LatencyRecorder.js"
import { type SeriesPattern, unreachableReason } from "../../src/loadgen/SeriesPattern.js"
import { defaultCompareDir, readArtifact, type RunArtifact, writeAtomically } from "../../src/loadgen/Artifact.js"
import { unreachable } from "./preflight.js"
import { runCommand } from "./run.js"
import type { TargetFlag } from "./target.js"
import type { ServerSideFlags } from "./drivers/Driver.js"

export interface CompareCommandOptions {
  /** Stored mode: one entry per side — a run.json, a directory of rounds, or files joined by commas. */
  readonly stored?: ReadonlyArray<string>
  /** Live mode: the scenario and its targets. */
  readonly scenario?: string
  readonly targets?: ReadonlyArray<TargetFlag>
  /** Where each target's server-side latency is read from (`--prometheus`, one per target; `--server-metrics-timeout`). */
  readonly serverSide?: ReadonlyArray<ServerSideFlags>
  readonly rounds?: number
  /** Rounds run first and not counted (default 1). */
  readonly warmupRounds?: number
  readonly outDir?: string
  readonly failIf?: ReadonlyArray<string>
  /** Tags as in a threshold name: `operation:LIST,phase:steady`. */
  readonly select?: string
  readonly level?: number
  readonly seed?: number
  /** Compare runs of different scenarios (a what-if); the differing fields are printed. Default false: refused. */
  readonly allowDifferent?: boolean
  readonly html?: (c: Comparison, sides: ReadonlyArray<Side>) => string
  /** Where the HTML goes (default `compare.html` in the out directory). */
  readonly htmlFile?: string
  /** Write `compare.json` to the out directory (default true; `report a.json b.json` only prints). */
  readonly writeJson?: boolean
  readonly stdout?: (s: string) => void
  readonly stderr?: (s: string) => void
}

export interface CompareCommandResult {
  readonly exitCode: number
  readonly comparison?: Comparison
}

/** Every `run.json` below a directory, in path order (round-1 before round-2). */
const runFilesUnder = (dir: string): Array<string> =>
  readdirSync(dir, { withFileTypes: true })
    .sort((a, b) => a.name.localeCompare(b.name, undefined, { numeric: true }))
    .flatMap((e) => (e.isDirectory() ? runFilesUnder(join(dir, e.name)) : e.name === "run.json" ? [join(dir, e.name)] : []))

const storedSide = (spec: string, index: number): Side => {
  const files = spec.split(",").flatMap((p) => (existsSync(p) && statSync(p).isDirectory() ? runFilesUnder(p) : [p]))
  if (files.length === 0) throw new Error(`${spec}: no run.json files`)
  return { label: String.fromCharCode(65 + index), rounds: files.map(readArtifact) }
}

const targetText = (t: TargetFlag): string => (t._tag === "url" ? t.options.baseUrl : t._tag)

/** A stored series' key as the one pattern it is (`unreachableReason` names the values the sides have). */
const seriesPattern = (key: MetricKey): SeriesPattern => Object.fromEntries(Tags.map((tag) => [tag, [tagValue(key, tag)]]))

export const parseSelect = (text: string): Either.Either<Threshold["selector"], string> => {
  const parsed = parseThreshold(`latency{${text}}`, "max >= 0")
  if (Either.isLeft(parsed)) return Either.left(`--select: ${parsed.left.reason} "${parsed.left.token}"`)
  if (parsed.right.groupBy.length > 0) return Either.left(`--select: "*" does not select anything; name the values`)
  return Either.right(parsed.right.selector)
}

export const compareCommand = (o: CompareCommandOptions): Effect.Effect<CompareCommandResult> =>
  Effect.gen(function* () {
    const out = o.stdout ?? ((s: string) => void process.stdout.write(s))
    const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
    const invalid = (message: string) => {
      err(`clustersim compare: ${message}\n`)
      return { exitCode: ExitCode.InvalidInput }
    }
    const rules: Array<FailRule> = []
    for (const r of o.failIf ?? []) {
      const parsed = parseFailRule(r)
      if (Either.isLeft(parsed)) return invalid(parsed.left.message)
      rules.push(parsed.right)
    }
    let select: Threshold["selector"] | undefined
    if (o.select !== undefined) {
      const s = parseSelect(o.select)
      if (Either.isLeft(s)) return invalid(s.left)
      select = s.right
    }
    const live = o.scenario !== undefined
    if (live && (o.stored?.length ?? 0) > 0) return invalid("give either a scenario with --target flags or stored run.json files, not both")
    let sides: Array<Side>
    const outDir = o.outDir ?? defaultCompareDir(new Date())
    if (live) {
      const targets = o.targets ?? []
      if (targets.length < 2) return invalid(`--target: give at least two targets to compare, got ${targets.length}`)
      const rounds = o.rounds ?? 3
      if (!Number.isInteger(rounds) || rounds < 1) return invalid(`--rounds: expected a positive integer, got ${rounds}`)
      const warmup = o.warmupRounds ?? 1
      if (!Number.isInteger(warmup) || warmup < 0) return invalid(`--warmup-rounds: expected 0 or a positive integer, got ${warmup}`)
      // every side answers before the first round, not a round's length later (./preflight.ts)
      for (const [i, t] of targets.entries()) {
        const down = yield* unreachable(t)
        if (down !== undefined) {
          err(`clustersim compare: ${String.fromCharCode(65 + i)} (${targetText(t)}): ${down}\n`)
          return { exitCode: ExitCode.RunError }
        }
      }
      const perSide: Array<Array<RunArtifact>> = targets.map(() => [])
      for (let r = 0; r < warmup + rounds; r++) {
        const counted = r >= warmup
        const name = counted ? `round ${r - warmup + 1}/${rounds}` : `warm-up ${r + 1}/${warmup}`
        for (const i of roundOrder(r, targets.length)) {
          const label = String.fromCharCode(65 + i)
          const started = Date.now()
          const res = yield* runCommand({
            file: o.scenario!,
            target: targets[i]!,
            outDir: join(outDir, counted ? `round-${r - warmup + 1}` : `warmup-${r + 1}`, label),
            ...(o.seed !== undefined ? { seed: o.seed } : {}),
            ...(o.serverSide?.[i] !== undefined ? { serverSide: o.serverSide[i]! } : {}),
            tty: false,
            stdout: () => {},
            stderr: err
          })
          if (!res.artifact) return { exitCode: res.exitCode }
          err(`${name} ${label} (${targetText(targets[i]!)}): ${res.artifact.outcome}, ${((Date.now() - started) / 1000).toFixed(1)}s${counted ? "" : ", not counted"}\n`)
          if (counted) perSide[i]!.push(res.artifact)
        }
      }
      sides = perSide.map((rounds, i) => ({ label: String.fromCharCode(65 + i), rounds }))
    } else {
      const specs = o.stored ?? []
      if (specs.length < 2) return invalid(`give two or more run.json files (or directories of rounds), got ${specs.length}`)
      try {
        sides = specs.map(storedSide)
      } catch (e) {
        return invalid((e as Error).message)
      }
    }
    if (select !== undefined && o.select !== undefined) {
      // a value no series has (a typo: phase:stedy) would select nothing, and a --fail-if over nothing would pass
      const patterns = [...new Map(sides.flatMap((side) => side.rounds.flatMap((r) => r.series.map((x) => seriesPattern(x.key)))).map((p) => [JSON.stringify(p), p])).values()]
      const reason = unreachableReason({ name: `latency{${o.select}}`, selector: select }, patterns)
      if (reason !== undefined) return invalid(`--select ${o.select}: ${reason}`)
    }
    const pairedStored = !live && sides.every((s) => s.rounds.length === sides[0]!.rounds.length && s.rounds.length >= 2)
    const result = compareSides(sides, {
      paired: live || pairedStored,
      ...(select ? { select } : {}),
      ...(o.level !== undefined ? { level: o.level } : {}),
      ...(o.allowDifferent === true ? { allowDifferent: true } : {})
    })
    if (result._tag === "Refused") return invalid(`refused: ${result.reason}`)
    const hits = evaluateFailRules(rules, result.comparison)
    out(renderComparison(result.comparison, hits, rules.map((r) => r.source)) + "\n")
    const written: Array<string> = []
    const write = (path: string, text: () => string) => {
      try {
        writeAtomically(path, text())
        written.push(path)
      } catch (e) {
        err(`clustersim compare: could not write ${path}: ${(e as Error).message}\n`)
      }
    }
    if (o.writeJson ?? true) write(join(outDir, "compare.json"), () => JSON.stringify(result.comparison, null, 2) + "\n")
    if (o.html) write(o.htmlFile ?? join(outDir, "compare.html"), () => o.html!(result.comparison, sides))
    if (written.length > 0) out(`comparison: ${written.join(" and ")}\n`)
    const unjudged = result.comparison.pairs.filter((p) => p.series.length === 0)
    if (rules.length > 0 && unjudged.length > 0) {
      const pairs = unjudged.map((p) => `${p.other} vs ${p.baseline}`).join(", ")
      err(`clustersim compare: --fail-if judges no series: ${pairs} ${unjudged.length > 1 ? "have" : "has"} none on both sides${o.select !== undefined ? ` with --select ${o.select}` : ""}\n`)
      return { exitCode: ExitCode.InvalidInput, comparison: result.comparison }
    }
    return { exitCode: hits.length > 0 ? ExitCode.ThresholdsBreached : ExitCode.Pass, comparison: result.comparison }
  })

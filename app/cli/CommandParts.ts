/**
 * What every command's definition shares (./commandLine.ts assembles them): the flag kinds with their help, usage
 * errors and the exit code a handler decides, and loading a command's modules when it runs.
 */
import { HelpDoc, Options, ValidationError } from "@effect/cli"
import { Effect, Option } from "effect"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { defaultsTo } from "./Help.js"

/**
 * Each command loads what it runs when it runs: the simulator, the run pipeline and the reports are most of this
 * program's start-up, and a run against a target that does not answer must say so within 2 s (docs/scenarios.md
 * "Fail fast"); `--help` and usage errors need none of them either.
 */
export const load = <M>(module: () => Promise<M>): Effect.Effect<M> => Effect.promise(module)

/** The exit code a handler decided; @effect/cli handlers return void. */
let exitCode: number = ExitCode.Pass
export const exitWith = (code: number) => Effect.sync(() => void (exitCode = code))
/** Before a command line is run: nothing decided yet. */
export const resetExitCode = (): void => void (exitCode = ExitCode.Pass)
export const decidedExitCode = (): number => exitCode

export const usageError = (message: string) =>
  Effect.sync(() => {
    process.stderr.write(`clustersim: ${message}\nRun "clustersim help" for usage.\n`)
    exitCode = ExitCode.InvalidInput
  })

export const stderrLine = (line: string) => void process.stderr.write(`${line}\n`)

/** An optional text flag; `pseudo` names its value in help (`--out DIR`). */
export const optionalText = (name: string, description: string, pseudo = "TEXT") =>
  Options.text(name).pipe(Options.withPseudoName(pseudo), Options.withDescription(description), Options.optional)

/** A Go duration flag (`5m`, `20s`, `100ms`) with its default; parsed by the handler (./flags.ts). */
export const durationFlag = (name: string, fallback: string, description: string) =>
  Options.text(name).pipe(Options.withPseudoName("DURATION"), defaultsTo(fallback), Options.withDescription(description))

/**
 * An integer flag whose error names it (`--port: not an integer: "abc"`). Digits beyond a safe integer's range
 * (±(2^53 − 1)) are no longer the number given — 99999999999999999999999 reads as 1e+23 — and are refused as a
 * scenario's integer fields refuse them (`seed: Expected an integer, actual 1e+23`, effect/Schema `Int`).
 */
export const integerFlag = (name: string, description: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("N"),
    Options.withDescription(description),
    Options.mapEffect((text) => {
      const invalid = (message: string) => Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name}: ${message}`)))
      if (!/^[+-]?\d+$/.test(text.trim())) return invalid(`not an integer: "${text}"`)
      const n = Number(text)
      return Number.isSafeInteger(n) ? Effect.succeed(n) : invalid(`Expected an integer, actual ${n} (from -${Number.MAX_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER})`)
    })
  )
/** A number flag whose error names it (`--speed: not a number: "abc"`); its range is the caller's to check. */
export const numberFlag = (name: string, description: string) =>
  Options.text(name).pipe(
    Options.withPseudoName("N"),
    Options.withDescription(description),
    Options.mapEffect((text) => {
      // Number("") is 0 and Number("0x10") 16: only a decimal number is one
      const n = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : Number.NaN
      return Number.isNaN(n) ? Effect.fail(ValidationError.invalidValue(HelpDoc.p(`--${name}: not a number: "${text}"`))) : Effect.succeed(n)
    })
  )
export const value = <A>(o: Option.Option<A>): A | undefined => Option.getOrUndefined(o)

/** `--set path=value`, repeatable (app/scenario/SetOverrides.ts). */
export const setOption = Options.text("set").pipe(
  Options.withPseudoName("path=value"),
  Options.repeated,
  Options.optional,
  Options.withDescription(
    "Override one scenario field before validation, e.g. cluster.nodes=5000 or cluster.serviceTime.apf=false; repeatable, applied in order. The value is typed by the field (number, true/false, duration text like 30s). Default: none (docs/scenarios.md \"Overrides\")."
  )
)


/** Shared parsing of command-line flag values. */
import { AutoCorrect, CliConfig } from "@effect/cli"
import { Effect, Either } from "effect"
import { parseDuration } from "../../src/api/go/Duration.js"

export class FlagError extends Error {}

/** A Go-style duration flag (`5m`, `20s`, `100ms`) in milliseconds. */
export const parseDurationFlag = (flag: string, value: string): Effect.Effect<number, FlagError> => {
  const parsed = parseDuration(value)
  return Either.isRight(parsed)
    ? Effect.succeed(parsed.right)
    : Effect.fail(new FlagError(`invalid argument "${value}" for "${flag}" flag: ${parsed.left}`))
}

/** A duration flag whose value is a length of time (a window, an interval, a timeout, a latency): negative is refused. */
export const parseNonNegativeDurationFlag = (flag: string, value: string): Effect.Effect<number, FlagError> =>
  Effect.filterOrFail(parseDurationFlag(flag, value), (ms) => ms >= 0, () => new FlagError(`${flag}: must not be negative, got "${value}"`))

/** Which flags a subcommand takes: those with a value and the switches. */
export interface FlagSpec {
  readonly values: ReadonlyArray<string>
  readonly switches: ReadonlyArray<string>
  /** Value flags that may be given more than once (`--set`, `--vary`); any other flag is refused the second time. */
  readonly repeatable?: ReadonlyArray<string>
  /** Other names of a flag (`-v` of `--verbose`): giving both is giving it twice. */
  readonly aliases?: Readonly<Record<string, string>>
}

/**
 * The `@effect/cli` built-ins a subcommand accepts. `--wizard` (an interactive prompt for every flag) is refused:
 * it is not listed in help and would hang a script waiting on stdin.
 */
export const builtIns: FlagSpec = { values: ["--completions", "--log-level"], switches: ["--help", "-h", "--version"] }

/** The command line's settings for @effect/cli: no built-ins in help; "did you mean" within 2 edits. */
export const cliConfig = CliConfig.make({ showBuiltIns: false, autoCorrectLimit: 2 })

/**
 * The candidate a misspelt name most likely meant: the nearest within `cliConfig.autoCorrectLimit` edits
 * (@effect/cli's Levenshtein distance), else the only one it is a prefix of (cobra's `SuggestionsFor`).
 */
export const closest = (typed: string, candidates: ReadonlyArray<string>): string | undefined => {
  let best: { name: string; distance: number } | undefined
  for (const c of candidates) {
    const distance = AutoCorrect.levensteinDistance(typed, c, cliConfig)
    if (distance <= cliConfig.autoCorrectLimit && (best === undefined || distance < best.distance)) best = { name: c, distance }
  }
  if (best !== undefined) return best.name
  const prefixed = typed.replace(/^-+/, "").length >= 2 ? candidates.filter((c) => c.startsWith(typed)) : []
  return prefixed.length === 1 ? prefixed[0] : undefined
}

const didYouMean = (typed: string, candidates: ReadonlyArray<string>) => {
  const guess = closest(typed, candidates)
  return guess === undefined ? "" : `; did you mean "${guess}"?`
}

/** An unknown subcommand, with the likeliest one it meant (`unknown command "rn"; did you mean "run"?`). */
export const commandProblem = (typed: string, commands: ReadonlyArray<string>): string => `unknown command "${typed}"${didYouMean(typed, commands)}`

/**
 * The first unknown flag, a value flag at the end without its value, or a single-valued flag given twice, in words
 * that name it. The parser reports an unknown flag before a positional as "unknown argument" of the positional, and
 * a flag given twice as an unknown argument; this names the flag and what is wrong with it.
 */
export const flagProblem = (command: string, args: ReadonlyArray<string>, spec: FlagSpec): string | undefined => {
  const given = new Map<string, string>()
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") break
    if (!arg.startsWith("-") || arg === "-") continue
    const name = arg.split("=")[0]!
    const takesValue = spec.values.includes(name) || builtIns.values.includes(name)
    if (!takesValue && !spec.switches.includes(name) && !builtIns.switches.includes(name))
      return `${command}: unknown flag "${name}"${didYouMean(name, [...spec.values, ...spec.switches, "--help", "--version"])}`
    const flag = spec.aliases?.[name] ?? name
    if (!(spec.repeatable ?? []).includes(flag)) {
      const before = given.get(flag)
      if (before !== undefined) {
        const names = before !== name ? ` (as "${before}" and "${name}")` : ""
        return `${command}: flag "${flag}" given twice${names}${takesValue ? ": it takes one value" : ""}`
      }
      given.set(flag, name)
    }
    if (takesValue && !arg.includes("=")) {
      if (i + 1 >= args.length) return `${command}: flag "${name}" needs a value`
      i++
    }
  }
  return undefined
}

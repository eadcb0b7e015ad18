/** Shared parsing of command-line flag values. */
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

/** Which flags a subcommand takes: those with a value and the switches. */
export interface FlagSpec {
  readonly values: ReadonlyArray<string>
  readonly switches: ReadonlyArray<string>
}

/** Flags every subcommand has from `@effect/cli`. */
const builtIns: FlagSpec = { values: ["--completions", "--log-level"], switches: ["--help", "-h", "--wizard", "--version"] }

/**
 * The first unknown flag, or a value flag at the end without its value, in words that name it. The parser
 * reports an unknown flag before a positional as "unknown argument" of the positional; this names the flag.
 */
export const flagProblem = (command: string, args: ReadonlyArray<string>, spec: FlagSpec): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    if (arg === "--") break
    if (!arg.startsWith("-") || arg === "-") continue
    const name = arg.split("=")[0]!
    const takesValue = spec.values.includes(name) || builtIns.values.includes(name)
    if (!takesValue && !spec.switches.includes(name) && !builtIns.switches.includes(name)) return `${command}: unknown flag "${name}"`
    if (takesValue && !arg.includes("=")) {
      if (i + 1 >= args.length) return `${command}: flag "${name}" needs a value`
      i++
    }
  }
  return undefined
}

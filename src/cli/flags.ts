/** Shared parsing of command-line flag values. */
import { Effect, Either } from "effect"
import { parseDuration } from "../api/Duration.js"

export class FlagError extends Error {}

/** A Go-style duration flag (`5m`, `20s`, `100ms`) in milliseconds. */
export const parseDurationFlag = (flag: string, value: string): Effect.Effect<number, FlagError> => {
  const parsed = parseDuration(value)
  return Either.isRight(parsed)
    ? Effect.succeed(parsed.right)
    : Effect.fail(new FlagError(`invalid argument "${value}" for "${flag}" flag: ${parsed.left}`))
}

/**
 * `effect/Schema`s for the Go-formatted scalars of scenario files: durations (`time.ParseDuration`: `500ms`,
 * `1m30s`) and quantities (`resource.ParseQuantity`: `4`, `3500m`, `16Gi`). One parser each (`Duration.ts`,
 * `Quantity.ts`); every section that takes a duration or a quantity decodes it here, so they all accept and refuse
 * the same texts with the same messages.
 */
import { Either, ParseResult, Schema } from "effect"
import { formatDuration, parseDuration } from "./Duration.js"
import { parseQuantity } from "./Quantity.js"

/**
 * The longest duration a scenario may ask for: a day of real or virtual time. Longer runs are a typo (`1000h`) far
 * more often than an intent, and a simulated day of a large cluster already takes hours of wall time
 * (docs/scenarios.md "Bounds").
 */
export const MaxDurationMs = 24 * 3_600_000

const durationProblem = (s: string): string | undefined => {
  const d = parseDuration(s)
  if (Either.isLeft(d)) return d.left
  if (d.right < 0) return "duration must not be negative"
  if (d.right > MaxDurationMs) return `duration must be at most ${formatDuration(MaxDurationMs)}`
  return undefined
}

/** A Go duration string, kept as text (`"20s"`). */
export const DurationString = Schema.String.pipe(
  Schema.filter((s) => durationProblem(s)),
  Schema.annotations({ identifier: "Duration", description: 'Go-style duration: "500ms", "20s", "1m30s" (at most 24h)' })
)

/** A Go duration string, decoded to milliseconds. */
export const DurationMs = Schema.transformOrFail(Schema.String, Schema.Number, {
  strict: true,
  decode: (s, _, ast) => {
    const problem = durationProblem(s)
    return problem !== undefined ? ParseResult.fail(new ParseResult.Type(ast, s, problem)) : ParseResult.succeed(Either.getOrThrow(parseDuration(s)))
  },
  encode: (ms) => ParseResult.succeed(formatDuration(ms))
}).annotations({ identifier: "Duration", description: 'Go-style duration: "500ms", "20s", "1m30s" (at most 24h)' })

/**
 * A period a loop sleeps between passes (a controller's monitor period, the shards' wake-up resolution): 0 would
 * make the loop spin without virtual time ever advancing, so it must be greater than zero.
 */
export const PeriodMs = DurationMs.pipe(
  Schema.filter((ms) => (ms > 0 ? undefined : "must be greater than 0 (a period of 0 would repeat without end)")),
  Schema.annotations({ identifier: "Period", description: 'Go-style duration greater than 0: "500ms", "5s" (at most 24h)' })
)

/** Milliseconds of a duration text the decoder already accepted. */
export const durationMillis = (s: string): number => Either.getOrThrow(parseDuration(s))

/** A quantity (`4`, `3500m`, `16Gi`), kept as text. */
export const QuantityString = Schema.String.pipe(
  Schema.filter((s) => {
    const q = parseQuantity(s)
    return Either.isLeft(q) ? `invalid quantity "${s}": ${q.left}` : undefined
  }),
  Schema.annotations({ identifier: "Quantity", description: 'resource quantity: "4", "3500m", "16Gi"' })
)

/**
 * A quantity that may not be negative (a node's capacity, a request, a rate of growth): upstream's
 * `ValidateNonnegativeQuantity` message.
 */
export const NonNegativeQuantityString = QuantityString.pipe(
  Schema.filter((s) => (Either.getOrThrow(parseQuantity(s)).sign() < 0 ? "must be greater than or equal to 0" : undefined)),
  Schema.annotations({ identifier: "NonNegativeQuantity", description: 'resource quantity, not negative: "4", "3500m", "16Gi"' })
)

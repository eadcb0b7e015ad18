import { Either, ParseResult, Schema } from "effect"
import { parseDuration } from "../../src/api/Duration.js"

/** A Go duration string, decoded to milliseconds. */
export const DurationMs = Schema.transformOrFail(Schema.String, Schema.Number, {
  strict: true,
  decode: (s, _, ast) =>
    Either.match(parseDuration(s), {
      onLeft: (e) => Either.left(new ParseResult.Type(ast, s, e)),
      onRight: (ms) => Either.right(ms)
    }),
  encode: (ms) => Either.right(`${ms}ms`)
})

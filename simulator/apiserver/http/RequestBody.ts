/** A request's body: read up to the byte limit (413 past it), and its JSON text parsed (400 naming the error). */
import type * as http from "node:http"
import { Effect, Either } from "effect"
import { parseDocument } from "yaml"
import { goJsonSyntaxError } from "../../../src/api/go/JsonSyntaxError.js"
import { depthOverflowInText, maxBodyNestingDepth } from "../../../src/api/JsonDepth.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { Body } from "../ApiServer.js"
import { aliasExpansionProblem } from "./YamlAliases.js"

export const readBody = (req: http.IncomingMessage, maxBodyBytes: number): Promise<Either.Either<Buffer, ApiError>> =>
  new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    let tooLarge = false
    req.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBodyBytes) tooLarge = true
      else chunks.push(chunk)
    })
    req.on("end", () =>
      resolve(tooLarge ? Either.left(Status.requestEntityTooLarge(`Request entity too large: limit is ${maxBodyBytes}`)) : Either.right(Buffer.concat(chunks)))
    )
    req.on("error", () => resolve(Either.left(Status.badRequest("error reading request body"))))
  })

/**
 * JSON text of a body; malformed JSON is a 400 whose message `refusal` makes of Go's `encoding/json` error
 * (src/api/go/JsonSyntaxError.ts), never V8's wording.
 */
export const parseJsonBody = (text: string, refusal: (jsonError: string) => string): Either.Either<Body, ApiError> => {
  try {
    return Either.right({ value: JSON.parse(text), raw: text })
  } catch (e) {
    return Either.left(Status.badRequest(refusal(goJsonSyntaxError(text, e))))
  }
}

/**
 * YAML text's value (JSON is YAML too): nesting and aliases bounded before anything is expanded, an unparseable
 * document a 400 `error decoding <what>: …` / `error decoding YAML: …`, as upstream's YAML serializer answers.
 */
export const parseYamlBody = (text: string, maxBodyBytes: number, what: string): Either.Either<Body, ApiError> => {
  // Checked before parsing: the YAML parser recurses per level, and a deep enough document exhausts the stack
  // in a way V8 cannot turn into an exception (found by test/hardening/fuzz.test.ts).
  if (yamlDepthExceeds(text, maxBodyNestingDepth)) return Either.left(Status.badRequest(`error decoding ${what}: exceeded max depth of ${maxBodyNestingDepth}`))
  try {
    const doc = parseDocument(text)
    if (doc.errors.length > 0) throw doc.errors[0]
    // Aliases bounded here, so the library's own alias count (100 per anchor, whatever its size) is not needed.
    const aliasing = aliasExpansionProblem(doc, maxBodyBytes)
    if (aliasing !== undefined) return Either.left(Status.badRequest(`error decoding YAML: ${aliasing}`))
    return Either.right({ value: doc.toJS({ maxAliasCount: -1 }) ?? null })
  } catch (e) {
    return Either.left(Status.badRequest(`error decoding YAML: ${(e as Error).message}`))
  }
}

/** An apply body (`application/apply-patch+yaml`): YAML, of which JSON is a part; unparseable text is a 400. */
export const readApplyBody = (req: http.IncomingMessage, maxBodyBytes: number): Effect.Effect<Body, ApiError> =>
  Effect.flatMap(
    Effect.flatMap(Effect.promise(() => readBody(req, maxBodyBytes)), (b) => b),
    (bytes) => parseYamlBody(bytes.toString("utf8"), maxBodyBytes, "patch")
  )

/**
 * Whether YAML text may nest deeper than `limit`: flow collections counted as JSON's brackets, block collections
 * bounded by a line's indentation plus its leading `- ` markers (each block level takes at least one of them).
 * Conservative: a document this deep is refused, never parsed.
 */
export const yamlDepthExceeds = (text: string, limit: number): boolean => {
  if (depthOverflowInText(text, limit) !== undefined) return true
  let column = 0
  let leading = true
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === 10) {
      column = 0
      leading = true
    } else if (leading && (c === 32 || c === 45 || c === 9 || c === 63 || c === 58)) {
      // spaces, tabs, and the `-`, `?`, `:` indicators that open a nested block on the same line
      if (++column > limit) return true
    } else leading = false
  }
  return false
}

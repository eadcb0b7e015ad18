/** A request's body: read up to the byte limit (413 past it), and its JSON text parsed (400 naming the error). */
import type * as http from "node:http"
import { Effect, Either } from "effect"
import { parse as parseYaml } from "yaml"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { Body } from "../ApiServer.js"

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

/** JSON text of a body; malformed JSON is a 400 naming the parse error. */
export const parseJsonBody = (text: string, what: string): Either.Either<Body, ApiError> => {
  if (text.trim() === "") return Either.left(Status.badRequest(`${what}: json parse error: unexpected end of JSON input`))
  try {
    return Either.right({ value: JSON.parse(text), raw: text })
  } catch (e) {
    return Either.left(Status.badRequest(`${what}: json parse error: ${(e as Error).message}`))
  }
}

/** An apply body (`application/apply-patch+yaml`): YAML, of which JSON is a part; unparseable text is a 400. */
export const readApplyBody = (req: http.IncomingMessage, maxBodyBytes: number): Effect.Effect<Body, ApiError> =>
  Effect.flatMap(
    Effect.flatMap(Effect.promise(() => readBody(req, maxBodyBytes)), (b) => b),
    (bytes) => {
      const text = bytes.toString("utf8")
      try {
        return Effect.succeed({ value: parseYaml(text) ?? null })
      } catch (e) {
        return Effect.fail(Status.badRequest(`error decoding YAML: ${(e as Error).message}`))
      }
    }
  )

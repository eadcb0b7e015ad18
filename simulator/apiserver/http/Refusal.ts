/**
 * Answers to a request refused before any handler, as upstream's filters give them: a request target Go's server
 * cannot read, a path `WithRequestInfo` cannot make sense of, and a Status (401, 403, APF's 429) in the
 * representation the client accepts.
 */
import type * as http from "node:http"
import { Either } from "effect"
import { negotiate } from "../../../src/api/MediaType.js"
import type { ApiError } from "../../../src/api/Status.js"
import { isPrettyRequest } from "./QueryParams.js"
import { Responder } from "./Responder.js"

/**
 * A request target Go's `url.ParseRequestURI` refuses (a malformed escape such as `%ZZ`): Go's server answers it
 * before any handler, so before authentication, with this plain text, and closes the connection (`net/http`
 * `conn.serve`).
 */
export const malformedTarget = (res: http.ServerResponse): void => {
  res.writeHead(400, { "Content-Type": "text/plain; charset=utf-8", Connection: "close", "Content-Length": "15" })
  res.end("400 Bad Request")
}

/**
 * `/api/v1/watch` with nothing after: upstream's `WithRequestInfo` filter fails before authentication and answers
 * with `responsewriters.InternalError` (`http.Error`: plain text, the URL quoted and HTML-escaped).
 */
export const undeterminedRequest = (req: http.IncomingMessage, res: http.ServerResponse, message: string): void => {
  const text = `Internal Server Error: ${JSON.stringify(req.url ?? "/")}: ${message}`.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
  const bytes = Buffer.from(`${text}\n`)
  res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff", "Content-Length": String(bytes.length) })
  res.end(bytes)
}

/** A 401, 403 or 429 before any routing (upstream's filters run first), in the representation the client accepts. */
export const refuse = (req: http.IncomingMessage, res: http.ServerResponse, query: URLSearchParams, error: ApiError): void => {
  const out = new Responder(req, res, isPrettyRequest(query, req.headers["user-agent"]))
  const negotiated = req.headers.accept === undefined ? undefined : negotiate(req.headers.accept, { watch: false })
  if (negotiated !== undefined && Either.isRight(negotiated) && typeof negotiated.right === "string") out.representation = negotiated.right
  out.error(error)
}

/**
 * `/metrics` as kube-apiserver answers it (docs/metrics.md): its handler is registered on the non-GoRestful mux
 * (`server/routes/metrics.go` `MetricsWithReset`, installed with profiling on, the default), where client_golang's
 * `promhttp.HandlerFor` answers every method alike — a HEAD gets the headers, a POST the exposition (authorization
 * still judges the method's verb: `post` on `/metrics`) — save DELETE, which resets the registry there and is refused
 * 405 here (docs/metrics.md). promhttp negotiates the format from `Accept` (`expfmt.NegotiateIncludingOpenMetrics`)
 * and compresses with gzip when `Accept-Encoding` names it (`promhttp/http.go` `gzipAccepted`), as Prometheus asks on
 * every scrape. Only this answer is compressed: the API's own responses stay as they are.
 */
import type * as http from "node:http"
import { promisify } from "node:util"
import { gzip } from "node:zlib"
import { Effect } from "effect"
import * as Status from "../../../src/api/Status.js"
import type { Responder } from "./Responder.js"
import type { ServerMetrics } from "./ServerMetrics.js"

const gzipAsync = promisify(gzip)

interface AcceptClause {
  readonly type: string
  readonly q: number
  readonly version: string | undefined
}

/** `goautoneg.ParseAccept`: each clause's media type, q (default 1) and `version` parameter; highest q first. */
const acceptClauses = (accept: string): ReadonlyArray<AcceptClause> => {
  const clauses: Array<AcceptClause> = []
  for (const part of accept.split(",")) {
    const [range = "", ...params] = part.split(";")
    const type = range.trim().toLowerCase()
    if (!type.includes("/") && type !== "*") continue
    let q = 1
    let version: string | undefined
    for (const param of params) {
      const eq = param.indexOf("=")
      if (eq < 0) continue
      const name = param.slice(0, eq).trim()
      const value = param.slice(eq + 1).trim()
      if (name === "q") q = Number.parseFloat(value) || 0
      else if (name === "version") version = value
    }
    clauses.push({ type, q, version })
  }
  // a stable sort: of equal q the header's order decides (Go's sort.Sort does not promise one)
  return clauses.sort((a, b) => b.q - a.q)
}

/**
 * True when `accept` asks for OpenMetrics before the text format (`expfmt.NegotiateIncludingOpenMetrics`): the first
 * clause, by q, naming `text/plain` (version 0.0.4 or none) or `application/openmetrics-text` (0.0.1, 1.0.0 or
 * none) decides; none of them: the text format. A clause of q=0 is not acceptable (RFC 9110 §12.4.2) and is skipped.
 */
export const asksForOpenMetrics = (accept: string | undefined): boolean => {
  if (accept === undefined) return false
  for (const c of acceptClauses(accept)) {
    if (c.q <= 0) continue
    if (c.type === "text/plain" && (c.version === undefined || c.version === "0.0.4")) return false
    if (c.type === "application/openmetrics-text" && (c.version === undefined || c.version === "0.0.1" || c.version === "1.0.0")) return true
  }
  return false
}

/** promhttp's `gzipAccepted`: a clause that is `gzip` or starts `gzip;` (its q is not read). */
export const gzipAccepted = (acceptEncoding: string | undefined): boolean =>
  acceptEncoding !== undefined && acceptEncoding.split(",").some((part) => {
    const p = part.trim()
    return p === "gzip" || p.startsWith("gzip;")
  })

/** Answers a request for `/metrics` (any method but DELETE) with the exposition. */
export const serveMetrics = (metrics: ServerMetrics, req: http.IncomingMessage, out: Responder): Effect.Effect<void> => {
  if (req.method === "DELETE") return Effect.sync(() => out.error(Status.methodNotAllowed()))
  const compress = gzipAccepted(req.headers["accept-encoding"])
  return Effect.promise(async () => {
    const m = await metrics.exposition(asksForOpenMetrics(req.headers.accept))
    // compressed off the event loop (zlib's thread pool): the 3-node demo's exposition is ~0.5 MB
    if (compress) out.bytes(200, m.contentType, await gzipAsync(m.body), { "Content-Encoding": "gzip" })
    else out.raw(200, m.contentType, m.body)
  })
}

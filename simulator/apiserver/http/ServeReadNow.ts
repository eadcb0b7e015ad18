/** The HTTP server's fast read path, through the API server's synchronous reads (`getNow`, `listNow`). */
import type * as http from "node:http"
import { Either } from "effect"
import { negotiate, type Representation } from "../../../src/api/MediaType.js"
import { WaitFor, type ApiServerImpl } from "../ApiServer.js"
import type { ParsedRequest } from "../RequestInfo.js"
import { isPrettyRequest, queryInt } from "./QueryParams.js"
import { Responder } from "./Responder.js"
import type { Parsed } from "./Routes.js"
import { listOptionsOf } from "./ServeResource.js"

/**
 * Plain GETs and LISTs answered on the spot, without a fiber: they are most of a load test's traffic and
 * need no waiting. Anything else — watches, waits for a newer revision, a paused server, other media
 * types — returns false and takes the general path (./ServeResource.ts), which answers it alike.
 */
export const serveReadNow = (api: ApiServerImpl, now: number, req: http.IncomingMessage, res: http.ServerResponse, parsed: Parsed, { query }: ParsedRequest): boolean => {
  const accept = req.headers.accept
  let representation: Representation = "json"
  if (accept !== undefined && accept !== "application/json" && accept !== "*/*") {
    const negotiated = negotiate(accept, { watch: false })
    if (Either.isLeft(negotiated) || typeof negotiated.right !== "string") return false
    representation = negotiated.right
  }
  if (query.has("watch")) return false
  if (parsed._tag !== "resource" || parsed.route.subresource !== undefined || parsed.route.view || parsed.route.watch || parsed.route.resource.virtual) return false
  const limit = queryInt(query, "limit")
  // A malformed limit or timeoutSeconds: the general path answers its 400.
  if (Either.isLeft(limit) || Either.isLeft(queryInt(query, "timeoutSeconds"))) return false
  const { resource, name, namespace } = parsed.route
  // The request entry every transport goes through (false while paused: the general path waits).
  if (!api.admission.enterNow(now)) return false
  const out = new Responder(req, res, isPrettyRequest(query, req.headers["user-agent"]))
  out.representation = representation
  if (name === undefined) {
    const list = api.listNow(resource, listOptionsOf(query, namespace, limit.right))
    if (list instanceof WaitFor) return false
    if (Either.isLeft(list)) out.error(list.left)
    else out.body(200, list.right)
    return true
  }
  const obj = api.getNow(resource, name, { namespace, resourceVersion: query.get("resourceVersion") ?? undefined })
  if (obj instanceof WaitFor) return false
  if (Either.isLeft(obj)) out.error(obj.left)
  else out.object(obj.right)
  return true
}

/**
 * Serves the OpenAPI documents (`src/api/openapi/`): `/openapi/v3` (the index), `/openapi/v3/<group-version
 * path>` and `/openapi/v2` in JSON or the protobuf form kubectl asks for. The documents are built once per
 * server process: they depend only on the served types.
 *
 * Caching as upstream's `kube-openapi` handlers: every document has an `ETag` (its SHA-512) and answers
 * `If-None-Match` with 304; a v3 document fetched with the index's current `?hash=` is immutable, one fetched with
 * a stale hash is redirected (301) to the current one.
 */
import type * as http from "node:http"
import { documentHash, openApiV2Document, openApiV3Document, openApiV3Index, openApiV3Paths } from "../../../src/api/openapi/Documents.js"
import { encodeOpenApiV2, protobufV2ContentType, protobufV2MediaType } from "../../../src/api/openapi/ProtobufV2.js"
import * as Status from "../../../src/api/Status.js"
import { versionInfo } from "../Discovery.js"
import { Responder } from "../http/Responder.js"

interface Served {
  readonly bytes: Buffer
  readonly contentType: string
  readonly hash: string
}

const served = (bytes: Uint8Array, contentType: string): Served => ({ bytes: Buffer.from(bytes), contentType, hash: documentHash(bytes) })
const json = (doc: unknown): Served => served(Buffer.from(JSON.stringify(doc)), "application/json")

const info = { version: versionInfo.gitVersion }

/** Built on first use, then kept: the documents never change while the process runs. */
const lazy = <A>(build: () => A): (() => A) => {
  let value: { a: A } | undefined
  return () => (value ??= { a: build() }).a
}

const v3Documents = lazy(() => new Map(openApiV3Paths().map((p) => [p, json(openApiV3Document(info, p))])))
const v3Index = lazy(() => json(openApiV3Index((p) => v3Documents().get(p)!.hash)))
const v2Document = lazy(() => openApiV2Document(info))
const v2Json = lazy(() => json(v2Document()))
const v2Protobuf = lazy(() => served(encodeOpenApiV2(v2Document()), protobufV2ContentType))

/** Both spellings of the protobuf v2 type, as upstream accepts them. */
const protobufV2Types = [protobufV2MediaType, protobufV2ContentType]

/** Whether a request path is one of the OpenAPI documents' (the route table sends it here). */
export const isOpenApiPath = (path: string): boolean => path === "/openapi/v2" || path === "/openapi/v3" || path.startsWith("/openapi/v3/")

const accepts = (accept: string | undefined, types: ReadonlyArray<string>): boolean =>
  accept !== undefined && accept.split(",").some((entry) => types.includes(entry.split(";")[0]!.trim().toLowerCase()))

const send = (req: http.IncomingMessage, res: http.ServerResponse, doc: Served, cacheControl: string): void => {
  const etag = `"${doc.hash}"`
  const headers = { "Content-Type": doc.contentType, "Cache-Control": cacheControl, ETag: etag, Vary: "Accept" }
  if (req.headers["if-none-match"] === etag) {
    res.writeHead(304, headers)
    return void res.end()
  }
  res.writeHead(200, { ...headers, "Content-Length": String(doc.bytes.length) })
  res.end(req.method === "HEAD" ? undefined : doc.bytes)
}

const notFound = (res: http.ServerResponse): void => {
  res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" })
  res.end("404 page not found\n")
}

/** Answers a request whose path {@link isOpenApiPath} accepted. */
export const serveOpenApi = (path: string, query: URLSearchParams, req: http.IncomingMessage, res: http.ServerResponse): void => {
  if (req.method !== "GET" && req.method !== "HEAD") return new Responder(req, res, false).error(Status.methodNotAllowed())
  const accept = req.headers.accept
  if (path === "/openapi/v2") return send(req, res, accepts(accept, protobufV2Types) ? v2Protobuf() : v2Json(), "no-cache, private")
  if (path === "/openapi/v3") return send(req, res, v3Index(), "no-cache, private")
  const gvPath = path.slice("/openapi/v3/".length)
  const doc = v3Documents().get(gvPath)
  if (doc === undefined) return notFound(res)
  const hash = query.get("hash")
  if (hash !== null && hash !== "" && hash !== doc.hash) {
    res.writeHead(301, { Location: `/openapi/v3/${gvPath}?hash=${doc.hash}`, "Cache-Control": "no-cache, private" })
    return void res.end()
  }
  send(req, res, doc, hash === doc.hash ? "public, immutable" : "no-cache, private")
}

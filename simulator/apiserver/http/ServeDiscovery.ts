/**
 * Serves an aggregated discovery document with upstream's caching (`discovery/aggregated/etag.go`): an `ETag`
 * (the document's hash) and `Vary: Accept`; a request whose `If-None-Match` names the current ETag gets 304 with
 * no body, which is how client-go's discovery cache revalidates.
 */
import { randomUUID } from "node:crypto"
import type * as http from "node:http"
import { aggregatedDiscovery, aggregatedDiscoveryContentType, discoveryETag } from "../AggregatedDiscovery.js"

/** One encoding per root and version: the served types are fixed for the process's life. */
const documents = new Map<string, { readonly bytes: Buffer; readonly etag: string }>()

const document = (root: "api" | "apis", version: string) => {
  const key = `${root}/${version}`
  let doc = documents.get(key)
  if (doc === undefined) {
    const bytes = Buffer.from(JSON.stringify(aggregatedDiscovery(root, version)))
    doc = { bytes, etag: discoveryETag(bytes) }
    documents.set(key, doc)
  }
  return doc
}

export const serveAggregatedDiscovery = (req: http.IncomingMessage, res: http.ServerResponse, root: "api" | "apis", version: string): void => {
  const doc = document(root, version)
  const headers = {
    "Content-Type": aggregatedDiscoveryContentType(version),
    "Cache-Control": "no-cache, private",
    "Audit-Id": randomUUID(),
    ETag: doc.etag,
    Vary: "Accept"
  }
  if (req.headers["if-none-match"] === doc.etag) {
    res.writeHead(304, headers)
    return void res.end()
  }
  res.writeHead(200, { ...headers, "Content-Length": String(doc.bytes.length) })
  res.end(doc.bytes)
}

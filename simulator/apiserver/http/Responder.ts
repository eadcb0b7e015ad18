/**
 * Writes one answer: an API object, list or Status in the negotiated representation (through the route's view or
 * as a Table when asked), JSON documents and plain texts, with the headers upstream sends (Audit-Id, no-cache).
 */
import { randomUUID } from "node:crypto"
import type * as http from "node:http"
import { Either } from "effect"
import { negotiate, type Representation } from "../../../src/api/MediaType.js"
import { bodyToWire, type ResourceView } from "../../../src/api/ServedNames.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import { auditOf } from "./AuditFilter.js"
import { encodeBody, encodeJson, tableBody, type TableRequest } from "./Representation.js"

export class Responder {
  /** The answer's representation once negotiated (documents, admin answers and route errors stay JSON). */
  representation: Representation = "json"
  /** The route's view of its stored type (docs/upstream-names.md), applied to every answer body. */
  view: ResourceView | undefined = undefined
  /** Set when a Table was negotiated: answer bodies become Tables. */
  table: TableRequest | undefined = undefined

  constructor(
    readonly req: http.IncomingMessage,
    readonly res: http.ServerResponse,
    readonly pretty: boolean
  ) {}

  private headers(contentType: string): Record<string, string> {
    // the audit filter set the request's Audit-Id (http/AuditFilter.ts); otherwise a new one
    const auditId = this.res.getHeader("audit-id")
    return { "Content-Type": contentType, "Cache-Control": "no-cache, private", "Audit-Id": typeof auditId === "string" ? auditId : randomUUID() }
  }

  /** Always JSON: discovery documents and admin answers. */
  json(code: number, body: unknown, extra: Record<string, string | string[]> = {}): void {
    this.send(code, "application/json", encodeJson(body, this.pretty), extra)
  }

  /** An API object, list or Status in the negotiated representation. */
  body(code: number, body: object, extra: Record<string, string | string[]> = {}, stored = false): void {
    const accept = this.req.headers.accept
    if (this.table) {
      body = tableBody(this.table, body)
      stored = false
    } else if (this.view) {
      body = bodyToWire(this.view, body)
      stored = false
    }
    auditOf(this.res)?.responseBody(body)
    const encoded = encodeBody(this.representation, body, { pretty: this.pretty, accept, stored })
    if (Either.isRight(encoded)) return this.send(code, encoded.right.contentType, encoded.right.bytes, extra)
    // No lossless protobuf form (docs/protobuf.md): the client's next acceptable type, else 406.
    const fallback = negotiate(accept, { watch: false, protobuf: false })
    if (Either.isRight(fallback)) return this.send(code, "application/json", encodeJson(body, this.pretty, stored), extra)
    this.error(Status.notAcceptable(encoded.left.message))
  }

  /** A single stored object (GET): its bytes are cached per stored version. */
  object(obj: object): void {
    this.body(200, obj, {}, true)
  }

  private send(code: number, contentType: string, bytes: Buffer, extra: Record<string, string | string[]>): void {
    // A Content-Length lets node:http send headers and body in one write instead of chunked encoding.
    this.res.writeHead(code, { ...this.headers(contentType), "Content-Length": String(bytes.length), ...extra })
    this.res.end(bytes)
  }

  /** A body in a type of its own (the metrics exposition). */
  raw(code: number, contentType: string, body: string): void {
    this.send(code, contentType, Buffer.from(body), {})
  }

  /** Encoded bytes in a type of their own (the metrics exposition, gzipped: `Content-Encoding` in `extra`). */
  bytes(code: number, contentType: string, bytes: Buffer, extra: Record<string, string>): void {
    this.send(code, contentType, bytes, extra)
  }

  text(code: number, body: string): void {
    const bytes = Buffer.from(body)
    this.res.writeHead(code, {
      ...this.headers("text/plain; charset=utf-8"),
      "X-Content-Type-Options": "nosniff",
      "Content-Length": String(bytes.length)
    })
    this.res.end(bytes)
  }

  error(error: ApiError, extra: Record<string, string> = {}): void {
    const retry = error.status.details?.retryAfterSeconds
    this.body(error.code, error.status, retry ? { "Retry-After": String(retry), ...extra } : extra)
  }
}

/**
 * Sends seeded hostile requests (requests.ts) to an API server over HTTP and sorts the answers. A finding is
 * a hang (no answer within `hangMs`), a dropped connection, an unexpected 5xx (anything but upstream's 504
 * Timeout), or an error answer from an API route that is not a `Status` (JSON, or protobuf with the `k8s\0`
 * magic) — upstream's plain-text `404 page not found` for unknown paths excepted.
 */
import { Either } from "effect"
import { Agent, request } from "undici"
import { decodeObject } from "../../src/api/protobuf/Envelope.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"
import { nextRequest, type FuzzRequest } from "./requests.js"

export interface FuzzFinding {
  readonly kind: "hang" | "dropped" | "unexpected 5xx" | "non-Status error"
  readonly request: string
  readonly detail: string
}

export interface FuzzReport {
  readonly requests: number
  readonly byStatus: Record<string, number>
  readonly findings: ReadonlyArray<FuzzFinding>
  readonly durationMs: number
  /** The slowest requests, slowest first. */
  readonly slowest: ReadonlyArray<{ readonly request: string; readonly ms: number }>
}

export interface FuzzOptions {
  readonly baseUrl: string
  readonly requests: number
  readonly seed: number
  /** Requests in flight at once. */
  readonly concurrency?: number
  readonly hangMs?: number
  readonly onProgress?: (done: number) => void
}

const documented500 = /^(resourceVersion: Invalid value: ".*": strconv\.ParseUint: parsing ".*": (invalid syntax|value out of range)|resourceVersion should not be set on objects to be created)$/s

const describe = (r: FuzzRequest) => `${r.method} ${r.path.slice(0, 160)}${r.path.length > 160 ? "…" : ""}`

/** What is wrong with an answer, if anything. */
export const judge = (r: FuzzRequest, code: number, contentType: string, body: Buffer): Omit<FuzzFinding, "request"> | undefined => {
  const apiRoute = /^\/apis?(\/|$|\?)/.test(r.path)
  if (code >= 500) {
    const status = statusOf(contentType, body)
    if (code === 504 && status?.reason === "Timeout") return undefined
    // Upstream's own 500s without a reason (apimachinery `errors.go`, a non-Status error): a non-numeric or past-uint64
    // resourceVersion on a cache-served read, a resourceVersion on a create.
    if (code === 500 && status?.kind === "Status" && status.reason === undefined && documented500.test(String(status.message))) return undefined
    return { kind: "unexpected 5xx", detail: `${code} ${body.subarray(0, 300).toString("utf8")}` }
  }
  if (!apiRoute || code < 400 || r.method === "HEAD") return undefined
  if (code === 404 && contentType.startsWith("text/plain") && body.toString("utf8") === "404 page not found\n") return undefined
  // Go's own answer to a request target it cannot parse (a malformed escape such as %zz), before any handler
  // (net/http `conn.serve`): plain text, as upstream sends it.
  if (code === 400 && contentType.startsWith("text/plain") && body.toString("utf8") === "400 Bad Request") return undefined
  const status = statusOf(contentType, body)
  if (status?.kind === "Status" && status.code === code) return undefined
  return { kind: "non-Status error", detail: `${code} ${contentType} ${body.subarray(0, 300).toString("utf8")}` }
}

/** The answer as an object: JSON, or a protobuf envelope. */
const statusOf = (contentType: string, body: Buffer): Record<string, unknown> | undefined => {
  if (!contentType.startsWith("application/vnd.kubernetes.protobuf")) return safeJson(body)
  const decoded = decodeObject(body, { apiVersion: "v1", kind: "Status" })
  return Either.isRight(decoded) ? (decoded.right.object as unknown as Record<string, unknown>) : undefined
}

const safeJson = (body: Buffer): Record<string, unknown> | undefined => {
  try {
    const v: unknown = JSON.parse(body.toString("utf8"))
    return typeof v === "object" && v !== null ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

export const runFuzz = async (options: FuzzOptions): Promise<FuzzReport> => {
  const rng = SeededRandom.make(options.seed)
  const hangMs = options.hangMs ?? 10_000
  const concurrency = options.concurrency ?? 16
  const agent = new Agent({ connections: concurrency, headersTimeout: hangMs, bodyTimeout: hangMs })
  const byStatus: Record<string, number> = {}
  const findings: FuzzFinding[] = []
  // A namespace of the generator's, so that some creates go through and later requests find objects.
  await request(options.baseUrl + "/api/v1/namespaces", {
    dispatcher: agent,
    method: "POST",
    headers: { "content-type": "application/json" },
    body: '{"metadata":{"name":"fuzz"}}'
  }).then((res) => res.body.dump())
  const started = performance.now()
  let issued = 0
  let done = 0
  const slowest: Array<{ request: string; ms: number }> = []
  const one = async (r: FuzzRequest): Promise<void> => {
    const begun = performance.now()
    try {
      const res = await request(options.baseUrl + r.path, {
        dispatcher: agent,
        method: r.method as "GET",
        headers: r.headers,
        ...(r.body !== undefined ? { body: r.body } : {})
      })
      byStatus[res.statusCode] = (byStatus[res.statusCode] ?? 0) + 1
      if (r.watch && res.statusCode === 200) {
        // Hang up once the stream has begun; the body's abort error is expected.
        res.body.on("error", () => {})
        res.body.destroy()
        return
      }
      const body = Buffer.from(await res.body.arrayBuffer())
      const contentType = String(res.headers["content-type"] ?? "")
      const finding = judge(r, res.statusCode, contentType, body)
      if (finding) findings.push({ ...finding, request: describe(r) })
    } catch (e) {
      const code = (e as { code?: string }).code ?? ""
      if (code === "UND_ERR_INVALID_ARG") return void (byStatus["client-refused"] = (byStatus["client-refused"] ?? 0) + 1)
      const timedOut = code === "UND_ERR_HEADERS_TIMEOUT" || code === "UND_ERR_BODY_TIMEOUT"
      findings.push({ kind: timedOut ? "hang" : "dropped", request: describe(r), detail: `${code} ${(e as Error).message}` })
    } finally {
      const ms = performance.now() - begun
      if (slowest.length < 10 || ms > slowest[slowest.length - 1]!.ms) {
        slowest.push({ request: describe(r), ms: Math.round(ms) })
        slowest.sort((a, b) => b.ms - a.ms)
        slowest.length = Math.min(slowest.length, 10)
      }
      done++
      options.onProgress?.(done)
    }
  }
  const worker = async () => {
    while (issued < options.requests) {
      issued++
      await one(nextRequest(rng))
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  await agent.close()
  return { requests: done, byStatus, findings, durationMs: performance.now() - started, slowest }
}

/**
 * One line per answered request (`clustersim serve -v`), shaped as kube-apiserver's httplog line
 * (`apiserver/pkg/server/httplog/httplog.go` `respLogger.Log`, a klog `InfoS("HTTP", …)`):
 *
 *   I1129 08:58:29.123456 httplog] "HTTP" verb="LIST" URI="/api/v1/pods?limit=500" latency="1.234567ms" user="admin" userAgent="kubectl/v1.27.4" srcIP="127.0.0.1:54321" resp=200
 *
 * The verb is upstream's metrics verb (`metrics.CanonicalVerb`, `CleanVerb`): LIST for a GET of a collection,
 * WATCH, APPLY for a server-side apply; otherwise the method. Not upstream's: `user` (the authenticated user, after
 * impersonation; absent when authentication failed) — the one thing a reader of this log asks next; `audit-ID` only
 * when the server audits (`serve --audit-log-path`: the id of the request's audit events, docs/audit.md). klog's pid
 * and file:line are left out of the header.
 */
import { formatDurationNanos } from "../../../src/api/go/Duration.js"
import { goQuote } from "../../../src/api/go/Quote.js"
import type { RequestInfo } from "../RequestInfo.js"

export interface RequestLogEntry {
  /** When the request arrived (the server's clock, ns since the epoch). */
  readonly startNanos: bigint
  readonly method: string
  /** The request target as sent: path and query. */
  readonly uri: string
  /** The parsed request, when the URL could be read. */
  readonly info: RequestInfo | undefined
  readonly contentType: string | undefined
  readonly user: string | undefined
  readonly userAgent: string | undefined
  /** The request's audit id, when it is audited. */
  readonly auditID?: string | undefined
  readonly srcIP: string
  readonly status: number
  readonly latencyNanos: bigint
}

/** Upstream's metrics verb: the method, LIST / WATCH from the request's API verb, APPLY for an apply patch. */
export const canonicalVerb = (method: string, info: RequestInfo | undefined, contentType: string | undefined): string => {
  const m = method.toUpperCase()
  if (info?.isResourceRequest && info.verb === "watch") return "WATCH"
  if (info?.isResourceRequest && info.verb === "list" && m === "GET") return "LIST"
  if (m === "PATCH" && contentType?.split(";")[0]?.trim() === "application/apply-patch+yaml") return "APPLY"
  return m
}

const two = (n: number) => String(n).padStart(2, "0")

/** klog's header time, `mmdd hh:mm:ss.uuuuuu` (UTC here, so lines from different machines compare). */
const klogTime = (nanos: bigint): string => {
  const d = new Date(Number(nanos / 1_000_000n))
  const micros = String((nanos / 1000n) % 1_000_000n).padStart(6, "0")
  return `${two(d.getUTCMonth() + 1)}${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${micros}`
}

/** The line, without its newline. */
export const formatRequestLog = (e: RequestLogEntry): string =>
  [
    `I${klogTime(e.startNanos)} httplog] "HTTP"`,
    `verb=${goQuote(canonicalVerb(e.method, e.info, e.contentType))}`,
    `URI=${goQuote(e.uri)}`,
    `latency=${goQuote(formatDurationNanos(e.latencyNanos))}`,
    ...(e.user !== undefined ? [`user=${goQuote(e.user)}`] : []),
    `userAgent=${goQuote(e.userAgent ?? "")}`,
    ...(e.auditID !== undefined ? [`audit-ID=${goQuote(e.auditID)}`] : []),
    `srcIP=${goQuote(e.srcIP)}`,
    `resp=${e.status}`
  ].join(" ")

/**
 * A real target's own latency figures (run.json `server`, src/loadgen/ServerLatency.ts) beside the client's, for the
 * summary and the HTML report: one row per phase and call — the server's p50/p90/p99 from its histogram buckets, the
 * bucket the p99 lies in, and the client's p99 of the same phase, verb, resource and scope — or why there are none.
 */
import type { RunArtifact } from "../src/loadgen/Artifact.js"
import { decodeHistogram, mergeHistograms } from "../src/loadgen/LatencyRecorder.js"
import { shownPercentile } from "../src/loadgen/ShownPercentile.js"
import { callLabel, type ServerCallFigures, type ServerQuantile, type ServerSideReport } from "../src/loadgen/ServerLatency.js"
import { formatMs } from "./format.js"

export interface ServerRow {
  readonly phase: string
  readonly call: ServerCallFigures
  /** The client's p99 (ms, from the intended start) of the same phase and call; undefined when it made none. */
  readonly clientP99: number | undefined
}

/** The client's p99 of the call in the phase: its series of that phase, verb, resource and scope pooled. */
const clientP99 = (a: RunArtifact, phase: string, c: ServerCallFigures): number | undefined => {
  const resource = c.subresource ? `${c.resource}/${c.subresource}` : c.resource
  const same = a.series.filter(
    (s) => s.key.metric === "api_call" && s.key.phase === phase && s.key.operation.toUpperCase() === c.verb && s.key.resource === resource && s.key.scope === c.scope
  )
  if (same.length === 0) return undefined
  const h = mergeHistograms(same.map((s) => decodeHistogram(s.latencyHistogram)))
  return h.totalCount === 0 ? undefined : shownPercentile(h.getValueAtPercentile(99) / 1000, Math.max(...same.map((s) => s.latency.max)))
}

export const serverRows = (a: RunArtifact): ReadonlyArray<ServerRow> =>
  (a.server?.phases ?? []).flatMap((p) => p.calls.map((call) => ({ phase: p.phase, call, clientP99: clientP99(a, p.phase, call) })))

/** `(50ms, 100ms]`, `> 60s` for the `+Inf` bucket. */
export const bucketText = (q: ServerQuantile | undefined): string =>
  q === undefined ? "-" : q.bucketMs[1] === null ? `> ${formatMs(q.bucketMs[0])}` : `(${formatMs(q.bucketMs[0])}, ${formatMs(q.bucketMs[1])}]`

const q = (v: ServerQuantile | undefined): string => (v === undefined ? "-" : formatMs(v.ms))

/** Where the figures came from, in a line. */
export const serverSourceText = (s: ServerSideReport): string =>
  s.source === "prometheus" ? `Prometheus ${s.url}, the increase over each phase` : `${s.url}, read before and after each phase`

/** The note every report of these figures carries: they are bucket estimates. */
export const bucketNote =
  "server quantiles come from the histogram's buckets (histogram_quantile: linear interpolation within the bucket holding the rank); the true value lies anywhere in the bucket shown"

/** The summary's lines; none for a run that did not read a target's figures. */
export const renderServerSide = (a: RunArtifact): ReadonlyArray<string> => {
  const s = a.server
  if (s === undefined) return []
  if (s.absent !== undefined) return [`server-side figures: absent — ${s.absent}`]
  const rows = serverRows(a)
  const head = `server-side (${s.metric ?? "no histogram"} from ${serverSourceText(s)}):`
  const unread = unreadPhases(s).map((p) => `  phase ${p.phase}: not read — ${p.unread}`)
  if (rows.length === 0) return [head, ...(unread.length > 0 ? unread : ["  (no API calls measured)"])]
  const table: Array<Array<string>> = [["phase", "call", "count", "p50", "p90", "p99", "p99 bucket", "client p99"]]
  for (const r of rows) {
    table.push([r.phase, callLabel(r.call), String(r.call.count), q(r.call.p50), q(r.call.p90), q(r.call.p99), bucketText(r.call.p99), r.clientP99 === undefined ? "-" : formatMs(r.clientP99)])
  }
  return [head, ...alignRows(table).map((l) => `  ${l}`), ...unread, bucketNote]
}

/** The phases read without figures, each with why (src/loadgen/ServerSideReader.ts). */
export const unreadPhases = (s: ServerSideReport): ReadonlyArray<{ readonly phase: string; readonly unread: string }> =>
  s.phases.flatMap((p) => (p.unread === undefined ? [] : [{ phase: p.phase, unread: p.unread }]))

const alignRows = (rows: ReadonlyArray<ReadonlyArray<string>>): ReadonlyArray<string> => {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  return rows.map((r) => r.map((cell, c) => (c >= 2 ? cell.padStart(widths[c]!) : cell.padEnd(widths[c]!))).join("  ").trimEnd())
}

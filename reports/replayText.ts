/**
 * A `replay` action in the terminal summary (docs/replay.md "Reading the report"): what was read and seeded, the
 * requests against the log (codes that differed, with examples), latency per verb, resource and user recorded vs
 * replayed, throughput over time, and the scheduling error.
 */
import type { ReplayReport, RunArtifact } from "../src/loadgen/Artifact.js"
import { formatMs, plural } from "./format.js"

const table = (rows: ReadonlyArray<ReadonlyArray<string>>, left = 1): Array<string> => {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  return rows.map((r) => r.map((cell, c) => (c < left ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  ").trimEnd())
}

/** The throughput series as one line of block characters, recorded above replayed, at most 60 columns. */
const sparkline = (values: ReadonlyArray<number>, max: number, columns: number): string => {
  const blocks = " ▁▂▃▄▅▆▇█"
  const per = Math.max(1, Math.ceil(values.length / columns))
  let out = ""
  for (let i = 0; i < values.length; i += per) {
    const v = values.slice(i, i + per).reduce((a, b) => a + b, 0) / per
    out += blocks[max === 0 ? 0 : Math.min(8, Math.round((v / max) * 8))]
  }
  return out
}

export const renderReplay = (where: string, r: ReplayReport): Array<string> => {
  const out: Array<string> = []
  const q = r.requests
  out.push(
    `replay ${where}: ${r.logs.map((l) => `${l.file} (${plural(l.lines, "line")}, ${plural(l.events, "event")})`).join(", ")}; ` +
      `speed ${r.speed}, scale ${r.scale}, ${formatMs(r.durationMs)}${r.rounds > 1 ? `, ${r.rounds} rounds` : ""}${r.namespacePrefix ? `, namespaces ${r.namespacePrefix}-*` : ""}${r.impersonate ? ", impersonating the recorded users" : ""}`
  )
  if (r.badInput.total > 0) {
    out.push(`  bad input: ${plural(r.badInput.total, "line")} not replayed (${Object.entries(r.badInput.byClass).map(([k, v]) => `${k} ${v}`).join(", ")})`)
    for (const b of r.badInput.examples.slice(0, 5)) out.push(`    ${b.file}:${b.line}: ${b.class}: ${b.message}`)
  }
  const sel = r.selection
  const notes = [
    sel.duplicates > 0 ? `${sel.duplicates} duplicate events` : "",
    sel.lateBeyondWindow > 0 ? `${sel.lateBeyondWindow} out of order beyond the ${formatMs(sel.windowMs)} window (sent in log order)` : "",
    sel.filteredOut > 0 ? `${sel.filteredOut} filtered out` : ""
  ].filter((s) => s !== "")
  if (notes.length > 0) out.push(`  log: ${notes.join(", ")}`)
  const sd = r.seeding
  if (sd.namespaces + sd.objects + sd.failed > 0)
    out.push(
      `  seeded: ${plural(sd.namespaces, "namespace")}, ${plural(sd.objects, "object")}${sd.synthesized > 0 ? ` (${sd.synthesized} synthesized)` : ""}${sd.failed > 0 ? `, ${sd.failed} FAILED` : ""}`
    )
  for (const e of sd.examples.slice(0, 3)) out.push(`    seed ${e.key}: ${e.message}`)
  out.push(
    `  requests: ${q.sent} sent of ${q.planned} planned, ${q.matched} with the recorded code, ${q.mismatched} with another, ${q.connectionErrors} unanswered` +
      `${q.dropped > 0 ? `, ${q.dropped} dropped (maxInFlight)` : ""}${q.synthesized > 0 ? `; ${q.synthesized} with synthesized bodies` : ""}${q.longRunning > 0 ? `; ${q.longRunning} long-running` : ""}`
  )
  for (const m of r.mismatches.slice(0, 8)) {
    out.push(`  recorded ${m.recorded ?? "-"} → replayed ${m.replayed}: ${m.count}×`)
    for (const x of m.examples) out.push(`    ${x.verb} ${x.uri} (${x.file}:${x.line})${x.message ? `: ${x.message}` : ""}`)
  }
  const s = r.scheduling
  out.push(`  scheduling error: p50 ${formatMs(s.p50)}, p99 ${formatMs(s.p99)}, max ${formatMs(s.max)}; ${plural(s.late, "start")} more than 10 ms late`)
  if (r.groups.length > 0) {
    const rows: Array<Array<string>> = [["verb", "resource", "user", "count", "rec p50", "rep p50", "rec p99", "rep p99", "codes differ"]]
    for (const g of r.groups.slice(0, 15))
      rows.push([g.verb, g.resource, g.user, String(g.count), formatMs(g.recorded.p50), formatMs(g.replayed.p50), formatMs(g.recorded.p99), formatMs(g.replayed.p99), String(g.mismatched)])
    out.push(...table(rows, 3).map((l) => `  ${l}`))
    if (r.groups.length > 15) out.push(`  … ${r.groups.length - 15} more groups in run.json`)
  }
  const t = r.throughput
  if (t.recorded.length > 1) {
    const max = Math.max(1, ...t.recorded, ...t.replayed)
    out.push(`  throughput per ${formatMs(t.bucketMs)} (peak ${max}):`)
    out.push(`    recorded ${sparkline(t.recorded, max, 60)}`)
    out.push(`    replayed ${sparkline(t.replayed, max, 60)}`)
  }
  return out
}

export const renderReplays = (actions: RunArtifact["actions"]): Array<string> => actions.flatMap((a) => (a.replay ? renderReplay(`${a.phase}/${a.action}`, a.replay) : []))

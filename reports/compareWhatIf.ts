/**
 * The what-if parts of a comparison, as text: the scenario fields that differ between two sides and their cluster
 * figures side by side (src/compare/ScenarioDiff.ts, src/compare/ClusterComparison.ts). The terminal rendering
 * (./compareText.ts) prints these lines; the HTML (./html.ts) puts the same cells in tables.
 */
import type { ClusterPairComparison, ClusterRow } from "../src/compare/ClusterComparison.js"
import { formatRatio, type PairComparison, type SideInfo } from "../src/compare/Compare.js"
import { differenceText } from "../src/compare/ScenarioDiff.js"
import { formatMs, table } from "./summary.js"

const NoData = "—"

const count = (x: number): string => (Number.isInteger(x) ? String(x) : x.toFixed(1))

/** A cluster figure in its unit: `1.21s`, `95.0/s`, `3`, `0.42` (a time-weighted mean of nodes). */
export const clusterValue = (row: ClusterRow, v: number | undefined): string => {
  if (v === undefined) return NoData
  switch (row.unit) {
    case "ms":
      return formatMs(v)
    case "per-second":
      return `${v.toFixed(1)}/s`
    case "nodes":
      return Number.isInteger(v) ? String(v) : v.toFixed(2)
    case "count":
      return count(v)
    case "bytes":
      return bytesText(v)
  }
}

/** Bytes in binary units, as kube-apiserver's memory is read: `63.5 MiB`. */
const bytesText = (v: number): string => {
  const units = ["B", "KiB", "MiB", "GiB", "TiB"]
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return i === 0 ? `${Math.round(v)} B` : `${v.toFixed(1)} ${units[i]}`
}

/** The other side against the baseline: `×2.4` for times and rates, `+120` / `−3` for counts and nodes, `=` when equal. */
export const clusterChange = (row: ClusterRow): string => {
  const { baseline: a, other: b } = row
  if (a === undefined || b === undefined) return ""
  if (a === b) return "="
  if ((row.unit === "ms" || row.unit === "per-second" || row.unit === "bytes") && a > 0 && b > 0) return `×${formatRatio(b / a)}`
  const d = b - a
  return `${d > 0 ? "+" : "−"}${clusterValue(row, Math.abs(d))}`
}

/** `A: apf-small (s.yaml) --set cluster.serviceTime.apf=false` */
export const sideScenarioText = (s: SideInfo): string => `${s.scenario ?? "?"}${s.sets?.length ? ` ${s.sets.map((x) => `--set ${x}`).join(" ")}` : ""}`

/** The differing fields of a pair, one per line (indented), or nothing when both ran the same scenario. */
export const differenceLines = (p: PairComparison): Array<string> => {
  if (p.differences === undefined) return []
  if (p.differences.length === 0) return [`  scenario: the files differ only where the scenario does not (comments, layout)`]
  return [`  scenario fields that differ (${p.baseline} → ${p.other}):`, ...p.differences.map((d) => `    ${differenceText(d)}`)]
}

/** The cluster table of a pair. */
export const clusterLines = (p: PairComparison, c: ClusterPairComparison): Array<string> => {
  const out: Array<string> = []
  const admission = [c.admission.baseline && `${p.baseline} ${c.admission.baseline}`, c.admission.other && `${p.other} ${c.admission.other}`].filter(Boolean)
  out.push(`  cluster${admission.length > 0 ? ` (${admission.join("; ")})` : ""}:`)
  if (c.rows.length === 0) {
    out.push("    no cluster figures on either side")
    return out
  }
  const rows = [["figure", p.baseline, p.other, "change"], ...c.rows.map((r) => [r.label, clusterValue(r, r.baseline), clusterValue(r, r.other), clusterChange(r)])]
  for (const line of table(rows, 1).split("\n")) out.push(`    ${line}`)
  return out
}

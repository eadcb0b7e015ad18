/**
 * `clustersim sweep` as text (docs/sweep.md): a point's progress line when it ends, and the table at the end — one
 * row per point with its varied values, verdict, headline figures (./compareWhatIf.ts's units) and result
 * fingerprint.
 */
import type { SweepPointResult, SweepResult } from "../src/compare/SweepResult.js"
import { clusterValue } from "./compareWhatIf.js"
import { table } from "./summary.js"

/** The first hex digits of a fingerprint: enough to tell two results apart in a table. */
export const FingerprintDigits = 12

/** `cluster.nodes=5000, cluster.serviceTime.apf=false` */
export const pointText = (parameters: SweepResult["parameters"], values: ReadonlyArray<string>): string =>
  parameters.map((p, i) => `${p.path}=${values[i]}`).join(", ")

/**
 * `[sweep 3/8] cluster.nodes=5000 PASS in 8.4 s`; a point that breached thresholds names the first
 * (`FAIL in 4.6 s: not_ready_nodes: count == 5 (observed 4); 2 more`), the rest are in sweep.json and its report.
 */
export const sweepProgressLine = (count: number, parameters: SweepResult["parameters"], p: SweepPointResult): string =>
  `[sweep ${p.index}/${count}] ${pointText(parameters, p.values)} ${p.verdict}${p.wallMs !== undefined ? ` in ${(p.wallMs / 1000).toFixed(1)} s` : ""}${p.exitCode !== undefined && p.verdict === "ERROR" ? ` (exit ${p.exitCode})` : ""}${breachedText(p.breached)}`

const breachedText = (breached: ReadonlyArray<string> | undefined): string =>
  breached === undefined || breached.length === 0 ? "" : `: ${breached[0]}${breached.length > 1 ? `; ${breached.length - 1} more` : ""}`

/** The table's cells, header first: one row per point, in point order (the text table and sweep.html's). */
export const sweepRows = (r: SweepResult): ReadonlyArray<ReadonlyArray<string>> => [
  ["#", ...r.parameters.map((p) => p.path), "verdict", ...r.headline, "fingerprint"],
  ...r.points.map((p) => [
    String(p.index),
    ...p.values,
    p.verdict,
    ...r.headline.map((label) => {
      const f = p.figures.find((x) => x.label === label)
      return f === undefined ? "—" : clusterValue({ label, unit: f.unit }, f.value)
    }),
    p.fingerprint === undefined ? "—" : p.fingerprint.slice(0, FingerprintDigits)
  ])
]

/** The table of every point, in point order; the varied values left-aligned, the figures right-aligned. */
export const sweepTable = (r: SweepResult): string => table(sweepRows(r), 1 + r.parameters.length)

/** The verdict over all points: `PASS: 4 of 4 points passed`. */
export const sweepVerdict = (r: SweepResult): string => {
  const passed = r.points.filter((p) => p.verdict === "PASS").length
  return `${passed === r.points.length ? "PASS" : "FAIL"}: ${passed} of ${r.points.length} points passed${r.interruptedBy !== undefined ? ` (stopped by ${r.interruptedBy})` : ""}`
}

/** The table, the verdict over all points, and where the files are. */
export const renderSweep = (r: SweepResult, files: { readonly json: string; readonly html: string }): string => {
  return [
    `sweep ${r.scenario.name}: ${r.points.length} points, seed ${r.seed}${r.sets.length > 0 ? `, ${r.sets.map((s) => `--set ${s}`).join(" ")}` : ""}`,
    "",
    sweepTable(r),
    "",
    sweepVerdict(r),
    `sweep.json: ${files.json}`,
    `sweep.html: ${files.html}`,
    ""
  ].join("\n")
}

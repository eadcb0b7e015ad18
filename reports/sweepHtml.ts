/**
 * `sweep.html` (docs/sweep.md): one self-contained page (./html.ts's, uPlot inlined) with the sweep's table and one
 * plot per headline figure against the first `--vary` parameter, one line per combination of the others' values.
 * A parameter whose values are all numbers is a numeric axis; otherwise its values are named at 1, 2, ….
 */
import type { SweepResult } from "../src/compare/SweepResult.js"
import { escapeHtml, page } from "./htmlPage.js"
import { sweepRows, sweepVerdict } from "./sweepText.js"

export interface SweepPlot {
  readonly title: string
  readonly x: ReadonlyArray<number>
  /** The x values' names when they are not all numbers. */
  readonly xNames?: ReadonlyArray<string>
  readonly xLabel: string
  readonly yLabel: string
  readonly unit: string
  readonly series: ReadonlyArray<{ readonly label: string; readonly color: number; readonly y: ReadonlyArray<number | null> }>
}

const numeric = (v: string) => /^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(v.trim())

/** One plot per headline figure: x the first parameter, a line per combination of the others (points without the figure left open). */
export const sweepPlots = (r: SweepResult): ReadonlyArray<SweepPlot> => {
  const [first, ...others] = r.parameters
  if (first === undefined) return []
  const byNumber = first.values.every(numeric)
  const x = byNumber ? first.values.map(Number) : first.values.map((_, i) => i + 1)
  // the points differ from each other in their first value only within a line: its key is the rest of its values
  const lineOf = (values: ReadonlyArray<string>) => others.map((p, i) => `${p.path}=${values[i + 1]}`).join(", ")
  const lines = [...new Set(r.points.map((p) => lineOf(p.values)))]
  return r.headline.map((label) => {
    const unit = r.points.flatMap((p) => p.figures.filter((f) => f.label === label))[0]?.unit ?? "count"
    return {
      title: `${label} against ${first.path}`,
      x,
      ...(byNumber ? {} : { xNames: first.values }),
      xLabel: first.path,
      yLabel: label,
      unit,
      series: lines.map((line, color) => ({
        label: line === "" ? label : line,
        color,
        y: first.values.map((v) => {
          const point = r.points.find((p) => p.values[0] === v && lineOf(p.values) === line)
          return point?.figures.find((f) => f.label === label)?.value ?? null
        })
      }))
    }
  })
}

/** Under a point's verdict, every threshold it breached (the progress line names only the first). */
const breachedList = (breached: ReadonlyArray<string> | undefined): string =>
  breached === undefined || breached.length === 0 ? "" : `<ul class="breached">${breached.map((b) => `<li>${escapeHtml(b)}</li>`).join("")}</ul>`

/** The points' table: each row links to its run's own report, where it wrote one; a point that breached thresholds lists them. */
const pointsTable = (r: SweepResult): string => {
  const [head, ...rows] = sweepRows(r)
  const verdictColumn = 1 + r.parameters.length
  const cells = rows.map((row, i) => {
    const point = r.points[i]!
    return `<tr>${row
      .map((cell, c) => {
        // a point whose run wrote no artifact (not run, stopped before it began, refused) has no report to link
        if (c === 0) return point.fingerprint !== undefined ? `<td><a href="${escapeHtml(point.dir)}/report.html">${escapeHtml(cell)}</a></td>` : `<td>${escapeHtml(cell)}</td>`
        if (c === verdictColumn) return `<td class="${cell === "PASS" ? "pass" : "fail"}">${escapeHtml(cell)}${breachedList(point.breached)}</td>`
        return `<td>${escapeHtml(cell)}</td>`
      })
      .join("")}</tr>`
  })
  return `<table id="points"><tr>${head!.map((h) => `<th>${escapeHtml(h)}</th>`).join("")}</tr>${cells.join("")}</table>`
}

export const renderSweepHtml = (r: SweepResult): string => {
  const plots = sweepPlots(r)
  const body = [
    `<h1>clustersim sweep ${escapeHtml(r.scenario.name)}</h1>`,
    `<p class="muted">${escapeHtml(r.scenario.file)}${r.sets.map((s) => ` --set ${escapeHtml(s)}`).join("")} · seed ${r.seed} · ${r.points.length} points, ${r.workers} at a time · ${escapeHtml(r.startedAt)}</p>`,
    `<p class="${r.exitCode === 0 ? "pass" : "fail"}"><b>${escapeHtml(sweepVerdict(r))}</b> (exit ${r.exitCode})</p>`,
    pointsTable(r),
    `<p class="muted">Fingerprint: sha256 of the point's run.json without the host's part (times, environment): in virtual time equal fingerprints are equal results; a load run on the real clock has only its shape fingerprinted (docs/sweep.md).</p>`,
    plots.map((_, i) => `<div id="sweep-${i}" class="plot"></div>`).join("\n")
  ].join("\n")
  return page(`clustersim sweep ${r.scenario.name}`, body, { sweep: plots })
}

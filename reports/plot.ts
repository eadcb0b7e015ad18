/**
 * Latency over time as a dependency-free SVG: from the artifact's interval histograms, one style per series
 * (every series, tags included; ./palette.ts), log-scaled y axis (a stall and a 1 ms GET fit the same chart). Up
 * to nine series each has its own colour, p99 solid and p50 dashed; with more, the dash tells series apart and only
 * p99 is drawn. An interval without samples breaks the line. `report.html` has the full plots.
 */
import type { RunArtifact } from "../src/loadgen/Artifact.js"
import { shownSummary } from "../src/loadgen/ShownPercentile.js"
import { seriesColors, seriesStyle } from "./palette.js"
import { formatMs, seriesLabel } from "./summary.js"

/** Tick steps a reader counts time in (s): 1-2-5 below a minute, then whole minutes and hours. */
const timeSteps = [1, 2, 5, 10, 15, 20, 30, 60, 120, 300, 600, 900, 1200, 1800, 3600, 7200, 10800, 21600, 43200, 86400]

/** The first step that puts at most 10 ticks on a `span` of seconds: 0, 60, 120 … 600 for 600 s, not 0, 54, 108 …. */
export const timeTickStep = (span: number): number => timeSteps.find((s) => span / s <= 10) ?? Math.ceil(span / 10 / 86400) * 86400

const escape = (s: string): string => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!)

export const renderLatencySvg = (a: RunArtifact): string => {
  const width = 900
  const plotH = 380
  const left = 70
  const right = 20
  const top = 40
  const byKey = new Map<string, Array<{ i: number; t: number; p50: number; p99: number }>>()
  for (const iv of a.intervals) {
    if (iv.latency.count === 0) continue
    const label = seriesLabel(iv)
    const points = byKey.get(label) ?? []
    const latency = shownSummary(iv.latency)
    points.push({ i: iv.index, t: (iv.startMs + iv.endMs) / 2 / 1000, p50: latency.p50, p99: latency.p99 })
    byKey.set(label, points)
  }
  const keys = [...byKey.keys()].sort()
  const legendH = 18 * keys.length + 10
  const height = top + plotH + 40 + legendH
  const all = keys.flatMap((k) => byKey.get(k)!)
  // the run's span (its last interval's end), not the last point's midpoint
  const tMax = Math.max(1, ...all.map((p) => p.t), ...a.intervals.map((iv) => iv.endMs / 1000))
  const vals = all.flatMap((p) => [p.p50, p.p99]).filter((v) => v > 0)
  const lo = Math.pow(10, Math.floor(Math.log10(Math.min(...vals, 1))))
  const hi = Math.pow(10, Math.ceil(Math.log10(Math.max(...vals, 10))))
  const x = (t: number) => left + ((width - left - right) * t) / tMax
  const y = (v: number) => top + plotH - (plotH * (Math.log10(Math.max(v, lo)) - Math.log10(lo))) / (Math.log10(hi) - Math.log10(lo))
  const parts: Array<string> = []
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`)
  parts.push(`<rect width="100%" height="100%" fill="white"/>`)
  // past the colours alone, a series' dash is its identity: p50 lines (dashed) would be read as other series
  const withP50 = keys.length <= seriesColors.length
  parts.push(`<text x="${left}" y="22" font-size="15">${escape(`${a.scenario.name}: latency over time (${withP50 ? "p99 solid, p50 dashed" : "p99"})`)}</text>`)
  for (let d = lo; d <= hi; d *= 10) {
    parts.push(`<line x1="${left}" x2="${width - right}" y1="${y(d)}" y2="${y(d)}" stroke="#ddd"/>`)
    parts.push(`<text x="${left - 6}" y="${y(d) + 4}" text-anchor="end">${formatMs(d)}</text>`)
  }
  const step = timeTickStep(tMax)
  for (let t = 0; t <= tMax; t += step) {
    parts.push(`<line x1="${x(t)}" x2="${x(t)}" y1="${top}" y2="${top + plotH}" stroke="#eee"/>`)
    parts.push(`<text x="${x(t)}" y="${top + plotH + 16}" text-anchor="middle">${t}s</text>`)
  }
  parts.push(`<rect x="${left}" y="${top}" width="${width - left - right}" height="${plotH}" fill="none" stroke="#999"/>`)
  keys.forEach((k, i) => {
    const { color, dash } = seriesStyle(i)
    const dashAttr = dash.length > 0 ? ` stroke-dasharray="${dash.join(",")}"` : ""
    const pts = byKey.get(k)!.sort((p, q) => p.t - q.t)
    // consecutive intervals form one line; a missing interval starts the next
    const runs: Array<typeof pts> = []
    for (const p of pts) {
      const last = runs[runs.length - 1]
      if (last && last[last.length - 1]!.i === p.i - 1) last.push(p)
      else runs.push([p])
    }
    for (const run of runs) {
      const path = (f: (p: { p50: number; p99: number }) => number) => run.map((p) => `${x(p.t).toFixed(1)},${y(f(p)).toFixed(1)}`).join(" ")
      if (run.length === 1) parts.push(`<circle cx="${x(run[0]!.t).toFixed(1)}" cy="${y(run[0]!.p99).toFixed(1)}" r="2" fill="${color}"/>`)
      parts.push(`<polyline fill="none" stroke="${color}" stroke-width="1.8"${dashAttr} points="${path((p) => p.p99)}"/>`)
      if (withP50) parts.push(`<polyline fill="none" stroke="${color}" stroke-width="1.2" stroke-dasharray="5,3" points="${path((p) => p.p50)}"/>`)
    }
    const ly = top + plotH + 40 + 18 * i
    parts.push(`<line x1="${left}" x2="${left + 24}" y1="${ly - 4}" y2="${ly - 4}" stroke="${color}" stroke-width="2"${dashAttr}/>`)
    parts.push(`<text x="${left + 30}" y="${ly}">${escape(k)}</text>`)
  })
  if (keys.length === 0)
    parts.push(`<text x="${left + 10}" y="${top + 30}">${a.cluster ? "no load samples: this simulated cluster ran no load phases (see report.html for its timeline)" : "no interval data"}</text>`)
  parts.push(`</svg>`)
  return parts.join("\n") + "\n"
}

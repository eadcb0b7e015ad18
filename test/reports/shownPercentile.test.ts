/**
 * A percentile is never shown above the max: an HDR percentile is its bucket's upper bound (48.959ms for samples of
 * 48.94ms), the max the value recorded. The summary, report.html (table, charts) and compare agree.
 */
import { describe, expect, it } from "@effect/vitest"
import { renderRunHtml } from "../../reports/html.js"
import { renderComparison } from "../../reports/compareText.js"
import { renderSummary } from "../../reports/summary.js"
import { compareSides } from "../../src/compare/Compare.js"
import { artifactSeries, type RunArtifact } from "../../src/loadgen/Artifact.js"
import { makeHistogram, recordMillis } from "../../src/loadgen/LatencyRecorder.js"
import { syntheticRun } from "../support/syntheticRun.js"

const key = { metric: "initial_list", operation: "first_response", resource: "configmaps", scope: "namespace", phase: "steady", name: "informers" }

/** 10 samples of 48.94ms: every percentile is the bucket's bound, 48.959ms ("49ms"); the max is 48.94ms ("48.9ms"). */
const run = (seed: number): RunArtifact => {
  const h = makeHistogram()
  for (let i = 0; i < 10; i++) recordMillis(h, 48.94)
  const series = artifactSeries({ key, models: ["open"], latency: h, serviceTime: h, count: 10, errors: 0, connectionErrors: 0, dropped: 0, outOfRange: 0 })
  const base = syntheticRun({ seed, series: [] })
  const interval = { key, index: 0, startMs: 0, endMs: 1000, latency: series.latency, serviceTime: series.latency, errors: 0, connectionErrors: 0, dropped: 0, latencyHistogram: series.latencyHistogram, serviceTimeHistogram: series.latencyHistogram }
  return { ...base, series: [series], intervals: [interval], intervalMs: 1000 }
}

describe("percentiles shown at most the max", () => {
  it("the stored figures keep HDR's bucket bound (what thresholds judge); the reports show the max", () => {
    const a = run(1)
    expect(a.series[0]!.latency.p99).toBeCloseTo(48.959, 3)
    expect(a.series[0]!.latency.max).toBeCloseTo(48.94, 3)
    const row = renderSummary(a).split("\n").find((l) => l.startsWith("initial_list"))!
    expect(row.split(/\s{2,}/).slice(3, 7)).toEqual(["48.9ms", "48.9ms", "48.9ms", "48.9ms"])
    const html = renderRunHtml(a)
    expect(html).toContain("<td>48.9ms</td><td>48.9ms</td><td>48.9ms</td><td>48.9ms</td>")
    expect(html).not.toContain(">49ms<")
    // the charts' data: the interval's p99 and the spectrum's points
    const data = JSON.parse(/<script id="clustersim-data" type="application\/json">(.*?)<\/script>/s.exec(html)![1]!) as {
      timeSeries: { series: Array<{ p99: Array<number> }> }
      spectrum: { series: Array<{ y: Array<number | null> }> }
    }
    expect(data.timeSeries.series[0]!.p99).toEqual([48.94, null])
    expect(Math.max(...data.spectrum.series[0]!.y.filter((v): v is number => v !== null))).toBe(48.94)
  })

  it("compare's table: p99 at most max", () => {
    const sides = [{ label: "A", rounds: [run(1)] }, { label: "B", rounds: [run(2)] }]
    const c = compareSides(sides, { paired: false })
    if (c._tag !== "Compared") throw new Error(c.reason)
    expect(c.comparison.pairs[0]!.series[0]!.baseline.p99).toBe(48.94)
    const rowA = renderComparison(c.comparison).split("\n").find((l) => l.trim().startsWith("A ") && l.includes("ms"))!
    expect(rowA.trim().split(/\s{2,}/).slice(-4)).toEqual(["48.9ms", "48.9ms", "48.9ms", "48.9ms"])
  })
})

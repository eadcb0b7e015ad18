/**
 * The report's charts and tables as data: throughput counts only operations that succeeded, the x axes span the run,
 * latency.svg ticks at steps a reader counts time in, and an empty server-side reading says so instead of a bare heading.
 */
import { describe, expect, it } from "@effect/vitest"
import { renderRunHtml, timelineOf, timeSeriesOf } from "../../reports/html.js"
import { renderLatencySvg, timeTickStep } from "../../reports/plot.js"
import { serverLines } from "../../reports/compareText.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { syntheticRun } from "../support/syntheticRun.js"

const key = { metric: "api_call", operation: "GET", resource: "configmaps", scope: "resource", phase: "steady", name: "get" }
const base = syntheticRun({ seed: 1, series: [{ key, medianMs: 2, samples: 20 }] })
const template = base.intervals[0]!
type Interval = RunArtifact["intervals"][number]
const interval = (index: number, o: { answered: number; errors: number; connectionErrors: number }, stepMs = 1000): Interval => ({
  ...template,
  index,
  startMs: index * stepMs,
  endMs: (index + 1) * stepMs,
  latency: { ...template.latency, count: o.answered },
  errors: o.errors,
  connectionErrors: o.connectionErrors
})
const withIntervals = (intervals: ReadonlyArray<Interval>, intervalMs = 1000, extra: Partial<RunArtifact> = {}): RunArtifact => ({ ...base, intervalMs, intervals: [...intervals], ...extra })

describe("report.html's throughput", () => {
  it("counts the operations answered without an error: a dead target (50 no-answers a second) is 0/s, not 50/s", () => {
    const ts = timeSeriesOf(
      withIntervals([
        interval(0, { answered: 0, errors: 50, connectionErrors: 50 }),
        interval(1, { answered: 20, errors: 5, connectionErrors: 0 }),
        interval(2, { answered: 20, errors: 7, connectionErrors: 2 })
      ])
    )
    expect(ts.series[0]!.succeeded).toEqual([0, 15, 15, null])
    expect(ts.series[0]!.errors).toEqual([50, 5, 7, null])
    expect(renderRunHtml(withIntervals([interval(0, { answered: 0, errors: 50, connectionErrors: 50 })]))).toContain(
      "Throughput: operations answered without an error per second (failures in the errors chart;"
    )
  })
})

describe("the charts' x axes span the run", () => {
  it("one interval: its start and its end (uPlot gives a lone point an axis of 0–100)", () => {
    expect(timeSeriesOf(withIntervals([interval(0, { answered: 16, errors: 0, connectionErrors: 0 })])).x).toEqual([0, 1])
  })

  it("several: the starts, then the last interval's end", () => {
    const ts = timeSeriesOf(withIntervals([0, 1, 2].map((i) => interval(i, { answered: 5, errors: 0, connectionErrors: 0 }, 5000)), 5000))
    expect(ts.x).toEqual([0, 5, 10, 15])
    expect(ts.series[0]!.succeeded).toEqual([1, 1, 1, null])
  })

  it("the cluster timeline: from 0 to the run's end, not the span of its events", () => {
    const cluster = { durationMs: 180_000, readyTimeline: { n1: [[0, "True", "KubeletReady"], [60_000, "Unknown", "NodeStatusUnknown"]] }, faults: [{ type: "node-stop", at: 76_600 }] }
    const tl = timelineOf({ ...base, durationMs: 1000, cluster } as RunArtifact)!
    expect(tl.end).toBe(180)
    expect(tl.events.map((e) => e.t)).toEqual([60, 76.6])
  })
})

describe("latency.svg", () => {
  it("ticks at steps of time a reader counts in: 0, 60 … 540 s for a 540 s run (not 0, 54, 108 …)", () => {
    expect([1, 9, 30, 100, 600, 1200, 3600, 7200].map(timeTickStep)).toEqual([1, 1, 5, 10, 60, 120, 600, 900])
    const svg = renderLatencySvg(withIntervals(Array.from({ length: 540 }, (_, i) => interval(i, { answered: 5, errors: 0, connectionErrors: 0 }))))
    const ticks = [...svg.matchAll(/text-anchor="middle">(\d+)s</g)].map((m) => Number(m[1]))
    expect(ticks).toEqual([0, 60, 120, 180, 240, 300, 360, 420, 480, 540])
  })
})

describe("an empty server-side reading", () => {
  const server = { source: "metrics" as const, url: "https://127.0.0.1:6443/metrics", metric: "apiserver_request_sli_duration_seconds" as const, method: "increase", phases: [] }
  it("report.html says no call was measured; no table of headings alone", () => {
    const html = renderRunHtml({ ...base, series: [], intervals: [], server } as unknown as RunArtifact)
    expect(html).toContain("<h2>Server side</h2>")
    expect(html).toContain("<p>No API calls measured.</p>")
    expect(html).not.toContain('<table id="server">')
  })

  it("compare says so on the heading's line", () => {
    expect(serverLines("A", "B", { metric: "apiserver_request_sli_duration_seconds", calls: [] })).toEqual(["  server side (apiserver_request_sli_duration_seconds): no API calls measured"])
    expect(serverLines("A", "B", { calls: [], otherAbsent: "GET /metrics answered 403" })).toEqual(["  server side:", "    B: server-side figures absent — GET /metrics answered 403"])
  })
})

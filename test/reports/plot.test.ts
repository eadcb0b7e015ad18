import { describe, expect, it } from "@effect/vitest"
import { renderLatencySvg } from "../../reports/plot.js"
import { syntheticRun } from "../support/syntheticRun.js"

describe("latency.svg", () => {
  it("plots every series (not the first 10) and breaks lines at intervals without samples", () => {
    const keys = Array.from({ length: 12 }, (_, i) => ({ metric: "api_call", operation: "GET", resource: `r${String(i).padStart(2, "0")}`, scope: "resource", phase: "p", name: `a${i}` }))
    const base = syntheticRun({ seed: 1, series: keys.map((key) => ({ key, medianMs: 5, samples: 20 })) })
    const intervals = base.intervals.flatMap((iv) => [0, 1, 3].map((index) => ({ ...iv, index, startMs: index * 1000, endMs: (index + 1) * 1000 })))
    const svg = renderLatencySvg({ ...base, intervals })
    for (const k of keys) expect(svg).toContain(`api_call GET ${k.resource} resource p/${k.name}`)
    // per series: intervals 0–1 one line, interval 3 another (a dot and a one-point line); past nine series p99 only
    expect(svg.match(/<polyline/g)!.length).toBe(12 * 2)
    expect(svg.match(/<circle/g)!.length).toBe(12)
    // every series its own colour-and-dash in the legend: the tenth and on repeat a colour, not a style
    const legend = [...svg.matchAll(/<line x1="70" x2="94"[^>]*stroke="([^"]+)" stroke-width="2"(?: stroke-dasharray="([^"]+)")?\/>/g)].map((m) => `${m[1]} ${m[2] ?? "solid"}`)
    expect(legend).toHaveLength(12)
    expect(new Set(legend).size).toBe(12)
    expect(legend[9]).toBe("#332288 6,3")
  })

  it("up to nine series: a colour each, p99 solid and p50 dashed", () => {
    const keys = Array.from({ length: 3 }, (_, i) => ({ metric: "api_call", operation: "GET", resource: `r${i}`, scope: "resource" }))
    const svg = renderLatencySvg(syntheticRun({ seed: 1, series: keys.map((key) => ({ key, medianMs: 5, samples: 20 })) }))
    expect(svg).toContain("latency over time (p99 solid, p50 dashed)")
    expect(svg.match(/<polyline/g)!.length).toBe(3 * 2)
  })

  it("says why a simulated cluster without load phases has no lines", () => {
    const svg = renderLatencySvg({ ...syntheticRun({ seed: 1, series: [] }), intervals: [], cluster: { nodes: 3 } })
    expect(svg).toContain("no load samples: this simulated cluster ran no load phases (see report.html for its timeline)")
  })
})

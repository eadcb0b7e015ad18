import { Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { activeSeconds, compareSides, formatRatio, refusal, type Side } from "../../src/compare/Compare.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { evaluateFailRules, parseFailRule } from "../../src/compare/FailIf.js"
import { studentTQuantile } from "../../src/compare/Statistics.js"
import type { MetricKey } from "../../src/loadgen/LatencyRecorder.js"
import { syntheticRun } from "../support/syntheticRun.js"

const list: MetricKey = { metric: "api_call", operation: "LIST", resource: "configmaps", scope: "namespace", phase: "steady", name: "list" }
const get: MetricKey = { metric: "api_call", operation: "GET", resource: "configmaps", scope: "resource", phase: "warmup", name: "get" }
const setup: MetricKey = { metric: "setup", operation: "POST", resource: "configmaps", scope: "resource", phase: "setup", name: "cms" }

/** `rounds` rounds per side; side B's LIST median is `factor` × A's. */
const sides = (seed: number, factor: number, rounds: number, samples = 400, others = true): ReadonlyArray<Side> => {
  const side = (label: string, median: number, offset: number): Side => ({
    label,
    rounds: Array.from({ length: rounds }, (_, r) =>
      syntheticRun({
        seed: seed * 1000 + offset + r,
        series: [{ key: list, medianMs: median, samples }, ...(others ? [{ key: get, medianMs: 2, samples: 100 }, { key: setup, medianMs: 5, samples: 50 }] : [])]
      })
    )
  })
  return [side("A", 10, 0), side("B", 10 * factor, 500)]
}

const listRow = (s: ReadonlyArray<Side>, paired = true) => {
  const r = compareSides(s, { paired })
  if (r._tag !== "Compared") throw new Error(r.reason)
  return r.comparison.pairs[0]!.series.find((x) => x.key.name === "list")!
}

describe("Student t", () => {
  it("matches the tables", () => {
    expect(studentTQuantile(0.975, 4)).toBeCloseTo(2.776, 3)
    expect(studentTQuantile(0.995, 9)).toBeCloseTo(3.25, 2)
    expect(studentTQuantile(0.995, 1)).toBeCloseTo(63.657, 1)
    expect(studentTQuantile(0.975, 1000)).toBeCloseTo(1.962, 2)
  })
})

describe("compare statistics", () => {
  it("finds a 2× shift over paired rounds: B slower, the interval holds 2 and excludes 1", () => {
    const row = listRow(sides(1, 2, 5))
    expect(row.method).toBe("rounds-paired")
    const p50 = row.ratios.find((r) => r.quantile === "p50")!
    expect(p50.significant).toBe(true)
    expect(p50.low).toBeGreaterThan(1.5)
    expect(p50.low).toBeLessThan(2)
    expect(p50.high).toBeGreaterThan(2)
    expect(row.verdict).toMatch(/^B slower, p50 ×2\.\d\d \[\d\.\d\d–\d\.\d\d\]/)
    expect(row.verdict).toContain("p99 ×")
  })

  it("finds a 2× shift from one stored run per side (order statistics of the histograms)", () => {
    const row = listRow(sides(2, 2, 1))
    expect(row.method).toBe("requests")
    expect(row.ratios.every((r) => r.significant && r.low > 1)).toBe(true)
    expect(row.ratios.find((r) => r.quantile === "p50")!.estimate).toBeCloseTo(2, 0)
  })

  it("finds a faster side too", () => {
    expect(listRow(sides(3, 0.5, 4)).verdict).toMatch(/^B faster, p50 ×0\.\d+/)
  })

  it("two draws of one distribution: no significant difference in ≥ 95 % of 100 seeds (paired rounds)", () => {
    let same = 0
    for (let seed = 1; seed <= 100; seed++) if (listRow(sides(seed, 1, 5, 400, false)).verdict === "no significant difference") same++
    expect(same).toBeGreaterThanOrEqual(95)
  })

  it("two draws of one distribution: no significant difference in ≥ 95 % of 100 seeds (one run per side, order statistics)", () => {
    let same = 0
    for (let seed = 1; seed <= 100; seed++) if (listRow(sides(seed, 1, 1, 400, false), false).verdict === "no significant difference") same++
    expect(same).toBeGreaterThanOrEqual(95)
  })

  it("unpaired rounds of unequal number use Welch's interval", () => {
    const [a, b] = sides(4, 2, 4)
    const row = listRow([a!, { ...b!, rounds: b!.rounds.slice(0, 3) }])
    expect(row.method).toBe("rounds-welch")
    expect(row.verdict).toMatch(/^B slower/)
  })
})

describe("compare inputs", () => {
  it("refuses runs of different scenarios, naming both", () => {
    const a: Side = { label: "A", rounds: [syntheticRun({ seed: 1, series: [] })] }
    const b: Side = { label: "B", rounds: [syntheticRun({ seed: 2, series: [], sha256: "b".repeat(64), name: "other" })] }
    const r = compareSides([a, b])
    expect(r._tag).toBe("Refused")
    expect(refusal([a, b])).toBe(
      'runs of different scenarios: A ran "synthetic" (synthetic.yaml, sha256 aaaaaaaaaaaa…), B ran "other" (synthetic.yaml, sha256 bbbbbbbbbbbb…); ' +
        "the files differ only where the scenario does not (comments, layout); a comparison of unlike workloads says nothing about the servers — " +
        "to compare the scenarios themselves (a what-if), use clustersim compare --allow-different"
    )
    expect(refusal([a])).toBe("compare needs at least two sides, got 1")
  })

  it("selects series by tags; by default everything but setup", () => {
    const s = sides(5, 1, 2)
    const all = compareSides(s)
    if (all._tag !== "Compared") throw new Error()
    expect(all.comparison.pairs[0]!.series.map((x) => x.label)).toEqual([
      "api_call GET configmaps resource warmup/get",
      "api_call LIST configmaps namespace steady/list"
    ])
    const steady = compareSides(s, { select: { phase: ["steady"] } })
    if (steady._tag !== "Compared") throw new Error()
    expect(steady.comparison.pairs[0]!.series.map((x) => x.key.name)).toEqual(["list"])
  })

  it("flags a saturated generator side and reports throughput and error rates", () => {
    const a: Side = { label: "A", rounds: [syntheticRun({ seed: 1, series: [{ key: list, medianMs: 10, samples: 200, errors: 20 }] })] }
    const b: Side = { label: "B", rounds: [syntheticRun({ seed: 2, saturated: true, series: [{ key: list, medianMs: 10, samples: 100 }] })] }
    const r = compareSides([a, b])
    if (r._tag !== "Compared") throw new Error()
    expect(r.comparison.sides.map((x) => x.saturated)).toEqual([[], ["round 1: event-loop lag p99 250ms > 100ms"]])
    const row = r.comparison.pairs[0]!.series[0]!
    expect(row.baseline).toMatchObject({ count: 200, errors: 20, errorRate: 0.1, throughput: 20 })
    expect(row.other).toMatchObject({ count: 100, errorRate: 0, throughput: 10 })
  })

  it("--fail-if holds only for a significant ratio past the limit", () => {
    expect(Either.isLeft(parseFailRule("p99 > 1.2"))).toBe(true)
    const rule = Either.getOrThrow(parseFailRule("p99 ratio > 1.2"))
    const slower = compareSides(sides(6, 2, 5), { paired: true })
    const same = compareSides(sides(6, 1, 5), { paired: true })
    if (slower._tag !== "Compared" || same._tag !== "Compared") throw new Error()
    expect(evaluateFailRules([rule], slower.comparison).map((h) => h.series)).toEqual(["api_call LIST configmaps namespace steady/list"])
    expect(evaluateFailRules([rule], same.comparison)).toEqual([])
  })
})

describe("compare figures", () => {
  it("throughput is over the time the series' action ran, not the whole run", () => {
    const run = syntheticRun({ seed: 1, durationMs: 13_000, series: [{ key: list, medianMs: 10, samples: 400 }] })
    expect(activeSeconds(list, run)).toBe(13)
    const withExecutor = {
      ...run,
      actions: [{ phase: "steady", action: "list", type: "constant-arrival-rate", executor: { startedAtMs: 1_000, endedAtMs: 9_000 } }]
    } as unknown as RunArtifact
    expect(activeSeconds(list, withExecutor)).toBe(8)
    const r = compareSides([{ label: "A", rounds: [withExecutor] }, { label: "B", rounds: [withExecutor] }])
    if (r._tag !== "Compared") throw new Error(r.reason)
    expect(r.comparison.pairs[0]!.series[0]!.baseline.throughput).toBe(50)
  })

  it("ratios print in a few digits, the far ones as powers of ten", () => {
    expect([1.8349, 0.5234, 12.44, 1.66e15, 0.0012].map(formatRatio)).toEqual(["1.83", "0.52", "12.4", "1.7e+15", "1.2e-3"])
  })
})

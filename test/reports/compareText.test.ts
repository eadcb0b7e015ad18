import { describe, expect, it } from "vitest"
import { renderComparison, saturationText } from "../../reports/compareText.js"
import { compareSides, type Side } from "../../src/compare/Compare.js"
import type { MetricKey } from "../../src/loadgen/LatencyRecorder.js"
import { syntheticRun } from "../support/syntheticRun.js"

const key: MetricKey = { metric: "api_call", operation: "LIST", resource: "configmaps", scope: "namespace", phase: "steady", name: "list" }
const side = (label: string, saturated: ReadonlyArray<boolean>): Side => ({
  label,
  rounds: saturated.map((s, r) => syntheticRun({ seed: r + (label === "A" ? 1 : 50), saturated: s, series: [{ key, medianMs: 10, samples: 200 }] }))
})

describe("comparison text", () => {
  it("one line per saturated side: the count of rounds and the first reason", () => {
    const r = compareSides([side("A", [false, false, false]), side("B", [true, false, true])], { paired: true })
    if (r._tag !== "Compared") throw new Error(r.reason)
    expect(saturationText(r.comparison.sides[0]!)).toBeUndefined()
    expect(saturationText(r.comparison.sides[1]!)).toBe(
      "SATURATED generator, 2 of 3 rounds (round 1: event-loop lag p99 250ms > 100ms; …): this side's figures may reflect the generator, not the target"
    )
    const text = renderComparison(r.comparison)
    expect(text.match(/SATURATED/g)).toHaveLength(1)
    expect(text).toContain("  B: url http://127.0.0.1:1, 3 rounds\n     SATURATED generator, 2 of 3 rounds")
  })

  it("two rounds: says the intervals are too wide to trust", () => {
    const r = compareSides([side("A", [false, false]), side("B", [false, false])], { paired: true })
    if (r._tag !== "Compared") throw new Error(r.reason)
    expect(renderComparison(r.comparison)).toContain("(2 rounds: a t interval on 1 degree of freedom is very wide; --rounds 5 or more gives usable intervals)")
  })
})

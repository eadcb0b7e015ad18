/** compare.html's verdict table carries each side's error rate and the sides' failed rounds, not only the Details text. */
import { describe, expect, it } from "@effect/vitest"
import { renderComparisonHtml } from "../../reports/html.js"
import { compareSides, type Side } from "../../src/compare/Compare.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { syntheticRun } from "../support/syntheticRun.js"

const key = { metric: "api_call", operation: "GET", resource: "configmaps", scope: "resource", phase: "steady", name: "get" }
const failing = (seed: number, errors: number, outcome: RunArtifact["outcome"]): RunArtifact => ({
  ...syntheticRun({ seed, series: [{ key, medianMs: 2, samples: 100, errors }] }),
  outcome,
  exitCode: outcome === "pass" ? 0 : 99
})

const verdictRows = (html: string): Array<Array<string>> =>
  [.../<table id="verdicts">(.*?)<\/table>/s.exec(html)![1]!.matchAll(/<tr>(.*?)<\/tr>/gs)].map((r) => [...r[1]!.matchAll(/<t[dh][^>]*>(.*?)<\/t[dh]>/gs)].map((c) => c[1]!))

describe("compare.html's verdicts", () => {
  it("a series failing on both sides: the error rates in the table, marked, and the rounds that did not pass named", () => {
    const sides: Array<Side> = [
      { label: "A", rounds: [failing(1, 100, "thresholds-breached"), failing(2, 100, "pass")] },
      { label: "B", rounds: [failing(3, 100, "thresholds-breached"), failing(4, 100, "thresholds-breached")] }
    ]
    const c = compareSides(sides, { paired: true })
    if (c._tag !== "Compared") throw new Error(c.reason)
    const html = renderComparisonHtml(c.comparison, sides)
    const [head, row] = verdictRows(html)
    expect(head).toEqual(["series", "pair", "p50 ratio", "p90 ratio", "p99 ratio", "errors", "verdict"])
    expect(row![5]).toBe("A 100.0% · B 100.0%")
    expect(html).toContain('<td class="fail">A 100.0% · B 100.0%</td>')
    expect(html).toContain('A: url http://127.0.0.1:1, 2 round(s), <span class="fail">1 did not pass</span> · B: url http://127.0.0.1:1, 2 round(s), <span class="fail">2 did not pass</span>')
  })

  it("a clean series: 0% on both sides, not marked", () => {
    const sides: Array<Side> = [
      { label: "A", rounds: [failing(1, 0, "pass")] },
      { label: "B", rounds: [failing(3, 0, "pass")] }
    ]
    const c = compareSides(sides, { paired: true })
    if (c._tag !== "Compared") throw new Error(c.reason)
    const html = renderComparisonHtml(c.comparison, sides)
    expect(verdictRows(html)[1]![5]).toBe("A 0% · B 0%")
    expect(html).toContain('<td class="">A 0% · B 0%</td>')
    expect(html).not.toContain("did not pass")
  })
})

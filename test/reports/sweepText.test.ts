/**
 * `clustersim sweep`'s reports: the progress line, the table (one row per point, in point order, the headline
 * figures in their units), sweep.html's plots (a line per combination of the other parameters), the figures a run
 * gives and the sweep's exit code.
 */
import { describe, expect, it } from "@effect/vitest"
import { sweepExitCode } from "../../app/cli/sweep.js"
import { runFigures } from "../../src/compare/SweepFigures.js"
import { type SweepResult, verdictOfExit } from "../../src/compare/SweepResult.js"
import { renderSweepHtml, sweepPlots } from "../../reports/sweepHtml.js"
import { renderSweep, sweepProgressLine, sweepTable } from "../../reports/sweepText.js"
import { parameters, result } from "../support/sweepResult.js"
import { syntheticRun } from "../support/syntheticRun.js"

describe("sweep text", () => {
  it("the headline figures any point has, in the headline's order (lease writes is not one)", () => {
    expect(result.headline).toEqual(["lease renew latency p99", "not-ready nodes, most at once", "APF 429s, all levels"])
  })

  it("a progress line per finished point: its index of the count, its values, verdict and wall time", () => {
    expect(sweepProgressLine(4, parameters, { ...result.points[2]!, breached: [] })).toBe("[sweep 3/4] cluster.nodes=500, cluster.serviceTime.apf=true FAIL in 8.4 s")
    expect(sweepProgressLine(4, parameters, { ...result.points[0]!, exitCode: 1, verdict: "ERROR" })).toBe(
      "[sweep 1/4] cluster.nodes=50, cluster.serviceTime.apf=true ERROR in 3.4 s (exit 1)"
    )
  })

  it("a point that breached thresholds names the first in its progress line, and how many more", () => {
    const breached = ["not_ready_nodes: count == 5 (observed 4)", "ready_transitions{status:True}: count == 3 (observed 2)"]
    expect(sweepProgressLine(4, parameters, { ...result.points[2]!, breached })).toBe(
      "[sweep 3/4] cluster.nodes=500, cluster.serviceTime.apf=true FAIL in 8.4 s: not_ready_nodes: count == 5 (observed 4); 1 more"
    )
    expect(sweepProgressLine(4, parameters, { ...result.points[2]!, breached: breached.slice(0, 1) })).toBe(
      "[sweep 3/4] cluster.nodes=500, cluster.serviceTime.apf=true FAIL in 8.4 s: not_ready_nodes: count == 5 (observed 4)"
    )
  })

  it("the table: a row per point in point order, figures in their units, — where a point has none, 12 digits of the fingerprint", () => {
    expect(sweepTable(result)).toBe(
      [
        "#  cluster.nodes  cluster.serviceTime.apf  verdict  lease renew latency p99  not-ready nodes, most at once  APF 429s, all levels   fingerprint",
        "1  50             true                        PASS                      2ms                              5                     0  891f51b2bac6",
        "2  50             false                       PASS                      2ms                              5                     —  a0ad7f4e23f6",
        "3  500            true                        FAIL                    1.21s                             40                    12  f5251c22c109",
        "4  500            false                    NOT RUN                        —                              —                     —             —"
      ].join("\n")
    )
    expect(renderSweep(result, { json: "out/sweep.json", html: "out/sweep.html" })).toContain("\nFAIL: 2 of 4 points passed\nsweep.json: out/sweep.json\nsweep.html: out/sweep.html\n")
  })
})

describe("sweep.html's table", () => {
  it("each row that ran links to its point's report; a failed point's verdict lists every threshold it breached, escaped", () => {
    const html = renderSweepHtml(result)
    expect(html).toContain(`<td><a href="3-nodes=500_apf=true/report.html">3</a></td>`)
    // the NOT RUN point's directory was never made: its row links nowhere
    expect(html).toContain(`<tr><td>4</td>`)
    expect(html).not.toContain("4-nodes=500_apf=false/report.html")
    expect(html).toContain(
      `<td class="fail">FAIL<ul class="breached"><li>lease_renew_latency: p(99) &lt; 1s (observed 1.21s)</li><li>not_ready_nodes: count &lt;= 10 (observed 40)</li></ul></td>`
    )
    expect(html).toContain(`<td class="pass">PASS</td>`)
  })
})

describe("sweep.html's plots", () => {
  it("one per headline figure against the first parameter, a line per value of the others; a missing figure is a gap", () => {
    const plots = sweepPlots(result)
    expect(plots.map((p) => p.title)).toEqual([
      "lease renew latency p99 against cluster.nodes",
      "not-ready nodes, most at once against cluster.nodes",
      "APF 429s, all levels against cluster.nodes"
    ])
    expect(plots[0]).toMatchObject({ x: [50, 500], xLabel: "cluster.nodes", unit: "ms" })
    expect(plots[0]!.xNames).toBeUndefined()
    expect(plots[0]!.series).toEqual([
      { label: "cluster.serviceTime.apf=true", color: 0, y: [2, 1210] },
      { label: "cluster.serviceTime.apf=false", color: 1, y: [2, null] }
    ])
    expect(plots[2]!.series.map((s) => s.y)).toEqual([[0, 12], [null, null]])
  })

  it("values that are not all numbers are named at 1, 2, …; one parameter is one line named for the figure", () => {
    const zones: SweepResult = {
      ...result,
      parameters: [{ path: "cluster.zones", values: ["[a,b]", "[c]"] }],
      points: [
        { ...result.points[0]!, values: ["[a,b]"] },
        { ...result.points[2]!, index: 2, values: ["[c]"] }
      ]
    }
    const [plot] = sweepPlots(zones)
    expect(plot).toMatchObject({ x: [1, 2], xNames: ["[a,b]", "[c]"] })
    expect(plot!.series).toEqual([{ label: "lease renew latency p99", color: 0, y: [2, 1210] }])
  })
})

describe("a sweep's verdicts", () => {
  it("a point's verdict is its run's exit code; the sweep passes only when every point did", () => {
    expect([0, 99, 2, 1, 130, 143, undefined].map(verdictOfExit)).toEqual(["PASS", "FAIL", "INVALID", "ERROR", "STOPPED", "STOPPED", "NOT RUN"])
    expect(sweepExitCode([0, 0])).toBe(0)
    expect(sweepExitCode([0, 99])).toBe(99)
    expect(sweepExitCode([99, 1, 0])).toBe(1)
    expect(sweepExitCode([1, 2])).toBe(2)
    expect(sweepExitCode([0, undefined])).toBe(1)
  })

  it("a load run's figures: its requests, errors and latency percentiles pooled over every series but setup's", () => {
    const run = syntheticRun({
      seed: 3,
      series: [
        { key: { metric: "api_call", operation: "GET", resource: "configmaps", scope: "namespace", phase: "steady" }, medianMs: 10, samples: 1000, errors: 4 },
        { key: { metric: "api_call", operation: "LIST", resource: "configmaps", scope: "namespace", phase: "steady" }, medianMs: 40, samples: 1000 },
        { key: { metric: "api_call", operation: "POST", resource: "configmaps", scope: "namespace", phase: "setup" }, medianMs: 1000, samples: 1000 }
      ]
    })
    const byLabel = Object.fromEntries(runFigures(run).map((f) => [f.label, f.value]))
    expect(byLabel["requests"]).toBe(2000)
    expect(byLabel["request errors"]).toBe(4)
    expect(byLabel["request latency p50"]).toBeGreaterThan(10)
    expect(byLabel["request latency p50"]).toBeLessThan(40)
    // setup's 1 s requests left out
    expect(byLabel["request latency p99"]).toBeLessThan(500)
  })
})

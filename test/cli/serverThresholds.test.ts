/**
 * Thresholds on a real target's own latency (src/loadgen/Thresholds.ts `server`): the grammar in both forms —
 * `server{verb:LIST}: p(99) < 30s` and Prometheus-like `server.p99{verb=LIST}: < 30s` — its errors at their file,
 * line and field, the judgement on the server's pooled buckets, and ClusterLoader2's API-responsiveness presets.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { validateFiles } from "../../app/cli/validate.js"
import { scenarioThresholds } from "../../app/cli/artifact.js"
import { parseScenario } from "../../app/scenario/load.js"
import { callFigures, type ServerSideReport } from "../../src/loadgen/ServerLatency.js"
import { evaluate, parseThreshold, serverSloThresholds } from "../../src/loadgen/Thresholds.js"

const validate = (thresholds: string) => {
  const file = join(mkdtempSync(join(tmpdir(), "server-thresholds-")), "s.yaml")
  writeFileSync(
    file,
    `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: t }
phases:
  - name: p
    duration: 1s
    actions: [{ type: closed, workers: 1, request: { verb: get, resource: configmaps, name: x } }]
presets: [server-slo]
thresholds:
${thresholds}
`
  )
  const err: Array<string> = []
  const code = validateFiles([file], () => {}, (s) => void err.push(s))
  return { code, file, err: err.join("") }
}

describe("server thresholds: the grammar", () => {
  it("takes the aggregation in the name with Prometheus' = and quotes, or in the expression with :", () => {
    const short = Either.getOrThrow(parseThreshold('server.p99{verb=LIST,scope="cluster"}', "< 30s"))
    const long = Either.getOrThrow(parseThreshold("server{verb:LIST,scope:cluster}", "p(99) < 30s"))
    expect(short).toMatchObject({ metric: "server", selector: { verb: ["list"], scope: ["cluster"] }, groupBy: [] })
    expect(short.conditions).toEqual([{ source: "server.p99 < 30s", aggregation: { _tag: "Percentile", percentile: 99 }, comparator: "<", value: 30_000 }])
    expect(long.conditions[0]).toMatchObject({ aggregation: { _tag: "Percentile", percentile: 99 }, comparator: "<", value: 30_000 })
  })

  it("a valid scenario with both forms and the server-slo preset passes validate", () => {
    const r = validate(`  "server.p99{verb=LIST,scope=cluster}": "< 30s"\n  "server{verb:GET,resource:*}": ["p(90) < 500ms", "count > 0"]`)
    expect(r.err).toBe("")
    expect(r.code).toBe(0)
  })

  it.each([
    [`  "server{verb:LIST,scop:cluster}": "p(99) < 30s"`, 10, 37, `thresholds["server{verb:LIST,scop:cluster}"]`, `invalid threshold "server{verb:LIST,scop:cluster}": unknown tag (known: verb, resource, subresource, scope, phase) "scop"`],
    [`  "server.p99{verb=LIST}": "p(99) < 30s"`, 10, 28, `thresholds["server.p99{verb=LIST}"]`, `invalid threshold "p(99) < 30s": server.p99 names its aggregation: expected a comparator (<, <=, >, >=, ==, !=), got "p(99)"`],
    [`  "server{verb:LIST}": "rate < 1"`, 10, 24, `thresholds["server{verb:LIST}"]`, `invalid threshold "rate < 1": aggregation not available for a buckets metric (allowed: p(N), avg, med, count) "rate"`],
    [`  "server{verb:LIST}": "p(99) < 30 parsecs"`, 10, 24, `thresholds["server{verb:LIST}"]`, `invalid threshold "p(99) < 30 parsecs": unknown unit (expected us, ms, s, m, h) "parsecs"`],
    [`  "server.p99{phase=q}": "< 1s"`, 10, 3, `thresholds["server.p99{phase=q}"]`, `the scenario has no phase "q"; did you mean "p"?`]
  ])("refuses %s at its file, line and field", (line, at, column, field, message) => {
    const r = validate(line)
    expect(r.err).toBe(`${r.file}:${at}:${column}: ${field}: ${message}\n`)
    expect(r.code).toBe(2)
  })
})

const call = (verb: string, resource: string, scope: string, counts: ReadonlyArray<number>) =>
  callFigures({ verb, resource, subresource: "", scope }, { bounds: [0.5, 1, 5, 30], counts }, 0)

const report = (phases: ServerSideReport["phases"]): ServerSideReport => ({ source: "metrics", url: "http://t/metrics", method: "m", phases })

describe("server thresholds: the judgement", () => {
  const server = report([
    { phase: "warm", startedAt: "", endedAt: "", calls: [call("LIST", "pods", "cluster", [0, 0, 0, 10, 10])] },
    { phase: "steady", startedAt: "", endedAt: "", calls: [call("LIST", "pods", "cluster", [10, 10, 10, 10, 10]), call("GET", "pods", "resource", [97, 98, 100, 100, 100])] }
  ])

  it("pools the selected phases' buckets and takes histogram_quantile of them, in ms", () => {
    const [all, steady] = evaluate(
      [Either.getOrThrow(parseThreshold("server.p99{verb=LIST}", "< 10s")), Either.getOrThrow(parseThreshold("server.p99{verb=LIST,phase=steady}", "< 10s"))],
      []
      , undefined,
      server
    )
    // both phases: 20 LISTs, 10 ≤ 0.5 s and 10 in (5 s, 30 s]: rank 19.8 → 5 + 25 × 9.8 / 10
    expect(all).toMatchObject({ unit: "ms", passed: false, series: 2 })
    expect(all!.observed).toBeCloseTo(29_500, 9)
    // the steady phase alone: all 10 ≤ 0.5 s
    expect(steady).toMatchObject({ passed: true, series: 1 })
    expect(steady!.observed).toBeCloseTo(495, 9)
  })

  it("CL2's presets judge each (resource, subresource, verb) by scope: 1 s for one object, 30 s for a LIST", () => {
    const results = evaluate(serverSloThresholds({ measured: true }), [], undefined, server)
    expect(results.map((r) => [r.threshold, r.group, r.condition, r.passed])).toEqual([
      ["server-slo:resource", { resource: "pods", subresource: "", verb: "GET" }, "p(99) <= 1s", false],
      // no namespace-scoped call in the run: nothing to judge, and the figures were read
      ["server-slo:namespace", {}, "p(99) <= 30s", true],
      ["server-slo:cluster", { resource: "pods", subresource: "", verb: "LIST" }, "p(99) <= 30s", true]
    ])
    // GET: rank 99 of 100 in (1 s, 5 s], the 2 observations there → 1 + 4 × 1/2
    expect(results[0]!.observed).toBeCloseTo(3000, 9)
    expect(results[1]!.noData).toBe(true)
    expect(results[2]!.observed).toBeCloseTo(29_500, 9)
  })

  it("CL2's presets fail on no data when the server's figures could not be read", () => {
    const results = evaluate(serverSloThresholds({ measured: false }), [], undefined, { ...report([]), absent: "GET http://t/metrics answered 403" })
    expect(results.map((r) => [r.threshold, r.noData, r.passed])).toEqual([
      ["server-slo:resource", true, false],
      ["server-slo:namespace", true, false],
      ["server-slo:cluster", true, false]
    ])
  })

  it("CL2's presets fail on no data when a phase's figures could not be read: that phase may hold any call", () => {
    const scenario = Either.getOrThrow(
      parseScenario("apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: t }\nphases: []\npresets: [server-slo]\n", "s.yaml")
    ).scenario
    const read = report([])
    const partly: ServerSideReport = { ...read, phases: [{ phase: "warmup", startedAt: "", endedAt: "", calls: [], unread: "its window of 1s is shorter than …" }] }
    const allowNoData = (server: ServerSideReport) => scenarioThresholds(scenario, "real", server).map((t) => t.conditions[0]!.allowNoData)
    expect(allowNoData(read)).toEqual([true, true, true])
    expect(allowNoData(partly)).toEqual([undefined, undefined, undefined])
  })

  it("has no data — and so fails — when the server-side figures are absent", () => {
    const [r] = evaluate([Either.getOrThrow(parseThreshold("server.p99{verb=LIST}", "< 10s"))], [], undefined, { ...report([]), absent: "GET http://t/metrics answered 403" })
    expect(r).toMatchObject({ observed: undefined, noData: true, passed: false })
  })
})

import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { type MetricKey, Recordings } from "../../src/loadgen/LatencyRecorder.js"
import {
  evaluate,
  ExitCode,
  exitCodeOf,
  parseCondition,
  parseThreshold,
  parseThresholds,
  SloPresets,
  sloThresholds,
  type Threshold,
  ThresholdParseError
} from "../../src/loadgen/Thresholds.js"

const api = (operation: string, resource: string, scope: string): MetricKey => ({ metric: "api_call", operation, resource, scope })

/** Series where `n` calls of `key` took `ms` each (plus optional errors / drops). */
const measurements = (entries: ReadonlyArray<{ key: MetricKey; ms: ReadonlyArray<number>; errors?: number; dropped?: number }>) => {
  const r = new Recordings({ originMs: 0 })
  for (const e of entries) {
    e.ms.forEach((ms, i) =>
      r.record(e.key, { intendedStart: 0, sentAt: 0, completedAt: ms, ok: i >= (e.errors ?? 0), model: "open" })
    )
    if (e.dropped) r.recordDropped(e.key, 0, e.dropped)
  }
  return r.snapshot()
}

const spread = (n: number, maxMs: number) => Array.from({ length: n }, (_, i) => ((i + 1) * maxMs) / n)

const parseError = (e: Either.Either<unknown, ThresholdParseError>) => {
  if (Either.isRight(e)) throw new Error("expected a parse error")
  return e.left
}

describe("parse", () => {
  it("reads k6 expressions with units", () => {
    const p99 = Either.getOrThrow(parseCondition("p(99) < 1s"))
    expect(p99).toMatchObject({ aggregation: { _tag: "Percentile", percentile: 99 }, comparator: "<", value: 1000 })
    expect(Either.getOrThrow(parseCondition("p(95)<=500ms"))).toMatchObject({ comparator: "<=", value: 500 })
    expect(Either.getOrThrow(parseCondition("p(99.9) < 250"))).toMatchObject({ aggregation: { percentile: 99.9 }, value: 250 })
    expect(Either.getOrThrow(parseCondition("avg < 200ms"))).toMatchObject({ aggregation: { _tag: "Avg" }, value: 200 })
    expect(Either.getOrThrow(parseCondition("max < 2s"))).toMatchObject({ aggregation: { _tag: "Max" }, value: 2000 })
    expect(Either.getOrThrow(parseCondition("med >= 1.5m"))).toMatchObject({ aggregation: { _tag: "Med" }, comparator: ">=", value: 90_000 })
    expect(Either.getOrThrow(parseCondition("min > 250us"))).toMatchObject({ value: 0.25 })
    expect(Either.getOrThrow(parseCondition("rate < 0.01", "rate"))).toMatchObject({ aggregation: { _tag: "Rate" }, value: 0.01 })
    expect(Either.getOrThrow(parseCondition("count > 0", "counter"))).toMatchObject({ aggregation: { _tag: "Count" }, comparator: ">", value: 0 })
  })

  it("reads names with tag selectors, alternatives and per-value groups", () => {
    const t = Either.getOrThrow(parseThreshold("latency{operation:POST|patch, resource:*, scope:resource}", ["p(99)<=1s", "avg<300"]))
    expect(t.metric).toBe("latency")
    expect(t.selector).toEqual({ operation: ["post", "patch"], scope: ["resource"] })
    expect(t.groupBy).toEqual(["resource"])
    expect(t.conditions.map((c) => c.value)).toEqual([1000, 300])
  })

  it("errors name the offending token", () => {
    const cases: Array<[Either.Either<unknown, ThresholdParseError>, string]> = [
      [parseThreshold("latncy{operation:GET}", "p(99)<1s"), "latncy"],
      [parseThreshold("latency{verb:GET}", "p(99)<1s"), "verb"],
      [parseThreshold("latency{operation}", "p(99)<1s"), "operation"],
      [parseCondition("p99 < 1s"), "p99"],
      [parseCondition("p(101) < 1s"), "p(101)"],
      [parseCondition("p(99) ~ 1s"), "~"],
      [parseCondition("p(99) < 1parsec"), "parsec"],
      [parseCondition("p(99) < fast"), "fast"],
      [parseCondition("p(99) < 1s please"), "please"],
      [parseCondition("rate < 1s", "rate"), "s"],
      [parseCondition("p(99) < 1s", "counter"), "p(99)"]
    ]
    for (const [result, token] of cases) {
      const e = parseError(result)
      expect(e).toBeInstanceOf(ThresholdParseError)
      expect(e.token).toBe(token)
      expect(e.message).toContain(`"${token}"`)
    }
  })

  it("a scenario map parses all or reports the first bad entry", () => {
    const ok = Either.getOrThrow(parseThresholds({ latency: ["p(99) < 1s"], errors: "rate < 0.01", dropped_iterations: "count == 0" }))
    expect(ok.map((t) => t.metric)).toEqual(["latency", "errors", "dropped_iterations"])
    expect(parseError(parseThresholds({ latency: "p(99) < 1s", http_req_duration: "p(95) < 500" })).token).toBe("http_req_duration")
  })
})

describe("SLO presets (sig-scalability SLOs)", () => {
  it("use the official numbers", () => {
    const v = (t: Threshold) => [t.conditions[0]!.source, t.conditions[0]!.value]
    expect(v(SloPresets.mutatingApiCalls)).toEqual(["p(99) <= 1s", 1000])
    expect(v(SloPresets.readResource)).toEqual(["p(99) <= 1s", 1000])
    expect(v(SloPresets.readNamespace)).toEqual(["p(99) <= 30s", 30_000])
    expect(v(SloPresets.readNamespaceLegacy)).toEqual(["p(99) <= 5s", 5000])
    expect(v(SloPresets.readCluster)).toEqual(["p(99) <= 30s", 30_000])
    expect(v(SloPresets.podStartup)).toEqual(["p(99) <= 5s", 5000])
    expect(SloPresets.mutatingApiCalls.groupBy).toEqual(["resource", "operation"])
    expect(sloThresholds().map((t) => t.name)).toContain("slo:read-namespace")
    expect(sloThresholds({ legacyNamespaceList: true }).map((t) => t.name)).toContain("slo:read-namespace-legacy")
  })

  it("judge each (resource, verb) on its own: a slow PATCH nodes/status is not hidden by fast pod creates", () => {
    const series = measurements([
      { key: api("PATCH", "nodes/status", "resource"), ms: spread(100, 1300) },
      { key: api("POST", "pods", "resource"), ms: spread(10_000, 200) },
      { key: api("LIST", "pods", "namespace"), ms: spread(100, 8000) },
      { key: api("LIST", "pods", "cluster"), ms: spread(100, 29_000) }
    ])
    const results = evaluate(sloThresholds(), series)
    // no GET and no pod start-up here: those rows fail on no data (a run keeps only the rows its scenario can reach)
    expect(results.filter((r) => r.noData).map((r) => [r.threshold, r.passed])).toEqual([
      ["slo:read-resource", false],
      ["slo:pod-startup", false]
    ])
    const failed = results.filter((r) => !r.passed && !r.noData)
    expect(failed).toHaveLength(1)
    expect(failed[0]).toMatchObject({ threshold: "slo:mutating-api-calls", group: { resource: "nodes/status", operation: "PATCH" } })
    expect(failed[0]!.observed).toBeCloseTo(1287, -1)
    // merged, the PATCH calls are 1 % of the mix and p99 would pass
    const merged = evaluate([{ ...SloPresets.mutatingApiCalls, groupBy: [] }], series)
    expect(merged[0]!.passed).toBe(true)
    // 8 s namespace LIST passes the 30 s SLO and fails the legacy 5 s one
    const legacy = evaluate([SloPresets.readNamespaceLegacy], series)
    expect(legacy[0]).toMatchObject({ passed: false, group: { resource: "pods" } })
    // no pod_startup series: failed, marked as no data
    expect(results.find((r) => r.threshold === "slo:pod-startup")).toMatchObject({ noData: true, passed: false, observed: undefined })
  })
})

describe("evaluate", () => {
  const series = measurements([
    { key: api("GET", "pods", "resource"), ms: spread(1000, 100), errors: 20, dropped: 5 },
    { key: api("LIST", "pods", "cluster"), ms: spread(100, 2000) }
  ])
  const judge = (name: string, expr: string) => evaluate([Either.getOrThrow(parseThreshold(name, expr))], series)

  it("reports the observed value and pass/fail", () => {
    expect(judge("latency{operation:GET}", "p(99) < 100ms")[0]).toMatchObject({ passed: true, series: 1 })
    expect(judge("latency{operation:GET}", "p(99) < 100ms")[0]!.observed).toBeCloseTo(99, 0)
    expect(judge("latency{operation:GET}", "p(99) < 90ms")[0]).toMatchObject({ passed: false })
    expect(judge("latency{operation:list}", "max < 2s")[0]).toMatchObject({ passed: false }) // max ≈ 2000.x
    expect(judge("latency{operation:LIST}", "avg < 1100")[0]!.observed).toBeCloseTo(1010, -1)
    expect(judge("latency", "count == 1100")[0]).toMatchObject({ passed: true, observed: 1100 })
    expect(judge("errors", "rate < 0.01")[0]).toMatchObject({ passed: false })
    expect(judge("errors", "rate < 0.01")[0]!.observed).toBeCloseTo(20 / 1100, 6)
    expect(judge("errors{operation:LIST}", "rate < 0.01")[0]).toMatchObject({ passed: true, observed: 0 })
    expect(judge("dropped_iterations", "count == 0")[0]).toMatchObject({ passed: false, observed: 5 })
    expect(judge("iterations{operation:GET}", "count > 0")[0]).toMatchObject({ passed: true, observed: 1000 })
    expect(judge("service_time{scope:cluster}", "p(50) <= 1.1s")[0]).toMatchObject({ passed: true })
    expect(judge("service_time{scope:cluster}", "p(50) < 900ms")[0]).toMatchObject({ passed: false })
  })

  it("a selector that matches nothing is reported as no data and fails (count is then 0)", () => {
    expect(judge("latency{resource:nodes}", "p(99) < 1s")[0]).toMatchObject({ noData: true, passed: false, series: 0 })
    expect(judge("iterations{resource:nodes}", "count > 0")[0]).toMatchObject({ noData: false, passed: false, observed: 0 })
  })
})

describe("exit codes", () => {
  it("0 pass, 99 breached, 2 invalid input, 1 run error, 130 / 143 stopped by SIGINT / SIGTERM", () => {
    expect(exitCodeOf("pass")).toBe(ExitCode.Pass)
    expect(exitCodeOf("pass")).toBe(0)
    expect(exitCodeOf("thresholds-breached")).toBe(99)
    expect(exitCodeOf("invalid-input")).toBe(2)
    expect(exitCodeOf("run-error")).toBe(1)
    expect(exitCodeOf("interrupted", "SIGINT")).toBe(130)
    expect(exitCodeOf("interrupted", "SIGTERM")).toBe(143)
  })

})

describe("no data (k6 #1526: a threshold must not pass silently)", () => {
  const series = measurements([{ key: api("GET", "configmaps", "resource"), ms: [5, 6] }])

  it("an expression with no data fails; k6's object form with allowNoData: true passes", () => {
    const t = Either.getOrThrow(
      parseThreshold("latency{operation:LIST}", ["p(99) < 1s", { threshold: "p(99) < 2s", allowNoData: true }, { threshold: "max < 3s", allowNoData: false }])
    )
    expect(t.conditions.map((c) => [c.source, c.allowNoData])).toEqual([
      ["p(99) < 1s", undefined],
      ["p(99) < 2s", true],
      ["max < 3s", undefined]
    ])
    expect(evaluate([t], series).map((r) => [r.condition, r.noData, r.passed])).toEqual([
      ["p(99) < 1s", true, false],
      ["p(99) < 2s", true, true],
      ["max < 3s", true, false]
    ])
  })

  it("allowNoData does not loosen a threshold that has data", () => {
    const t = Either.getOrThrow(parseThreshold("latency{operation:GET}", { threshold: "max < 1ms", allowNoData: true }))
    expect(evaluate([t], series)[0]).toMatchObject({ noData: false, passed: false, observed: 6 })
  })

  it("the object form's expression is checked like the string's", () => {
    const r = parseThreshold("latency", [{ threshold: "p(99) < 1 parsec" }])
    expect(Either.isLeft(r) && r.left.message).toBe('invalid threshold "p(99) < 1 parsec": unknown unit (expected us, ms, s, m, h) "parsec"')
  })
})

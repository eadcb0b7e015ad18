import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { encodeHistogram, makeHistogram, recordMillis, summarize } from "../../src/loadgen/LatencyRecorder.js"
import { evaluate, type ExpressionSpec, parseThreshold, parseThresholds, ThresholdParseError } from "../../src/loadgen/Thresholds.js"
import { clusterFigures } from "../../simulator/cluster/ClusterFigures.js"
import { observedText } from "../../reports/summary.js"

const parse = (spec: Record<string, ExpressionSpec | ReadonlyArray<ExpressionSpec>>) => Either.getOrThrow(parseThresholds(spec))

/** A 60 s run of 3 nodes: 1,800 lease writes, renewals of 100…1,000 ms, node-b NotReady once and back. */
const result = () => {
  const h = makeHistogram()
  for (let i = 1; i <= 10; i++) recordMillis(h, i * 100)
  const level = (dispatched: number, queueFull: number, timeOut: number) => ({
    seats: 4,
    dispatched,
    rejected: queueFull + timeOut,
    rejectedBy: { "queue-full": queueFull, "time-out": timeOut, "concurrency-limit": 0 },
    queueWaitMs: summarize(makeHistogram())
  })
  return {
    durationMs: 60_000,
    heartbeats: { leaseWrites: 1800, leaseCreates: 3, failedAttempts: 2, perSecond: 30 },
    leaseRenewLatency: { ...summarize(h), hdr: encodeHistogram(h) },
    readyTimeline: {
      "node-a": [[0, "True", "KubeletReady"]] as const,
      "node-b": [[0, "True", "KubeletReady"], [40_000, "Unknown", "NodeStatusUnknown"], [50_000, "True", "KubeletReady"]] as const,
      // registered NotReady, then Ready: not a node that left Ready
      "node-c": [[0, "False", "KubeletNotReady"], [5_000, "True", "KubeletReady"]] as const
    },
    serverModel: {
      modelled: true as const,
      parameters: { readBaseMs: 1, writeBaseMs: 2, perObjectMs: 0.005, perKiBMs: 0.01, maxRequestsInflight: 400, maxMutatingRequestsInflight: 200, apf: true },
      priorityLevels: { "node-high": level(1800, 0, 0), "global-default": level(500, 30, 12), "workload-low": level(10, 7, 0) }
    }
  }
}

const judge = (spec: Record<string, string | ReadonlyArray<string>>) =>
  evaluate(parse(spec), [], clusterFigures(result())).map((r) => ({ threshold: r.threshold, group: r.group, observed: r.observed, passed: r.passed }))

describe("thresholds on a cluster run's figures", () => {
  it("lease writes: count, and rate per second of the run", () => {
    expect(judge({ lease_writes: ["count == 1800", "rate >= 30", "rate > 30"] }).map((r) => [r.observed, r.passed])).toEqual([
      [1800, true],
      [30, true],
      [30, false]
    ])
    expect(judge({ lease_failures: "count == 0" })[0]).toMatchObject({ observed: 2, passed: false })
    const [count, rate] = evaluate(parse({ lease_writes: ["count > 0", "rate > 0"] }), [], clusterFigures(result()))
    expect(count!.unit).toBeUndefined()
    expect(rate!.unit).toBe("/s")
    expect(observedText(rate!)).toBe("30.000/s")
  })

  it("lease renew latency: percentiles of the result's histogram, in ms", () => {
    const [p50, p99, max] = judge({ lease_renew_latency: ["p(50) < 500ms", "p(99) <= 1s", "max < 1s"] })
    expect(p50!.observed).toBeCloseTo(500, -1)
    expect(p50!.passed).toBe(false)
    expect(p99!.observed).toBeCloseTo(1000, -1)
    expect(max!.passed).toBe(false)
  })

  it("429s per priority level: selected, summed over reasons, or one result per level with *", () => {
    expect(judge({ "apf_rejected{priority_level:global-default}": "count == 42" })[0]).toMatchObject({ observed: 42, passed: true })
    expect(judge({ "apf_rejected{priority_level:node-high|workload-low}": "count == 0" })[0]).toMatchObject({ observed: 7, passed: false })
    expect(judge({ "apf_rejected{reason:time-out}": "count == 12" })[0]).toMatchObject({ observed: 12, passed: true })
    expect(judge({ "apf_rejected{priority_level:*}": "count < 10" })).toEqual([
      { threshold: "apf_rejected{priority_level:*}", group: { priority_level: "node-high" }, observed: 0, passed: true },
      { threshold: "apf_rejected{priority_level:*}", group: { priority_level: "global-default" }, observed: 42, passed: false },
      { threshold: "apf_rejected{priority_level:*}", group: { priority_level: "workload-low" }, observed: 7, passed: true }
    ])
    expect(judge({ "apf_dispatched{priority_level:node-high}": "count >= 1800" })[0]).toMatchObject({ observed: 1800, passed: true })
  })

  it("relist memory peak: a gauge judged by max, in bytes; no data without the memory model; other aggregations refused", () => {
    const relistMemory = { peakBytes: 66_582_240, peakAtMs: 19_001, atPeak: { lists: 4, watchLists: 0 }, lists: { count: 100, largestBytes: 16_645_560 }, watchLists: { count: 0, largestBytes: 0 } }
    const base = result()
    const withMemory = { ...base, serverModel: { ...base.serverModel, relistMemory } }
    const spec = parse({ server_relist_memory_peak: ["max < 33554432", "max <= 66582240"] })
    expect(evaluate(spec, [], clusterFigures(withMemory)).map((r) => [r.observed, r.passed])).toEqual([
      [66_582_240, false],
      [66_582_240, true]
    ])
    expect(evaluate(spec, [], clusterFigures(base))[0]).toMatchObject({ observed: undefined, noData: true, passed: false })
    const bad = parseThreshold("server_relist_memory_peak", "count < 5")
    expect(Either.isLeft(bad) && bad.left.message).toBe('invalid threshold "count < 5": aggregation not available for a gauge metric (allowed: max) "count"')
    expect(Either.isLeft(parseThreshold("server_relist_memory_peak", "max < 32MiB"))).toBe(true)
  })

  it("Ready changes by new status, and the nodes that left Ready after being Ready", () => {
    expect(judge({ "ready_transitions{status:Unknown|False}": "count == 0" })[0]).toMatchObject({ observed: 1, passed: false })
    expect(judge({ "ready_transitions{status:True}": "count == 2" })[0]).toMatchObject({ observed: 2, passed: true })
    expect(judge({ "ready_transitions{status:False}": "count == 0" })[0]).toMatchObject({ observed: 0, passed: true })
    expect(judge({ not_ready_nodes: "count == 0" })[0]).toMatchObject({ observed: 1, passed: false })
  })

  it("without APF (no priority levels) or without a cluster, a cluster metric has no data and fails unless it allows no data", () => {
    const noApf = { ...result(), serverModel: { ...result().serverModel, priorityLevels: undefined } }
    expect(evaluate(parse({ "apf_rejected{priority_level:node-high}": "count > 0" }), [], clusterFigures(noApf))[0]).toMatchObject({ noData: true, passed: false })
    expect(evaluate(parse({ lease_writes: "rate > 1" }), [])[0]).toMatchObject({ noData: true, passed: false })
    const allowed = parse({ "apf_rejected{priority_level:node-high}": [{ threshold: "count == 0", allowNoData: true }] })
    expect(evaluate(allowed, [], clusterFigures(noApf))[0]).toMatchObject({ noData: true, passed: true })
  })

  it("names, tags and aggregations are checked per metric", () => {
    const error = (name: string, expr: string) => {
      const e = parseThreshold(name, expr)
      if (Either.isRight(e)) throw new Error(`expected ${name}: ${expr} to fail`)
      expect(e.left).toBeInstanceOf(ThresholdParseError)
      return [e.left.token, e.left.reason]
    }
    expect(error("lease_writes{priority_level:x}", "count > 0")).toEqual(["priority_level", "lease_writes has no tags, got"])
    expect(error("apf_rejected{operation:LIST}", "count > 0")).toEqual(["operation", "unknown tag (known: priority_level, reason)"])
    expect(error("latency{priority_level:x}", "p(99) < 1s")[0]).toBe("priority_level")
    expect(error("lease_writes", "p(99) < 1")[0]).toBe("p(99)")
    expect(error("lease_writes", "rate < 1s")).toEqual(["s", "rate takes a plain number, not a unit"])
    expect(error("lease_renewals", "count > 0")[1]).toContain("lease_renew_latency")
    // rate stays errors/completed for the load's counters: only the cluster's counters are per second
    expect(error("iterations", "rate > 1")[0]).toBe("rate")
  })
})

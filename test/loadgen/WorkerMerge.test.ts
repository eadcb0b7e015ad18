import { describe, expect, it } from "@effect/vitest"
import { combineHealth, type HealthReport } from "../../src/loadgen/GeneratorHealth.js"
import { encodeHistogram, encodeSeries, Recordings, type Sample } from "../../src/loadgen/LatencyRecorder.js"
import { decodeSeries, mergeIntervals, mergeSeries } from "../../src/loadgen/WorkerMerge.js"
import { seededRandom } from "../../app/scenario/Operations.js"

const get = { metric: "api_call", operation: "GET", resource: "pods", scope: "resource" }
const list = { metric: "api_call", operation: "LIST", resource: "pods", scope: "namespace" }

/** 12,000 samples over 10 s, latencies log-uniform from 50 µs to 20 s, some errors; in completion order, as recorded. */
const samples = (): Array<{ key: typeof get; sample: Sample }> => {
  const random = seededRandom(7)
  return Array.from({ length: 12_000 }, (_, i) => {
    const intendedStart = (i / 12_000) * 10_000
    const latency = 0.05 * Math.pow(400_000, random())
    return {
      key: i % 5 === 0 ? list : get,
      sample: { intendedStart, sentAt: intendedStart + latency * random() * 0.5, completedAt: intendedStart + latency, ok: random() > 0.02, model: "open" as const }
    }
  }).sort((a, b) => a.sample.completedAt - b.sample.completedAt)
}

const health = (lagP99: number, cpu: number, reasons: ReadonlyArray<string>): HealthReport => ({
  elapsedMs: 1000,
  loopLag: { p50: 0, p99: lagP99, max: lagP99, mean: 0, samples: 10 },
  cpu: { userMs: cpu * 1000, systemMs: 0, fractionOfCore: cpu },
  bytesIn: 100,
  bytesOut: 10,
  saturated: reasons.length > 0,
  reasons
})

describe("merging workers' recordings", () => {
  it("N workers' series and intervals, V2-encoded and merged, equal one recorder's of the same samples (exact counts)", () => {
    const all = samples()
    const single = new Recordings({ originMs: 0 })
    for (const { key, sample } of all) single.record(key, sample)
    single.flush()
    for (const count of [2, 3]) {
      const workers = Array.from({ length: count }, () => new Recordings({ originMs: 0 }))
      all.forEach(({ key, sample }, i) => workers[i % count]!.record(key, sample))
      for (const w of workers) w.flush()
      // what crosses the process boundary: encoded series, intervals with encoded histograms (JSON)
      const sent = workers.map((w) => JSON.parse(JSON.stringify({ series: w.snapshot().map(encodeSeries), intervals: w.intervals() })))
      const series = mergeSeries(sent.map((s) => s.series.map(decodeSeries)))
      for (const expected of single.snapshot()) {
        const got = series.find((s) => s.key.operation === expected.key.operation)!
        expect(got.latency.totalCount).toBe(expected.latency.totalCount)
        expect(encodeHistogram(got.latency)).toBe(encodeHistogram(expected.latency))
        expect(encodeHistogram(got.serviceTime)).toBe(encodeHistogram(expected.serviceTime))
        for (const p of [50, 90, 99, 99.9, 100]) expect(got.latency.getValueAtPercentile(p)).toBe(expected.latency.getValueAtPercentile(p))
        expect({ errors: got.errors, count: got.count, outOfRange: got.outOfRange }).toEqual({ errors: expected.errors, count: expected.count, outOfRange: expected.outOfRange })
      }
      const intervals = mergeIntervals(sent.map((s) => s.intervals))
      const expectedIntervals = single.intervals()
      expect(intervals.length).toBe(expectedIntervals.length)
      for (const e of expectedIntervals) {
        const got = intervals.find((i) => i.index === e.index && i.key.operation === e.key.operation)!
        expect(got.latencyHistogram).toBe(e.latencyHistogram)
        // counts and percentiles exactly; the max is its bucket's (the V2 encoding keeps buckets, not the raw maximum)
        const { max, mean, ...rest } = got.latency
        const { max: expectedMax, mean: expectedMean, ...expectedRest } = e.latency
        expect(rest).toEqual(expectedRest)
        expect(Math.abs(max - expectedMax)).toBeLessThanOrEqual(expectedMax * 0.001)
        expect(Math.abs(mean - expectedMean)).toBeLessThanOrEqual(expectedMean * 0.001)
        expect(got.errors).toBe(e.errors)
      }
      expect(intervals.map((i) => i.index)).toEqual([...intervals.map((i) => i.index)].sort((a, b) => a - b))
    }
  })

  it("a saturated worker flags the run, named; bytes add up; one worker's report is the run's", () => {
    const calm = health(2, 0.4, [])
    const busy = health(80, 0.95, ["event-loop lag p99 80.0 ms > 50 ms", "CPU 95 % of a core ≥ 90 %"])
    const run = combineHealth([calm, busy])
    expect(run.saturated).toBe(true)
    expect(run.reasons).toEqual(["worker 1: event-loop lag p99 80.0 ms > 50 ms", "worker 1: CPU 95 % of a core ≥ 90 %"])
    expect(run.loopLag.p99).toBe(80)
    expect(run.cpu.fractionOfCore).toBe(0.95)
    expect([run.bytesIn, run.bytesOut]).toEqual([200, 20])
    expect(run.workers).toEqual([calm, busy])
    expect(combineHealth([calm, calm]).saturated).toBe(false)
    expect(combineHealth([calm])).toBe(calm)
  })
})

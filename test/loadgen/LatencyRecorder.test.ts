import { describe, expect, it } from "@effect/vitest"
import { Effect, Schema, TestClock } from "effect"
import {
  decodeHistogram,
  EncodedSeries,
  encodeHistogram,
  encodeSeries,
  HIGHEST_TRACKABLE_MICROS,
  LatencyRecorder,
  makeHistogram,
  meanOf,
  Recordings,
  type Sample,
  summarize,
  toMicros
} from "../../src/loadgen/LatencyRecorder.js"

const key = { metric: "api_call", operation: "LIST", resource: "pods", scope: "namespace" }
const other = { metric: "api_call", operation: "GET", resource: "pods", scope: "resource" }

/** A sample that completed at `at`, `latency` ms after its intended start and `service` ms after sending. */
const sample = (at: number, latency: number, service = latency, ok = true): Sample => ({
  intendedStart: at - latency,
  sentAt: at - service,
  completedAt: at,
  ok,
  model: "open"
})

describe("histogram helpers", () => {
  it("records integer microseconds inside 1 µs … 1 h", () => {
    expect(toMicros(1.2345)).toBe(1235)
    expect(toMicros(-3)).toBe(0)
    expect(toMicros(Number.NaN)).toBe(0)
    expect(toMicros(5 * 3_600_000)).toBe(HIGHEST_TRACKABLE_MICROS)
  })

  it("summarizes in milliseconds to 3 significant digits", () => {
    const h = makeHistogram()
    for (let v = 1; v <= 1000; v++) h.recordValue(v * 1000) // 1 … 1000 ms
    const s = summarize(h)
    expect(s.count).toBe(1000)
    expect(s.min).toBe(1)
    expect(s.mean).toBeCloseTo(500.5, 0)
    expect(s.p50).toBeCloseTo(500, -1)
    expect(Math.abs(s.p90 - 900) / 900).toBeLessThan(0.001)
    expect(Math.abs(s.p95 - 950) / 950).toBeLessThan(0.001)
    expect(Math.abs(s.p99 - 990) / 990).toBeLessThan(0.001)
    expect(Math.abs(s.p99_9 - 999) / 999).toBeLessThan(0.001)
    expect(Math.abs(s.max - 1000) / 1000).toBeLessThan(0.001)
    expect(summarize(makeHistogram())).toMatchObject({ count: 0, p99: 0, max: 0 })
  })

  it("meanOf is hdr-histogram-js's mean to the last bit, without its iterator", () => {
    const h = makeHistogram()
    expect(meanOf(h)).toBe(0)
    // a spread over every bucket size: 0 µs, sub-ms, ms, seconds and the 1 h ceiling
    let x = 1
    for (let i = 0; i < 20_000; i++) {
      x = (x * 48271) % 2147483647
      h.recordValue(i % 1000 === 0 ? HIGHEST_TRACKABLE_MICROS : (x % 5000) * (1 + (i % 7) * (i % 3) * 40))
    }
    h.recordValue(0)
    expect(meanOf(h)).toBe(h.mean)
    const decoded = decodeHistogram(encodeHistogram(h))
    expect(meanOf(decoded)).toBe(h.mean)
  })

  it("a bound recorder records what `record` does, outcome by outcome", () => {
    const a = new Recordings({ originMs: 0 })
    const b = new Recordings({ originMs: 0 })
    const bound = b.bind(key, "closed")
    const rows: Array<[number, number, number, "ok" | "error" | "connectionError"]> = [
      [0, 2, 10, "ok"],
      [5, 5, 1500, "error"],
      [1600, 1600, 1601, "connectionError"],
      [2000, 2100, 2200, "ok"]
    ]
    for (const [intended, sent, done, outcome] of rows) {
      a.record(key, { intendedStart: intended, sentAt: sent, completedAt: done, ok: outcome === "ok", model: "closed", ...(outcome === "connectionError" ? { connectionError: true } : {}) })
      bound(intended, sent, done, outcome)
    }
    a.flush()
    b.flush()
    const [sa, sb] = [a.snapshot()[0]!, b.snapshot()[0]!]
    expect(encodeSeries(sb)).toEqual(encodeSeries(sa))
    expect(sb).toMatchObject({ count: 4, errors: 2, connectionErrors: 1, models: ["closed"] })
    expect(b.intervals().map((i) => [i.index, i.latency.count, i.errors])).toEqual([[0, 1, 0], [1, 1, 2], [2, 1, 0]])
    expect(b.intervals()).toEqual(a.intervals())
  })

  it("min counts 0 µs samples (minNonZeroValue would not)", () => {
    const h = makeHistogram()
    h.recordValue(0)
    h.recordValue(5000)
    expect(summarize(h).min).toBe(0)
  })

  it("base64 is V2 compressed and round-trips", () => {
    const h = makeHistogram()
    for (let i = 0; i < 10_000; i++) h.recordValue(1 + ((i * 7919) % 2_000_000))
    h.recordValue(HIGHEST_TRACKABLE_MICROS)
    const encoded = encodeHistogram(h)
    // V2 compressed cookie 0x1c849304 with word-size nibble 0x10 → 0x1c849314 (HdrHistogram interchange)
    expect(Buffer.from(encoded, "base64").readUInt32BE(0).toString(16)).toBe("1c849314")
    const back = decodeHistogram(encoded)
    expect(back.totalCount).toBe(h.totalCount)
    for (const p of [0, 50, 90, 99, 99.9, 100]) expect(back.getValueAtPercentile(p)).toBe(h.getValueAtPercentile(p))
    // decoding restores max as its bucket's highest equivalent value (within the 0.1 % resolution)
    expect(Math.abs(back.maxValue - h.maxValue) / h.maxValue).toBeLessThan(0.001)
    expect(encodeHistogram(back)).toBe(encoded)
    expect(() => decodeHistogram("bm90IGEgaGlzdG9ncmFt")).toThrow()
  })
})

describe("Recordings", () => {
  it("keeps latency from intended start and service time from send apart, per key", () => {
    const r = new Recordings({ originMs: 0 })
    r.record(key, sample(100, 900, 5))
    r.record(key, sample(200, 10, 10, false))
    r.record(other, sample(300, 1, 1))
    const [list, get] = r.snapshot()
    expect(list?.key).toEqual(key)
    expect(summarize(list!.latency).max).toBeCloseTo(900, 0)
    expect(summarize(list!.serviceTime).max).toBeCloseTo(10, 1)
    expect(list).toMatchObject({ count: 2, errors: 1, dropped: 0, models: ["open"] })
    expect(get).toMatchObject({ key: other, count: 1, errors: 0 })
  })

  it("closes interval histograms by completion time and keeps whole-run totals", () => {
    const r = new Recordings({ originMs: 10_000, intervalMs: 1000 })
    r.record(key, sample(10_100, 5))
    r.record(key, sample(10_900, 7))
    r.record(key, sample(11_500, 50))
    r.recordDropped(key, 11_600, 3)
    r.record(key, sample(13_200, 20)) // interval 2 is empty and is skipped
    r.rollUntil(13_999)
    const closed = r.intervals()
    expect(closed.map((i) => [i.index, i.startMs, i.endMs, i.latency.count, i.dropped])).toEqual([
      [0, 0, 1000, 2, 0],
      [1, 1000, 2000, 1, 3]
    ])
    expect(closed[1]!.latency.p99).toBeCloseTo(50, 1)
    expect(decodeHistogram(closed[0]!.latencyHistogram).totalCount).toBe(2)
    // totals include the still-open interval 3
    expect(r.snapshot()[0]).toMatchObject({ count: 4, dropped: 3 })
    r.flush()
    expect(r.intervals().map((i) => i.index)).toEqual([0, 1, 3])
    expect(r.snapshot()[0]).toMatchObject({ count: 4, dropped: 3 })
  })

  it("counts samples clamped to the 1 h range", () => {
    const r = new Recordings({ originMs: 0 })
    r.record(key, sample(1, 2 * 3_600_000, 3))
    expect(r.snapshot()[0]).toMatchObject({ count: 1, outOfRange: 1 })
    expect(summarize(r.snapshot()[0]!.latency).max).toBeCloseTo(3_600_000, -4)
    // the service time of the same sample is still recorded
    expect(summarize(r.snapshot()[0]!.serviceTime)).toMatchObject({ count: 1, max: 3 })
  })

  it("merges series from another worker through their encoded (Schema) form", () => {
    const a = new Recordings({ originMs: 0 })
    const b = new Recordings({ originMs: 0 })
    for (let i = 0; i < 100; i++) a.record(key, sample(10 + i, 10))
    for (let i = 0; i < 100; i++) b.record(key, sample(10 + i, 1000, 1000, i % 10 !== 0))
    b.recordDropped(key, 50, 2)
    const wire = JSON.parse(JSON.stringify(encodeSeries(b.snapshot()[0]!)))
    a.merge(Schema.decodeUnknownSync(EncodedSeries)(wire), 500)
    const merged = a.snapshot()[0]!
    expect(merged).toMatchObject({ count: 200, errors: 10, dropped: 2 })
    expect(summarize(merged.latency).p50).toBeCloseTo(10, 1)
    expect(summarize(merged.latency).p99).toBeCloseTo(1000, -1)
  })
})

describe("LatencyRecorder service", () => {
  it.effect("stamps drops and rolls intervals with the Effect Clock", () =>
    Effect.gen(function* () {
      const recorder = yield* LatencyRecorder
      yield* recorder.record(key, sample(200, 20))
      yield* TestClock.adjust("1500 millis")
      yield* recorder.recordDropped(key)
      expect((yield* recorder.intervals).map((i) => i.index)).toEqual([0])
      yield* TestClock.adjust("1 second")
      const intervals = yield* recorder.intervals
      expect(intervals.map((i) => [i.index, i.latency.count, i.dropped])).toEqual([
        [0, 1, 0],
        [1, 0, 1]
      ])
      expect((yield* recorder.snapshot)[0]).toMatchObject({ count: 1, dropped: 1 })
    }).pipe(Effect.provide(LatencyRecorder.layer({ intervalMs: 1000 }))))
})

import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, TestClock } from "effect"
import { closedLoop, constantArrivalRate, constantPlan, rampingPlan } from "../../src/loadgen/Arrival.js"
import { boundsOf, nameHash, ownerOfName, ownsName, parseSegment, partsOf, runWideIteration, segments, segmentText, sequenceText, shareOf, splitBy, stripe, stripedOffsets } from "../../src/loadgen/ExecutionSegment.js"
import { LatencyRecorder } from "../../src/loadgen/LatencyRecorder.js"

const key = { metric: "api_call", operation: "GET", resource: "pods", scope: "resource" }

describe("execution segments", () => {
  it("a striped plan: the segments' iterations are the plan's, each once, with its offset and run-wide number", () => {
    const plan = Array.from(rampingPlan({ startRate: 0, timeUnitMs: 1000, stages: [{ target: 90, durationMs: 10_000 }, { target: 30, durationMs: 5_000 }] }))
    for (const count of [1, 2, 3, 7]) {
      const parts = segments(count).map((seg) => Array.from(stripe(plan, seg)))
      const all = parts.flat().sort((a, b) => a.iteration - b.iteration)
      expect(all.map((x) => x.iteration)).toEqual(plan.map((_, i) => i))
      expect(all.map((x) => x.offset)).toEqual(plan)
      // every segment runs its share of every second: the rate splits, not the time
      for (const part of parts) {
        const perSecond = new Map<number, number>()
        for (const x of part) perSecond.set(Math.floor(x.offset / 1000), (perSecond.get(Math.floor(x.offset / 1000)) ?? 0) + 1)
        const whole = new Map<number, number>()
        for (const o of plan) whole.set(Math.floor(o / 1000), (whole.get(Math.floor(o / 1000)) ?? 0) + 1)
        for (const [second, n] of whole) expect(Math.abs((perSecond.get(second) ?? 0) - n / count)).toBeLessThanOrEqual(1)
      }
    }
  })

  it("whole numbers split with the remainder first; the shares sum to the total", () => {
    expect(segments(3).map((s) => shareOf(10, s))).toEqual([4, 3, 3])
    expect(segments(4).map((s) => shareOf(2, s))).toEqual([1, 1, 0, 0])
    for (const total of [0, 1, 5, 64, 150, 1001]) for (const count of [1, 2, 3, 8]) expect(segments(count).reduce((a, s) => a + shareOf(total, s), 0)).toBe(total)
  })

  it.effect("constant-arrival-rate across 3 workers: the started iterations sum to the plan, none twice", () =>
    Effect.gen(function* () {
      const plan = Array.from(constantPlan({ rate: 100, timeUnitMs: 1000, durationMs: 2000 })).length
      const seen: Array<number> = []
      const runs = yield* Effect.forEach(segments(3), (segment) =>
        Effect.gen(function* () {
          const recorder = yield* LatencyRecorder.make()
          return yield* Effect.fork(
            constantArrivalRate({
              key,
              rate: 100,
              duration: Duration.seconds(2),
              maxInFlight: 100,
              segment,
              operation: (ctx) => Effect.sync(() => void seen.push(ctx.iteration))
            }).pipe(Effect.provideService(LatencyRecorder, recorder))
          )
        })
      )
      yield* TestClock.adjust(Duration.seconds(3))
      const reports = yield* Effect.forEach(runs, Fiber.join)
      expect(reports.map((r) => r.started)).toEqual([67, 67, 66])
      expect(reports.reduce((a, r) => a + (r.planned ?? 0), 0)).toBe(plan)
      expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: plan }, (_, i) => i))
    })
  )

  it.effect("closed loop across 2 workers: the iterations follow the workers (2 + 1 of 3: 7 + 4 of 11), iteration numbers unique", () =>
    Effect.gen(function* () {
      const seen: Array<number> = []
      const reports = yield* Effect.forEach(segments(2), (segment) =>
        closedLoop({ key, workers: 3, iterations: 11, segment, operation: (ctx) => Effect.sync(() => void seen.push(ctx.iteration)) }).pipe(Effect.provide(LatencyRecorder.layer()))
      )
      // k6's shared-iterations: 11 over the sequence 0,2/3,1 the workers make
      expect(reports.map((r) => r.completed)).toEqual([7, 4])
      expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 11 }, (_, i) => i))
    })
  )

  it.effect("a closed loop with fewer workers than segments: the iterations are the segments' with workers, none left unplanned", () =>
    Effect.gen(function* () {
      const seen: Array<number> = []
      const reports = yield* Effect.forEach(segments(2), (segment) =>
        closedLoop({ key, workers: 1, iterations: 200, segment, operation: (ctx) => Effect.sync(() => void seen.push(ctx.iteration)) }).pipe(Effect.provide(LatencyRecorder.layer()))
      )
      expect(reports.map((r) => [r.planned, r.started])).toEqual([
        [200, 200],
        [0, 0]
      ])
      expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 200 }, (_, i) => i))
    })
  )

  it("k6's GetNewExecutionTupleFromValue: the sequence cut again by a value's split, parts without any left out", () => {
    // k6's TestGetNewExecutionTupleBesedOnValue: 20 over thirds is 7 + 7 + 6
    expect(segments(3).map((s) => sequenceText(splitBy(s, 20)!))).toEqual(["0,7/20,7/10,1", "0,7/20,7/10,1", "0,7/20,7/10,1"])
    // a value the cycle divides splits as the sequence: the same parts
    expect(splitBy({ index: 1, count: 3 }, 6)).toEqual({ index: 1, count: 3 })
    // 1 worker over 2: only the first part has any; 3 over 2: 2 + 1
    expect(segments(2).map((s) => splitBy(s, 1))).toEqual([{ index: 0, count: 1 }, undefined])
    expect(segments(2).map((s) => splitBy(s, 3))).toEqual([{ index: 0, count: 2, sequence: "0,2/3,1" }, { index: 1, count: 2, sequence: "0,2/3,1" }])
    // 2 over 0,1/4,3/4,1: the middle half and the first quarter (k6's striping gives position 1 to the first quarter)
    const unequal = partsOf({ index: 0, count: 3, sequence: "0,1/4,3/4,1" })
    expect(unequal.map((s) => shareOf(2, s))).toEqual([1, 1, 0])
    expect(unequal.map((s) => splitBy(s, 2))).toEqual([{ index: 0, count: 2 }, { index: 1, count: 2 }, undefined])
    // whatever the workers, the iterations of the parts with workers sum to the total, and each is numbered once
    for (const count of [1, 2, 3, 5]) {
      for (const workers of [1, 2, 3, 4, 7, 10]) {
        for (const total of [0, 1, 5, 11, 200]) {
          const parts = segments(count).map((s) => ({ workers: shareOf(workers, s), split: splitBy(s, workers) }))
          for (const p of parts) expect(p.split === undefined).toBe(p.workers === 0)
          const numbers = parts.flatMap((p) => (p.split === undefined ? [] : Array.from({ length: shareOf(total, p.split) }, (_, k) => runWideIteration(k, p.split!))))
          expect(numbers.sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i))
        }
      }
    }
  })
})

describe("k6's unequal segments (lib/execution_segment.go)", () => {
  const part = (text: string, sequence?: string) => {
    const parsed = parseSegment(text, undefined, sequence)
    if ("error" in parsed) throw new Error(parsed.error)
    return parsed.segment
  }

  it("stripes as k6's GetStripedOffsets: hand-computed 0,1/4,3/4,1 and k6's own cases", () => {
    // lengths 1/4, 1/2, 1/4 → lcd 4, numerators 1, 2, 1; largest first: position 0 → 1/4:3/4, 1 → 0:1/4, 2 → 1/4:3/4, 3 → 3/4:1
    const seq = "0,1/4,3/4,1"
    expect(stripedOffsets(part("0:1/4", seq))).toEqual({ start: 1, offsets: [4], lcd: 4 })
    expect(stripedOffsets(part("1/4:3/4", seq))).toEqual({ start: 0, offsets: [2, 2], lcd: 4 })
    expect(stripedOffsets(part("3/4:1", seq))).toEqual({ start: 3, offsets: [4], lcd: 4 })
    // k6's TestGetStripedOffsets (full sequences, and a segment without a sequence: filled around it)
    const k6 = "0,0.3,0.5,0.6,0.7,0.8,0.9,1"
    expect(stripedOffsets(part("0:0.3", k6))).toEqual({ start: 0, offsets: [4, 3, 3], lcd: 10 })
    expect(stripedOffsets(part("0.3:0.5", k6))).toEqual({ start: 1, offsets: [4, 6], lcd: 10 })
    expect(stripedOffsets(part("0.5:0.6", k6))).toEqual({ start: 2, offsets: [10], lcd: 10 })
    expect(stripedOffsets(part("0.8:0.9", k6))).toEqual({ start: 8, offsets: [10], lcd: 10 })
    expect(stripedOffsets(part("0:0.2", "0,0.2,0.5,0.6,0.7,0.8,0.9,1"))).toEqual({ start: 1, offsets: [4, 6], lcd: 10 })
    expect(stripedOffsets(part("0:0.2"))).toEqual({ start: 1, offsets: [5], lcd: 5 })
    expect(stripedOffsets(part("0:2/5"))).toEqual({ start: 1, offsets: [2, 3], lcd: 5 })
    expect(stripedOffsets(part("1/10:5/10"))).toEqual({ start: 1, offsets: [2, 2, 4, 2], lcd: 10 })
    // equal parts stripe i mod n, as i/n does
    expect(stripedOffsets(part("1/3:2/3", "0,1/3,2/3,1"))).toEqual({ start: 1, offsets: [3], lcd: 3 })
  })

  it("scales whole numbers as k6's ScaleInt64 (its documented 0,1/2,3/4,1 table) and numbers iterations as its SegmentedIndex", () => {
    const seq = "0,1/2,3/4,1"
    const [a, b, c] = [part("0:1/2", seq), part("1/2:3/4", seq), part("3/4:1", seq)]
    const values = Array.from({ length: 12 }, (_, i) => i + 1)
    expect(values.map((v) => shareOf(v, a))).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6])
    expect(values.map((v) => shareOf(v, b))).toEqual([0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3])
    expect(values.map((v) => shareOf(v, c))).toEqual([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3])
    // k6's iterators: 0 2 4 6 …, 1 5 9 …, 3 7 11 …
    expect([0, 1, 2, 3, 4, 5].map((k) => runWideIteration(k, a))).toEqual([0, 2, 4, 6, 8, 10])
    expect([0, 1, 2].map((k) => runWideIteration(k, b))).toEqual([1, 5, 9])
    expect([0, 1, 2].map((k) => runWideIteration(k, c))).toEqual([3, 7, 11])
  })

  it("the parts of a sequence: the union of their stripes is the one-process plan, their shares sum to every total", () => {
    const plan = Array.from(rampingPlan({ startRate: 0, timeUnitMs: 1000, stages: [{ target: 90, durationMs: 10_000 }, { target: 30, durationMs: 5_000 }] }))
    for (const sequence of ["0,1/4,3/4,1", "0,0.3,0.5,0.6,0.7,0.8,0.9,1", "0,1/3,4/7,1", "0,1/13,2/13,1/3,1/2,3/4,1"]) {
      const parts = partsOf(part("0:" + sequence.split(",")[1], sequence))
      const all = parts.flatMap((seg) => Array.from(stripe(plan, seg))).sort((x, y) => x.iteration - y.iteration)
      expect(all.map((x) => x.iteration)).toEqual(plan.map((_, i) => i))
      expect(all.map((x) => x.offset)).toEqual(plan)
      for (const total of [0, 1, 7, 64, 150, 1001]) expect(parts.reduce((n, s) => n + shareOf(total, s), 0)).toBe(total)
      // a closed loop's run-wide numbers: each part's first shares are disjoint and cover 0..total-1
      const numbers = parts.flatMap((s) => Array.from({ length: shareOf(100, s) }, (_, k) => runWideIteration(k, s)))
      expect(numbers.sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i))
    }
  })

  it("--segment from:to with --segment-sequence: k6's notation; equal parts are i/n", () => {
    expect(parseSegment("1/4:3/4", undefined, "0,1/4,3/4,1")).toEqual({ segment: { index: 1, count: 3, sequence: "0,1/4,3/4,1" } })
    // without a sequence k6 fills one around the segment
    expect(parseSegment("1/4:3/4")).toEqual({ segment: { index: 1, count: 3, sequence: "0,1/4,3/4,1" } })
    expect(parseSegment("25%:0.75", undefined, "0,25%,75%,1")).toEqual({ segment: { index: 1, count: 3, sequence: "0,1/4,3/4,1" } })
    expect(parseSegment("1/3:2/3", undefined, "0,1/3,2/3,1")).toEqual({ segment: { index: 1, count: 3 } })
    expect(parseSegment("3/4:1", undefined, "1/4,3/4")).toEqual({ segment: { index: 2, count: 3, sequence: "0,1/4,3/4,1" } })
    expect(segmentText(part("1/4:3/4", "0,1/4,3/4,1"))).toBe("1/4:3/4")
    expect(parseSegment("1/4:1/2", undefined, "0,1/4,3/4,1")).toEqual({ error: '"1/4:1/2": not a segment of the sequence 0,1/4,3/4,1' })
    expect(parseSegment("1/2", undefined, "0,1/2,1")).toEqual({ error: '"1/2": with --segment-sequence, name the part as k6 does, from:to (e.g. 1/4:3/4)' })
    expect(parseSegment("0:1/2", undefined, "0,1/2,1/3,1")).toEqual({ error: '--segment-sequence "0,1/2,1/3,1": segment start (1/2) should be less than its end (1/3)' })
    expect(parseSegment("0:1/2", undefined, "1/2")).toEqual({ error: '--segment-sequence "1/2": at least 2 points are needed for an execution segment sequence, 1 given' })
  })
})

describe("node ownership by a stable hash of the name", () => {
  const names = Array.from({ length: 3000 }, (_, i) => `sim-node-${String(i).padStart(5, "0")}`)
  const plans = [...[1, 2, 3, 7].map((n) => segments(n)[0]!), { index: 0, count: 3, sequence: "0,1/4,3/4,1" }]

  it("each node has exactly one owner among n ∈ {1, 2, 3, 7} parts (and an unequal sequence); the union is every node", () => {
    for (const plan of plans) {
      const parts = partsOf(plan)
      const owned = parts.map((s) => names.filter((name) => ownsName(s, name)))
      expect(owned.flat().sort()).toEqual([...names].sort())
      for (const name of names) expect(parts.filter((s) => ownsName(s, name))).toHaveLength(1)
      // each part's share near its length: within 5 standard deviations of the binomial
      parts.forEach((s, k) => {
        const { from, to } = boundsOf(s)
        const p = to.num / to.den - from.num / from.den
        expect(Math.abs(owned[k]!.length - p * names.length)).toBeLessThan(5 * Math.sqrt(names.length * p * (1 - p)) + 1)
      })
    }
  })

  it("stable: the owner depends on the name and the plan only, pinned here so that a change of hash is seen", () => {
    expect(["node-0", "node-1", "node-2", "node-3", "node-4", "node-5"].map((n) => ownerOfName(n, segments(2)[0]!))).toEqual([1, 1, 1, 1, 1, 0])
    expect(["node-0", "node-1", "node-2", "node-3", "node-4", "node-5"].map((n) => ownerOfName(n, segments(3)[0]!))).toEqual([1, 2, 2, 2, 2, 1])
    expect(nameHash("node-0")).toBe(2775360080)
    // a node keeps its owner whatever other nodes exist; equal 1/2 of 0,1/2,1 is the same plan as 2 equal parts
    const half = parseSegment("0:1/2")
    if ("error" in half) throw new Error(half.error)
    expect(names.map((n) => ownerOfName(n, half.segment))).toEqual(names.map((n) => ownerOfName(n, segments(2)[0]!)))
  })
})

import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Fiber, TestClock } from "effect"
import { closedLoop, constantArrivalRate, constantPlan, rampingPlan } from "../../src/loadgen/Arrival.js"
import { segments, shareOf, stripe } from "../../src/loadgen/ExecutionSegment.js"
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

  it.effect("closed loop across 2 workers: workers and iterations split, iteration numbers unique", () =>
    Effect.gen(function* () {
      const seen: Array<number> = []
      const reports = yield* Effect.forEach(segments(2), (segment) =>
        closedLoop({ key, workers: 3, iterations: 11, segment, operation: (ctx) => Effect.sync(() => void seen.push(ctx.iteration)) }).pipe(Effect.provide(LatencyRecorder.layer()))
      )
      expect(reports.map((r) => r.completed)).toEqual([6, 5])
      expect(new Set(seen).size).toBe(11)
    })
  )
})

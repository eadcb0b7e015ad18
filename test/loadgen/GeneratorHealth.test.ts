import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { assessSaturation, defaultSaturationLimits, GeneratorHealth } from "../../src/loadgen/GeneratorHealth.js"

/** Real-time pause (GeneratorHealth measures the real process, not the Effect Clock). */
const realSleep = (ms: number) => Effect.promise(() => new Promise<void>((resolve) => setTimeout(resolve, ms)))
const blockLoop = (ms: number) =>
  Effect.sync(() => {
    const end = performance.now() + ms
    while (performance.now() < end) {
      // busy: nothing else can run, exactly what an overloaded generator does
    }
  })

describe("assessSaturation", () => {
  it("flags loop lag above 50 ms p99 and CPU at or above 90 % of a core", () => {
    expect(defaultSaturationLimits).toEqual({ maxLoopLagP99Ms: 50, maxCpuFractionOfCore: 0.9 })
    expect(assessSaturation(10, 0.5)).toEqual([])
    expect(assessSaturation(50, 0.89)).toEqual([])
    expect(assessSaturation(50.1, 0.2)).toEqual(["event-loop lag p99 50.1 ms > 50 ms"])
    expect(assessSaturation(1, 0.9)).toEqual(["CPU 90 % of a core ≥ 90 %"])
    expect(assessSaturation(100, 1.2)).toHaveLength(2)
    expect(assessSaturation(30, 0.1, { maxLoopLagP99Ms: 20, maxCpuFractionOfCore: 0.9 })).toHaveLength(1)
  })
})

describe("GeneratorHealth", () => {
  it.scopedLive("a blocked event loop shows as lag and marks the window and the run saturated", () =>
    Effect.gen(function* () {
      const health = yield* GeneratorHealth.make({ resolutionMs: 10 })
      yield* realSleep(100)
      const quiet = yield* health.sample
      expect(quiet.loopLag.p99).toBeLessThan(50)
      yield* health.addBytesOut(1200)
      yield* health.addBytesIn(50_000)
      yield* realSleep(30)
      yield* blockLoop(250)
      yield* realSleep(50)
      const busy = yield* health.sample
      expect(busy.loopLag.max).toBeGreaterThan(150)
      expect(busy.saturated).toBe(true)
      expect(busy.reasons.join(" ")).toMatch(/event-loop lag p99/)
      // a 250 ms busy loop burns CPU; how much of the wall time depends on the CI machine's load. The window's share
      // of a core is its CPU over its own wall time (the process's: other threads' work counts too, so it is not
      // compared with the quiet window's — a collector thread's burst there once read 2 cores)
      expect(busy.cpu.userMs + busy.cpu.systemMs).toBeGreaterThan(25)
      expect(busy.elapsedMs).toBeGreaterThan(320)
      expect(busy.cpu.fractionOfCore).toBeCloseTo((busy.cpu.userMs + busy.cpu.systemMs) / busy.elapsedMs, 9)
      expect(busy).toMatchObject({ bytesIn: 50_000, bytesOut: 1200 })
      yield* realSleep(50)
      const summary = yield* health.summary
      expect(summary.saturated).toBe(true)
      expect(summary).toMatchObject({ bytesIn: 50_000, bytesOut: 1200 })
      expect(summary.elapsedMs).toBeGreaterThan(450)
    }))
})

import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as SimClock from "../../simulator/kernel/SimClock.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"

/** A component as it would be written: only Effect.sleep and Clock. */
const heartbeat = (beats: Array<number>) =>
  Effect.gen(function*() {
    for (let i = 0; i < 3; i++) {
      yield* Effect.sleep("20 millis")
      beats.push(yield* Clock.currentTimeMillis)
    }
    return beats.length
  })

describe("SimClock", () => {
  it("layerVirtual runs a component on the simulation's clock and run queue", async () => {
    const sim = Simulation.make({ startMillis: 1_000 })
    const beats: Array<number> = []
    // Started outside `sim.fork`, on Effect's default runtime: building the layer takes a step on the default
    // scheduler, after which the component lives on the kernel and only the driver moves it.
    const fiber = Effect.runFork(Effect.provide(heartbeat(beats), SimClock.layerVirtual(sim)))
    for (let i = 0; i < 100 && sim.pendingTimers() === 0; i++) await new Promise((resolve) => setTimeout(resolve, 1))
    expect(sim.pendingTimers()).toBe(1)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(beats).toEqual([]) // real time does not move it
    sim.runFor("1 minute")
    expect(beats).toEqual([1_020, 1_040, 1_060])
    expect(fiber.unsafePoll()).toEqual(Exit.succeed(3))
  })

  it.live("layerReal runs the same component on the wall clock", () =>
    Effect.gen(function*() {
      const sim = Simulation.make()
      const beats: Array<number> = []
      // Even from inside a simulated runtime, layerReal switches back to real time and the default scheduler.
      const fiber = Effect.runFork(
        Effect.provide(heartbeat(beats), SimClock.layerReal).pipe(Effect.provide(SimClock.layerVirtual(sim)))
      )
      const n = yield* Fiber.join(fiber)
      expect(n).toBe(3)
      expect(beats[0]).toBeGreaterThan(1_600_000_000_000)
      expect(beats[2]! - beats[0]!).toBeGreaterThanOrEqual(35)
      expect(sim.now()).toBe(0)
    }))
})

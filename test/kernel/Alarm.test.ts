import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber } from "effect"
import { Alarm } from "../../simulator/kernel/Alarm.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import { timers } from "../../simulator/kernel/Timers.js"

describe("Alarm", () => {
  it("a sleep ends at its time, or early when woken by an earlier time; a later time changes nothing", () => {
    const sim = Simulation.make({ startMillis: 0 })
    const woke: Array<number> = []
    let alarm: Alarm | undefined
    sim.fork(
      Effect.gen(function* () {
        alarm = new Alarm(yield* timers)
        for (let i = 0; i < 3; i++) {
          yield* alarm.sleep(10_000)
          woke.push(yield* Clock.currentTimeMillis)
        }
      })
    )
    sim.fork(
      Effect.gen(function* () {
        yield* Effect.sleep(3_000)
        alarm!.wakeBy(20_000) // past the sleep's end: nothing
        yield* Effect.sleep(1_000)
        alarm!.wakeBy(5_000) // before it: the sleep ends now
        yield* Effect.sleep(1_000)
        alarm!.wakeBy(5_000) // the next sleep ends at 14 s: ended too
      })
    )
    sim.runFor("60 seconds")
    expect(woke).toEqual([4_000, 5_000, 15_000])
  })

  it("an interrupted sleep leaves no timer behind and cannot be woken", () => {
    const sim = Simulation.make({ startMillis: 0 })
    let alarm: Alarm | undefined
    sim.fork(
      Effect.gen(function* () {
        alarm = new Alarm(yield* timers)
        const sleeper = yield* Effect.fork(alarm.sleep(10_000))
        yield* Effect.sleep(1_000)
        yield* Fiber.interrupt(sleeper)
        alarm.wakeBy(0)
      })
    )
    const result = sim.runFor("60 seconds")
    // the fiber's own 1 s sleep fired; the alarm's 10 s timer was cancelled
    expect(result.timersFired).toBe(1)
  })
})

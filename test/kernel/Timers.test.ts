import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import { timers, type Timers } from "../../simulator/kernel/Timers.js"

/** Three timers, one cancelled, one re-arming itself from its task: what ran, at which reading of the clock. */
const script = (clock: Timers, fired: Array<string>): void => {
  const start = clock.now()
  const at = (label: string) => () => void fired.push(`${label}@${clock.now() - start}`)
  clock.after(1_500, at("a"))
  const cancelB = clock.after(1_000, at("b"))
  clock.after(500, () => {
    at("c")()
    cancelB()
    clock.after(2_000, at("d"))
  })
}

describe("Timers", () => {
  it("on the virtual clock: heap timers fire at their time, cancelled ones never, and a task may schedule the next", () => {
    const sim = Simulation.make({ startMillis: 1_000 })
    const fired: Array<string> = []
    sim.fork(Effect.map(timers, (clock) => script(clock, fired)))
    const result = sim.runFor("10 seconds")
    expect(fired).toEqual(["c@500", "a@1500", "d@2500"])
    // the driver ran the three tasks itself: the run queue only ever saw the forked fiber's start
    expect(result.timersFired).toBe(3)
    expect(result.tasksRun).toBe(1)
  })

  it.effect("on any other clock: a fiber per timer on that clock's time, with the same outcome", () =>
    Effect.gen(function* () {
      const fired: Array<string> = []
      const clock = yield* timers
      script(clock, fired)
      yield* TestClock.adjust("999 millis")
      expect(fired).toEqual(["c@500"])
      yield* TestClock.adjust("10 seconds")
      expect(fired).toEqual(["c@500", "a@1500", "d@2500"])
    })
  )
})

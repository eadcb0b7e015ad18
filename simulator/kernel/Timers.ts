/**
 * Plain callbacks after a delay, on the running fiber's `Clock`.
 *
 * On the virtual clock a timer is the clock's own heap entry, run by the driver: no fiber, sleep or interruption
 * each. Thousands of long-lived timers (every watch's bookmark and deadline) cost a fiber's allocations per wake-up
 * otherwise, kept long enough to reach the old generation (docs/benchmarks.md "With clients"). On any other clock
 * (the live clock of `serve`, a `TestClock`) each timer is a fiber that sleeps, so it keeps that clock's time.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as Runtime from "effect/Runtime"
import { VirtualClock } from "./VirtualClock.js"

export interface Timers {
  /** The clock's reading, in ms. */
  readonly now: () => number
  /** Runs `task` once after `delayMillis` (≥ 0) unless the returned function is called first. */
  readonly after: (delayMillis: number, task: () => void) => () => void
}

export const timers: Effect.Effect<Timers> = Effect.flatMap(Effect.clock, (clock) => {
  if (clock instanceof VirtualClock)
    return Effect.succeed<Timers>({
      now: () => clock.unsafeCurrentTimeMillis(),
      after: (delayMillis, task) => {
        const timer = clock.unsafeSchedule(task, delayMillis)
        return () => void clock.unsafeCancel(timer)
      }
    })
  return Effect.map(Effect.runtime<never>(), (runtime): Timers => {
    const fork = Runtime.runFork(runtime)
    return {
      now: () => clock.unsafeCurrentTimeMillis(),
      after: (delayMillis, task) => {
        const fiber = fork(Effect.delay(Effect.sync(task), Duration.millis(delayMillis)))
        return () => fiber.unsafeInterruptAsFork(FiberId.none)
      }
    }
  })
})

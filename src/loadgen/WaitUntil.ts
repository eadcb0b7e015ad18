/**
 * Waiting for an instant on the Clock with sub-millisecond precision, for schedules measured from the intended start
 * (docs/measurement.md). A timer's resolution is a millisecond — libuv's loop time, which may be up to a millisecond
 * behind the clock — so a timer alone can wake a request before its intended start, and its latency from that start
 * would come out below its service time. So: one timer to `leadMs` before the instant, then turns of the event loop
 * (timers, I/O and other fibers run in each) until it is due.
 *
 * A clock that lands exactly where the timer was set (the simulator's virtual clock, a TestClock) needs no turn, and
 * must take none: a fiber waiting on a real `setImmediate` would leave virtual time. With `leadMs` 0 it never turns;
 * one that does not move between turns is waited on with a timer.
 */
import { Duration, Effect } from "effect"

/** One turn of the event loop: timers, I/O and other fibers run, then this goes on. */
export const nextTurn: Effect.Effect<void> = Effect.async<void>((resume) => {
  const h = setImmediate(() => resume(Effect.void))
  return Effect.sync(() => clearImmediate(h))
})

/** Below 1 µs is clock rounding (a nanosecond floor), not a reason to wait. */
const RoundingMs = 0.001

/** Until `due` on `now`'s clock (ms, sub-ms precision): a timer to `leadMs` before it, then turns of the event loop. */
export const waitUntil = (due: number, now: () => number, leadMs = 0): Effect.Effect<void> =>
  Effect.gen(function* () {
    let timed = false
    for (let last = Number.NaN; ; ) {
      const t = now()
      const wait = due - t
      if (wait <= RoundingMs) return
      if (!timed && wait > leadMs) {
        yield* Effect.sleep(Duration.millis(wait - leadMs))
        timed = true
      } else if (t === last) yield* Effect.sleep(Duration.millis(wait))
      else yield* nextTurn
      last = t
    }
  })

/**
 * Virtual time: a timer heap ordered by (time, insertion sequence) and an Effect `Clock` that reads and sleeps
 * on it. Nothing here advances time by itself; the driver (`Simulation.ts`) pops timers and moves `now`.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { EventHeap, type HeapEntry } from "./EventHeap.js"

/** A pending timer. `index` is its slot in the heap, -1 once fired or cancelled. */
export interface Timer extends HeapEntry {
  readonly task: () => void
}

/** The clock's timers: an `EventHeap` of tasks. */
export class TimerHeap extends EventHeap<Timer> {
  insert(time: number, task: () => void): Timer {
    return this.push({ time, seq: 0, task, index: -1 }, time)
  }
}

const f64 = new Float64Array(1)
const i64 = new BigInt64Array(f64.buffer)

/** The smallest double greater than `x` (for finite x ≥ 0, which clock readings are). */
export const nextUp = (x: number): number => {
  if (x === 0) return Number.MIN_VALUE
  f64[0] = x
  i64[0] = i64[0]! + 1n
  return f64[0]
}

export interface VirtualClockOptions {
  /** Clock reading at the start, in epoch milliseconds (≥ 0). Default 0. */
  readonly startMillis?: number
}

/**
 * An Effect `Clock` whose time only moves when the driver says so. `sleep` registers a timer; the fiber is resumed
 * when the driver fires it (through the fiber's scheduler, i.e. the virtual run queue).
 *
 * Time is a float of milliseconds, but Effect durations are rounded to whole nanoseconds: a component sleeping
 * "until t" as `Effect.sleep(t - now)` should keep t on whole milliseconds (or nanoseconds), else a sub-nanosecond
 * remainder rounds to a 0 sleep and the fiber spins at one instant (the driver reports that as a livelock).
 */
export class VirtualClock implements Clock.Clock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId
  readonly timers = new TimerHeap()
  private nowMillis: number

  constructor(options: VirtualClockOptions = {}) {
    const start = options.startMillis ?? 0
    if (!(start >= 0 && Number.isFinite(start))) throw new Error(`VirtualClock: startMillis must be ≥ 0, got ${start}`)
    this.nowMillis = start
  }

  unsafeCurrentTimeMillis(): number {
    return this.nowMillis
  }

  unsafeCurrentTimeNanos(): bigint {
    const whole = Math.floor(this.nowMillis)
    return BigInt(whole) * 1_000_000n + BigInt(Math.round((this.nowMillis - whole) * 1_000_000))
  }

  readonly currentTimeMillis: Effect.Effect<number> = Effect.sync(() => this.nowMillis)

  readonly currentTimeNanos: Effect.Effect<bigint> = Effect.sync(() => this.unsafeCurrentTimeNanos())

  sleep(duration: Duration.Duration): Effect.Effect<void> {
    const millis = Duration.toMillis(duration)
    // Like the live clock, an infinite sleep never wakes; it must not sit in the heap forever.
    if (!Number.isFinite(millis)) return Effect.never
    return Effect.async<void>((resume) => {
      const timer = this.timers.insert(this.wakeTime(millis), () => resume(Effect.void))
      return Effect.sync(() => {
        this.timers.remove(timer)
      })
    })
  }

  /** Runs `task` (synchronously, from the driver) after `delayMillis` of virtual time. */
  unsafeSchedule(task: () => void, delayMillis: number): Timer {
    return this.timers.insert(this.wakeTime(Math.max(0, delayMillis)), task)
  }

  /**
   * `now + millis`, except that a positive delay always moves time forward: a delay below the float's resolution
   * at `now` (e.g. `due - now` computed by the caller) would otherwise round to `now` and wake at the same instant
   * forever.
   */
  private wakeTime(millis: number): number {
    const at = this.nowMillis + millis
    return millis > 0 && at <= this.nowMillis ? nextUp(this.nowMillis) : at
  }

  unsafeCancel(timer: Timer): boolean {
    return this.timers.remove(timer)
  }

  /** Moves the clock forward; the driver's business. Time never goes backwards. */
  unsafeAdvanceTo(millis: number): void {
    if (millis > this.nowMillis) this.nowMillis = millis
  }
}

export const make = (options?: VirtualClockOptions): VirtualClock => new VirtualClock(options)

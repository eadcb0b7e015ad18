/**
 * Virtual time: a timer heap ordered by (time, insertion sequence) and an Effect `Clock` that reads and sleeps
 * on it. Nothing here advances time by itself; the driver (`Simulation.ts`) pops timers and moves `now`.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

/** A pending timer. `index` is its slot in the heap, -1 once fired or cancelled. */
export interface Timer {
  readonly time: number
  readonly seq: number
  readonly task: () => void
  /** @internal */
  index: number
}

const before = (a: Timer, b: Timer): boolean => a.time < b.time || (a.time === b.time && a.seq < b.seq)

/**
 * Indexed binary min-heap: O(log n) insert, pop and removal, so cancelled timers (e.g. the losing side of
 * `Effect.timeout`) leave no garbage behind.
 */
export class TimerHeap {
  private readonly items: Array<Timer> = []
  private nextSeq = 0

  get size(): number {
    return this.items.length
  }

  insert(time: number, task: () => void): Timer {
    const timer: Timer = { time, seq: this.nextSeq++, task, index: this.items.length }
    this.items.push(timer)
    this.siftUp(timer.index)
    return timer
  }

  peek(): Timer | undefined {
    return this.items[0]
  }

  pop(): Timer | undefined {
    const items = this.items
    if (items.length === 0) return undefined
    const top = items[0]!
    this.removeAt(0)
    return top
  }

  /** Returns false if the timer already fired or was removed. */
  remove(timer: Timer): boolean {
    const i = timer.index
    if (i < 0 || this.items[i] !== timer) return false
    this.removeAt(i)
    return true
  }

  private removeAt(i: number): void {
    const items = this.items
    const removed = items[i]!
    const last = items.pop()!
    removed.index = -1
    if (i === items.length) return
    items[i] = last
    last.index = i
    if (i > 0 && before(last, items[(i - 1) >> 1]!)) this.siftUp(i)
    else this.siftDown(i)
  }

  private siftUp(i: number): void {
    const items = this.items
    const t = items[i]!
    while (i > 0) {
      const p = (i - 1) >> 1
      const parent = items[p]!
      if (!before(t, parent)) break
      items[i] = parent
      parent.index = i
      i = p
    }
    items[i] = t
    t.index = i
  }

  private siftDown(i: number): void {
    const items = this.items
    const n = items.length
    const t = items[i]!
    for (;;) {
      const l = 2 * i + 1
      if (l >= n) break
      const r = l + 1
      const c = r < n && before(items[r]!, items[l]!) ? r : l
      const child = items[c]!
      if (!before(child, t)) break
      items[i] = child
      child.index = i
      i = c
    }
    items[i] = t
    t.index = i
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

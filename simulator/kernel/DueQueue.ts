/**
 * Timed items for a loop that wakes once per resolution step and runs everything due: the node-agent shards.
 * Pops in the order of `EventHeap` — by time, then by insertion — but keeps one bucket per step and orders a bucket
 * once, when its step comes. A binary heap of 10,000 nodes' events costs ~14 levels of scattered reads per pop;
 * here times and tags sit in arrays, whole-millisecond times are put in order by counting, and an item itself is
 * not read until the loop uses it (for 5,000 agents each read is a likely cache miss).
 *
 * Items pushed into the step being run (or an earlier one) go to a small sorted side list, merged on pop.
 */
import { popKey, pushKey } from "./NumberHeap.js"

/**
 * One step's items in insertion order, as parallel arrays. Buckets are reused once run: a bucket lives about as long
 * as the agents' intervals, long enough to be promoted by the garbage collector, so fresh ones would each be copied.
 */
class Bucket<T> {
  count = 0
  readonly times: Array<number> = []
  readonly tags: Array<number> = []
  readonly items: Array<T | undefined> = []

  add(time: number, tag: number, item: T): void {
    const i = this.count++
    if (i < this.times.length) {
      this.times[i] = time
      this.tags[i] = tag
      this.items[i] = item
    } else {
      this.times.push(time)
      this.tags.push(tag)
      this.items.push(item)
    }
  }

  clear(): void {
    this.items.fill(undefined, 0, this.count)
    this.count = 0
  }
}

export class DueQueue<T> {
  /** The steps not loaded yet, keyed by step − `origin` (small integers). */
  private readonly buckets = new Map<number, Bucket<T>>()
  /** Keys of `buckets`, a binary min-heap. */
  private readonly keys: Array<number> = []
  private origin: number | undefined
  private readonly spare: Array<Bucket<T>> = []
  /** The loaded step, its bucket and the order to pop it in (`order[cursor]`, … `order[size - 1]` left). */
  private loaded = -Infinity
  private current = new Bucket<T>()
  private order = new Int32Array(1024)
  private size = 0
  private cursor = 0
  /** Pushed at or before the loaded step after it was ordered: kept sorted, latest first (popped from the end). */
  private readonly lateTimes: Array<number> = []
  private readonly lateTags: Array<number> = []
  private readonly lateItems: Array<T> = []
  /** Counts per millisecond of a step, reused. */
  private counts: Int32Array

  /** Time and tag of the item `popDue` returned last. */
  time = 0
  tag = 0

  constructor(private readonly resolution: number) {
    this.counts = new Int32Array(Number.isInteger(resolution) && resolution <= 1 << 16 ? resolution + 1 : 0)
  }

  /** Schedules `item` at `time`, with a small integer `tag` the caller reads back on pop (say, what is due). */
  push(item: T, time: number, tag = 0): void {
    const step = Math.ceil(time / this.resolution)
    if (step <= this.loaded) return this.pushLate(item, time, tag)
    const key = step - (this.origin ??= step)
    let bucket = this.buckets.get(key)
    if (bucket === undefined) {
      this.buckets.set(key, (bucket = this.spare.pop() ?? new Bucket()))
      pushKey(this.keys, key)
    }
    bucket.add(time, tag, item)
  }

  /** When the earliest item falls due, rounded up to the resolution; undefined when empty. */
  nextDue(): number | undefined {
    if (this.cursor < this.size || this.lateItems.length > 0) return this.loaded * this.resolution
    const key = this.keys[0]
    return key === undefined ? undefined : (key + this.origin!) * this.resolution
  }

  /** The earliest item due at or before `now`, removed (its time and tag in `time` / `tag`); undefined when none is. */
  popDue(now: number): T | undefined {
    for (;;) {
      const lateCount = this.lateItems.length
      if (this.cursor < this.size) {
        const i = this.order[this.cursor]!
        const current = this.current
        const time = current.times[i]!
        // On equal times the bucket's item goes first: it was pushed before anything late.
        if (lateCount === 0 || time <= this.lateTimes[lateCount - 1]!) {
          if (time > now) return undefined
          this.cursor++
          this.time = time
          this.tag = current.tags[i]!
          return current.items[i]
        }
      }
      if (lateCount > 0) {
        const time = this.lateTimes[lateCount - 1]!
        if (time > now) return undefined
        this.time = this.lateTimes.pop()!
        this.tag = this.lateTags.pop()!
        return this.lateItems.pop()
      }
      if (!this.load(now)) return undefined
    }
  }

  /** Loads the earliest step if it is due at `now`. */
  private load(now: number): boolean {
    const key = this.keys[0]
    if (key === undefined || (key + this.origin!) * this.resolution > now) return false
    popKey(this.keys)
    const bucket = this.buckets.get(key)!
    this.buckets.delete(key)
    this.current.clear()
    this.spare.push(this.current)
    this.loaded = key + this.origin!
    this.current = bucket
    this.size = bucket.count
    this.cursor = 0
    this.putInOrder(bucket.times, bucket.count, (this.loaded - 1) * this.resolution)
    return true
  }

  /**
   * `order` := positions of the first `n` `times` by time, ties in insertion order: counted when all are whole ms
   * after `base`, else sorted.
   */
  private putInOrder(times: ReadonlyArray<number>, n: number, base: number): void {
    if (this.order.length < n) this.order = new Int32Array(2 * n)
    const order = this.order
    const counts = this.counts
    let whole = counts.length > 0
    for (let i = 0; whole && i < n; i++) whole = Number.isInteger(times[i]! - base)
    if (!whole) {
      for (let i = 0; i < n; i++) order[i] = i
      // TypedArray sort is stable.
      order.subarray(0, n).sort((a, b) => times[a]! - times[b]!)
      return
    }
    counts.fill(0)
    for (let i = 0; i < n; i++) counts[times[i]! - base]!++
    let sum = 0
    for (let k = 0; k < counts.length; k++) {
      const c = counts[k]!
      counts[k] = sum
      sum += c
    }
    for (let i = 0; i < n; i++) order[counts[times[i]! - base]!++] = i
  }

  private pushLate(item: T, time: number, tag: number): void {
    // Latest first; an item pushed later goes before (pops after) others of the same time.
    let i = this.lateTimes.length
    while (i > 0 && this.lateTimes[i - 1]! <= time) i--
    this.lateTimes.splice(i, 0, time)
    this.lateTags.splice(i, 0, tag)
    this.lateItems.splice(i, 0, item)
  }
}

/**
 * Timed items for a loop that wakes once per resolution step and runs everything due: the node-agent shards.
 * Pops in the order of `EventHeap` — by time, then by insertion — but keeps one bucket per step and orders a bucket
 * once, when its step comes. A binary heap of 10,000 nodes' events costs ~14 levels of scattered reads per pop;
 * here times and tags sit in arrays, whole-millisecond times are put in order by counting, and an item itself is
 * not read until the loop uses it (for 5,000 agents each read is a likely cache miss).
 *
 * Items pushed into the step being run (or an earlier one) go to a side heap, merged on pop.
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
  /**
   * Pushed at or before the loaded step after it was ordered: a binary min-heap by (time, push order). A step of
   * 65,000 agents takes hundreds of these (answers and retries within the second), so a sorted list's insertion
   * (a scan and a splice each) grew with the square of them.
   */
  private readonly late = new LateHeap<T>()
  /** Counts per millisecond of a step, reused. */
  private counts: Int32Array

  /** Time and tag of the item `popDue` returned last. */
  time = 0
  tag = 0

  constructor(private readonly resolution: number) {
    // a step of 0 would make every item due at once, for ever: the loop emptying it would never sleep
    if (!(resolution > 0)) throw new Error(`the resolution (cluster.resolution) must be positive, got ${resolution} ms`)
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
    if (this.cursor < this.size || this.late.size > 0) return this.loaded * this.resolution
    const key = this.keys[0]
    return key === undefined ? undefined : (key + this.origin!) * this.resolution
  }

  /** The earliest item due at or before `now`, removed (its time and tag in `time` / `tag`); undefined when none is. */
  popDue(now: number): T | undefined {
    for (;;) {
      const late = this.late
      if (this.cursor < this.size) {
        const i = this.order[this.cursor]!
        const current = this.current
        const time = current.times[i]!
        // On equal times the bucket's item goes first: it was pushed before anything late.
        if (late.size === 0 || time <= late.firstTime()) {
          if (time > now) return undefined
          this.cursor++
          this.time = time
          this.tag = current.tags[i]!
          return current.items[i]
        }
      }
      if (late.size > 0) {
        const time = late.firstTime()
        if (time > now) return undefined
        this.time = time
        this.tag = late.firstTag()
        return late.pop()
      }
      if (!this.load(now)) return undefined
    }
  }

  /**
   * The item `k` places after the one `popDue` returned last in the loaded step's order (0: the next), and its tag in
   * `aheadTag`; undefined past the step's end. Items pushed late are not counted: a guess of what comes next, for a
   * caller that reads ahead (`AgentPrefetch.ts`), not a promise.
   */
  ahead(k: number): T | undefined {
    const at = this.cursor + k
    if (at >= this.size) return undefined
    const i = this.order[at]!
    this.aheadTag = this.current.tags[i]!
    return this.current.items[i]
  }

  /** The tag of the item `ahead` returned last. */
  aheadTag = 0

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
    this.late.push(item, time, tag)
  }
}

/** (time, seq) orders before (otherTime, otherSeq). */
const earlier = (time: number, seq: number, otherTime: number, otherSeq: number): boolean =>
  time < otherTime || (time === otherTime && seq < otherSeq)

/** Items by (time, push order), as parallel arrays: the earliest first, of the same time the first pushed. */
class LateHeap<T> {
  size = 0
  private pushes = 0
  private readonly times: Array<number> = []
  private readonly seqs: Array<number> = []
  private readonly tags: Array<number> = []
  private readonly items: Array<T | undefined> = []

  firstTime(): number {
    return this.times[0]!
  }

  firstTag(): number {
    return this.tags[0]!
  }

  push(item: T, time: number, tag: number): void {
    const seq = this.pushes++
    let i = this.size++
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!earlier(time, seq, this.times[parent]!, this.seqs[parent]!)) break
      this.move(parent, i)
      i = parent
    }
    this.put(i, time, seq, tag, item)
  }

  /** Removes the first item (the heap is not empty). */
  pop(): T {
    const item = this.items[0]!
    const n = --this.size
    const time = this.times[n]!
    const seq = this.seqs[n]!
    const tag = this.tags[n]!
    const last = this.items[n]!
    this.items[n] = undefined
    if (n === 0) return item
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= n) break
      const c = l + 1 < n && earlier(this.times[l + 1]!, this.seqs[l + 1]!, this.times[l]!, this.seqs[l]!) ? l + 1 : l
      if (!earlier(this.times[c]!, this.seqs[c]!, time, seq)) break
      this.move(c, i)
      i = c
    }
    this.put(i, time, seq, tag, last)
    return item
  }

  private move(from: number, to: number): void {
    this.times[to] = this.times[from]!
    this.seqs[to] = this.seqs[from]!
    this.tags[to] = this.tags[from]!
    this.items[to] = this.items[from]
  }

  private put(i: number, time: number, seq: number, tag: number, item: T): void {
    this.times[i] = time
    this.seqs[i] = seq
    this.tags[i] = tag
    this.items[i] = item
  }
}

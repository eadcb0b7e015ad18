/**
 * Timed entries for a loop that wakes once per resolution step and runs everything due: the node-agent shards.
 * Pops in the order of `EventHeap` — by time, then by insertion — but keeps entries in one bucket per step and sorts
 * a bucket once, when its step comes. A binary heap of 10,000 nodes' events costs ~14 levels of scattered reads per
 * pop; here a pop reads the next slot of an array that was just sorted.
 *
 * Entries pushed into the step being run (or an earlier one) go to a small sorted side list, merged on pop.
 */

export interface DueEntry {
  time: number
  seq: number
}

const before = (a: DueEntry, b: DueEntry): boolean => a.time < b.time || (a.time === b.time && a.seq < b.seq)

const byTime = (a: DueEntry, b: DueEntry): number => a.time - b.time

export class DueQueue<T extends DueEntry> {
  /** Unsorted entries of the steps not loaded yet, in insertion order; keyed by step − `origin` (small integers). */
  private readonly buckets = new Map<number, Array<T>>()
  /** Keys of `buckets`, a binary min-heap. */
  private readonly keys: Array<number> = []
  private origin: number | undefined
  /** The loaded step: its entries sorted, `cursor` the next one. */
  private loaded = -Infinity
  private current: Array<T> = []
  private cursor = 0
  /** Entries pushed at or before the loaded step after it was sorted, sorted descending (popped from the end). */
  private readonly late: Array<T> = []
  private nextSeq = 0

  constructor(private readonly resolution: number) {}

  /** Schedules `entry` at `time` (an entry may be pushed again once it was popped, never while queued). */
  push(entry: T, time: number): void {
    entry.time = time
    entry.seq = this.nextSeq++
    const step = Math.ceil(time / this.resolution)
    if (step <= this.loaded) return this.pushLate(entry)
    const key = step - (this.origin ??= step)
    const bucket = this.buckets.get(key)
    if (bucket !== undefined) bucket.push(entry)
    else {
      this.buckets.set(key, [entry])
      pushKey(this.keys, key)
    }
  }

  /** When the earliest entry falls due, rounded up to the resolution; undefined when empty. */
  nextDue(): number | undefined {
    if (this.cursor < this.current.length || this.late.length > 0) return this.loaded * this.resolution
    const key = this.keys[0]
    return key === undefined ? undefined : (key + this.origin!) * this.resolution
  }

  /** The earliest entry due at or before `now`, removed; undefined when none is. */
  popDue(now: number): T | undefined {
    for (;;) {
      const next = this.cursor < this.current.length ? this.current[this.cursor] : undefined
      const late = this.late.length > 0 ? this.late[this.late.length - 1] : undefined
      if (next !== undefined || late !== undefined) {
        const first = next === undefined || (late !== undefined && before(late, next)) ? late! : next
        if (first.time > now) return undefined
        if (first === next) this.cursor++
        else this.late.pop()
        return first
      }
      const key = this.keys[0]
      if (key === undefined || (key + this.origin!) * this.resolution > now) return undefined
      popKey(this.keys)
      const bucket = this.buckets.get(key)!
      this.buckets.delete(key)
      // Appended in insertion order and the sort is stable: (time, insertion) order.
      this.current = bucket.sort(byTime)
      this.cursor = 0
      this.loaded = key + this.origin!
    }
  }

  private pushLate(entry: T): void {
    const late = this.late
    let i = late.length
    while (i > 0 && before(late[i - 1]!, entry)) i--
    late.splice(i, 0, entry)
  }
}

const pushKey = (heap: Array<number>, key: number): void => {
  let i = heap.length
  heap.push(key)
  while (i > 0) {
    const parent = (i - 1) >> 1
    if (heap[parent]! <= key) break
    heap[i] = heap[parent]!
    i = parent
  }
  heap[i] = key
}

const popKey = (heap: Array<number>): void => {
  const last = heap.pop()!
  const n = heap.length
  if (n === 0) return
  let i = 0
  for (;;) {
    const l = 2 * i + 1
    if (l >= n) break
    const c = l + 1 < n && heap[l + 1]! < heap[l]! ? l + 1 : l
    if (heap[c]! >= last) break
    heap[i] = heap[c]!
    i = c
  }
  heap[i] = last
}

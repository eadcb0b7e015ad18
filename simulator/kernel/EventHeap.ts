/**
 * Indexed binary min-heap of timed entries, ordered by time and then by insertion order (so ties are
 * deterministic): O(log n) push, pop and removal. The kernel's timers live in one (the node-agent shards, which
 * wake once per step, use the bucketed `DueQueue` with the same order).
 */

export interface HeapEntry {
  time: number
  seq: number
  /** Position in the heap; -1 once popped or removed. */
  index: number
}

const before = (a: HeapEntry, b: HeapEntry): boolean => a.time < b.time || (a.time === b.time && a.seq < b.seq)

export class EventHeap<T extends HeapEntry> {
  private readonly items: Array<T> = []
  private nextSeq = 0

  get size(): number {
    return this.items.length
  }

  /** Schedules `entry` at `time` (an entry may be pushed again after it was popped). */
  push(entry: T, time: number): T {
    entry.time = time
    entry.seq = this.nextSeq++
    entry.index = this.items.length
    this.items.push(entry)
    this.siftUp(entry.index)
    return entry
  }

  peek(): T | undefined {
    return this.items[0]
  }

  pop(): T | undefined {
    const items = this.items
    if (items.length === 0) return undefined
    const top = items[0]!
    this.removeAt(0)
    return top
  }

  /** Returns false if the entry already left the heap. */
  remove(entry: T): boolean {
    const i = entry.index
    if (i < 0 || this.items[i] !== entry) return false
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

/**
 * The instants a pool's seats become free, as a min-heap: the earliest free seat is at the top. The service-time
 * model's read and write pools and each APF priority level (`apf/QueueSet.ts`) book their seats here.
 */
export class SeatHeap {
  private readonly free: Float64Array
  /**
   * A sorted copy of `free` for multi-seat requests (a LIST of many objects): a typed array sorts numerically in
   * place, where `Array.from(free).sort(compare)` boxed every seat into a fresh array twice per booking.
   */
  private readonly sorted: Float64Array
  constructor(readonly capacity: number) {
    this.free = new Float64Array(capacity)
    this.sorted = new Float64Array(capacity)
  }

  /** Replaces the earliest free instant with `value`. */
  private siftDown(value: number): void {
    const heap = this.free
    const n = heap.length
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= n) break
      const r = l + 1
      const c = r < n && heap[r]! < heap[l]! ? r : l
      if (heap[c]! >= value) break
      heap[i] = heap[c]!
      i = c
    }
    heap[i] = value
  }

  /** Takes the earliest free seat for a request arriving at `at` that lasts `service`; returns its start. */
  takeEarliest(at: number, service: number): number {
    const start = Math.max(at, this.free[0]!)
    this.siftDown(start + service)
    return start
  }

  /** When `seats` seats are free together, at or after `at`; nothing is taken. */
  startFor(at: number, seats: number): number {
    if (seats === 1) return Math.max(at, this.free[0]!)
    return Math.max(at, this.sortedFree()[seats - 1]!)
  }

  /** Takes `seats` seats from `start` until `end` (the earliest-free ones, all free by `start`). */
  take(seats: number, end: number): void {
    if (seats === 1) return this.siftDown(end)
    const sorted = this.sortedFree()
    sorted.fill(end, 0, seats)
    // a sorted array is a valid min-heap
    this.free.set(sorted.sort())
  }

  private sortedFree(): Float64Array {
    this.sorted.set(this.free)
    return this.sorted.sort()
  }
}

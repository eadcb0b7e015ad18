/**
 * The instants a pool's seats become free, as a min-heap: the earliest free seat is at the top. The service-time
 * model's read and write pools and each APF priority level (`apf/QueueSet.ts`) book their seats here.
 */
export class SeatHeap {
  /**
   * The heap of `capacity` instants, then one more that is always +Infinity: a last parent with a left child only
   * sees it as a right child never smaller, so `siftDown` picks a child without asking whether there is a right one.
   */
  private readonly padded: Float64Array
  /** The heap's instants: `padded` without its last slot. */
  private readonly free: Float64Array
  /**
   * A sorted copy of `free` for multi-seat requests (a LIST of many objects): a typed array sorts numerically in
   * place, where `Array.from(free).sort(compare)` boxed every seat into a fresh array twice per booking.
   */
  private readonly sorted: Float64Array
  constructor(readonly capacity: number) {
    this.padded = new Float64Array(capacity + 1)
    this.padded[capacity] = Number.POSITIVE_INFINITY
    this.free = this.padded.subarray(0, capacity)
    this.sorted = new Float64Array(capacity)
  }

  /**
   * Replaces the earliest free instant with `value`. The smaller child is chosen by adding the comparison as a number,
   * not by a branch: which child is smaller is a coin toss the processor mispredicts about every other level, and
   * nearly every request of a simulated cluster books a seat here (docs/benchmarks.md "Where a lease renewal's CPU goes").
   */
  private siftDown(value: number): void {
    const heap = this.padded
    const n = this.capacity
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= n) break
      const c = l + ((heap[l + 1]! < heap[l]!) as unknown as number)
      const next = heap[c]!
      if (next >= value) break
      heap[i] = next
      i = c
    }
    heap[i] = value
  }

  /** Takes the earliest free seat for a request arriving at `at` that lasts `service`; returns its start. */
  takeEarliest(at: number, service: number): number {
    const start = Math.max(at, this.padded[0]!)
    this.siftDown(start + service)
    return start
  }

  /** When `seats` seats are free together, at or after `at`; nothing is taken. */
  startFor(at: number, seats: number): number {
    if (seats === 1) return Math.max(at, this.padded[0]!)
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

/**
 * One priority level in virtual time: its seats (the level's concurrency limit) and its shuffle-sharded queues
 * (`staging/src/k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset`). A request books at arrival — the
 * service-time model knows its service time — so the level's answer is decided then:
 * - dispatched at the earliest instant its seats are free (at once when they are);
 * - else it waits in the shortest queue of its flow's hand; a hand whose queues all hold `queueLengthLimit`
 *   waiting requests rejects it (429), and so does a wait longer than the request wait limit (upstream: a quarter of
 *   the request timeout, 15 s); a level without queuing (catch-all) rejects whatever cannot start at once.
 * Simplification (docs/apf.md): requests of a level are dispatched in arrival order rather than by upstream's fair
 * queuing across queues (which `serve` runs: ./FairQueuing.ts), so flows of a level are isolated only in their
 * rejections (the hands and the queue length limit), not in how long they wait.
 */
import { SeatHeap } from "../SeatHeap.js"
import { dealHand, flowHash } from "./ShuffleSharding.js"
import type { QueuingSettings } from "./Bootstrap.js"

export type Booking =
  | { readonly _tag: "Dispatched"; readonly start: number; readonly end: number }
  | { readonly _tag: "Rejected"; readonly reason: "queue-full" | "time-out" | "concurrency-limit"; readonly at: number }

export interface QueueSetOptions {
  /** Seats of the level (its concurrency limit). */
  readonly seats: number
  /** Queue settings; undefined rejects what cannot start at once. */
  readonly queuing: QueuingSettings | undefined
  /** Longest a request may wait in a queue (ms). */
  readonly requestWaitLimitMs: number
}

export class QueueSet {
  private readonly heap: SeatHeap
  /** Per queue: when each of its requests leaves it (its start); entries at or before now have left. */
  private readonly queues: Array<Array<number>>
  /**
   * Per queue: its earliest entry (Infinity when empty). A queue none of whose requests has left since is not
   * walked: under a storm of thousands of requests at one instant the walk of every queue of a hand, each up to its
   * length limit, was most of a booking (docs/benchmarks.md "With clients").
   */
  private readonly earliest: Float64Array
  private readonly hands = new Map<string, ReadonlyArray<number>>()

  constructor(readonly options: QueueSetOptions) {
    this.heap = new SeatHeap(options.seats)
    this.queues = Array.from({ length: options.queuing?.queues ?? 0 }, () => [])
    this.earliest = new Float64Array(this.queues.length).fill(Number.POSITIVE_INFINITY)
  }

  /** Books a request of `flow` arriving at `at` that occupies `seats` seats for `serviceMs`. */
  book(at: number, flow: string, seats: number, serviceMs: number): Booking {
    const width = Math.min(seats, this.options.seats)
    const start = this.heap.startFor(at, width)
    if (start > at) {
      const queuing = this.options.queuing
      if (queuing === undefined) return { _tag: "Rejected", reason: "concurrency-limit", at }
      if (start - at > this.options.requestWaitLimitMs) return { _tag: "Rejected", reason: "time-out", at: at + this.options.requestWaitLimitMs }
      const index = this.shortestQueue(at, flow, queuing)
      const queue = this.queues[index]!
      if (queue.length >= queuing.queueLengthLimit) return { _tag: "Rejected", reason: "queue-full", at }
      queue.push(start)
      if (start < this.earliest[index]!) this.earliest[index] = start
    }
    const end = start + serviceMs
    this.heap.take(width, end)
    return { _tag: "Dispatched", start, end }
  }

  /**
   * `book` of a request its seats let start at `at`: booked so, and its end; NaN (nothing booked) when it would wait,
   * for `book` to queue or reject it. The booking of nearly every request of a simulated cluster, without a `Booking`.
   */
  bookAtOnce(at: number, seats: number, serviceMs: number): number {
    const width = Math.min(seats, this.options.seats)
    if (this.heap.startFor(at, width) > at) return Number.NaN
    const end = at + serviceMs
    this.heap.take(width, end)
    return end
  }

  /** The queue of the flow's hand with the fewest requests still waiting at `at` (the first such, as upstream). */
  private shortestQueue(at: number, flow: string, queuing: QueuingSettings): number {
    let hand = this.hands.get(flow)
    if (hand === undefined) this.hands.set(flow, (hand = dealHand(flowHash(flow), queuing.queues, queuing.handSize)))
    let best = -1
    let bestLength = 0
    for (const index of hand) {
      const queue = this.queues[index]!
      // requests that started by now have left the queue
      if (this.earliest[index]! <= at) {
        let kept = 0
        let earliest = Number.POSITIVE_INFINITY
        for (let i = 0; i < queue.length; i++) {
          const start = queue[i]!
          if (start <= at) continue
          queue[kept++] = start
          if (start < earliest) earliest = start
        }
        queue.length = kept
        this.earliest[index] = earliest
      }
      if (best === -1 || queue.length < bestLength) {
        best = index
        bestLength = queue.length
      }
    }
    return best
  }
}

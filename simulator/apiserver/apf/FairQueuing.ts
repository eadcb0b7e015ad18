/**
 * One priority level's seats and queues in real time, dispatched by fair queuing as upstream's queueset does
 * (`staging/src/k8s.io/apiserver/pkg/util/flowcontrol/fairqueuing/queueset/queueset.go`; docs/apf.md "Dispatch on
 * `serve`"). Used by ./RealTimeApf.ts; the virtual-time model (./QueueSet.ts) books requests in arrival order instead.
 *
 * - A virtual clock R (seat-seconds given to each active queue) advances at min(seats asked for, seats) / active
 *   queues per second (`getVirtualTimeRatioLocked`); a queue is active while it holds a waiting or executing request.
 * - A request joins the queue of its flow's hand (./ShuffleSharding.ts) with the least waiting work, the hand read from
 *   a rotating offset (`shuffleShardLocked`); an idle queue's next dispatch R starts at the current R
 *   (`enqueueToBoundLocked`).
 * - A free seat goes to the head of the queue whose head would finish first in virtual time — next dispatch R plus
 *   the head's estimated work, seats × 3 ms — found by a round-robin walk from the queue dispatched last, so ties go
 *   to the queues after it (`findDispatchQueueToBoundLocked`); when that head's seats are not free nothing is
 *   dispatched. A dispatch adds the estimated work to its queue's next dispatch R; a request's end corrects it by
 *   seats × (actual service time − 3 ms) (`finishRequestLocked`), so a queue whose requests hold seats long falls
 *   behind the others; a queue's next dispatch R never precedes its head's arrival R (`boundNextDispatchLocked`).
 * - A level without queues (catch-all) runs what fits and rejects the rest (`concurrency-limit`).
 *
 * Per operation the cost is one walk of the level's queues at most (a dispatch); everything else is O(1) in the
 * number of queues (a removal from a queue is O(its length), at most the queue length limit).
 */
import type { QueuingSettings } from "./Bootstrap.js"
import { dealHand, flowHash } from "./ShuffleSharding.js"

/** Upstream's `estimatedServiceDuration`: the work a dispatch is charged before the request's real duration is known. */
export const EstimatedServiceSeconds = 0.003

/** One of the level's queues. */
export interface FairQueue<T> {
  readonly index: number
  /** Waiting requests, oldest first. */
  readonly waiting: Array<FairEntry<T>>
  /** Σ seats × estimated service of the waiting requests (the shuffle-sharding choice). */
  waitingWork: number
  executing: number
  seatsInUse: number
  /** R at which its next request starts in the virtual world. */
  nextDispatchR: number
}

/** A request of the level: waiting in its queue, then executing (a level without queues: executing only). */
export interface FairEntry<T> {
  readonly payload: T
  readonly seats: number
  readonly queue: FairQueue<T> | undefined
  /** R when it arrived. */
  readonly arrivalR: number
  state: "waiting" | "executing" | "done" | "removed"
  /** Real time (s) it started executing. */
  startedAt: number
}

export type Arrival<T> = { readonly _tag: "Entered"; readonly entry: FairEntry<T> } | { readonly _tag: "Rejected"; readonly reason: "queue-full" | "concurrency-limit" }

const isActive = <T>(q: FairQueue<T>): boolean => q.waiting.length > 0 || q.executing > 0

export class FairQueuing<T> {
  private readonly queues: ReadonlyArray<FairQueue<T>>
  /** The virtual clock (seat-seconds per active queue since the level was made). */
  private currentR = 0
  private lastRealTime: number
  /** Index of the queue dispatched from last: the next walk starts after it. */
  private robinIndex = -1
  /** Arrivals shuffle-sharded so far: the offset each reads its hand from. */
  private enqueues = 0
  private activeQueues = 0
  private seatsWaiting = 0
  private requestsWaiting = 0
  /** Seats held by executing requests. */
  seatsInUse = 0

  constructor(
    /** The level's concurrency limit. */
    readonly seats: number,
    readonly queuing: QueuingSettings | undefined,
    nowSeconds: number
  ) {
    this.lastRealTime = nowSeconds
    this.queues = Array.from({ length: queuing?.queues ?? 0 }, (_, index) => ({ index, waiting: [], waitingWork: 0, executing: 0, seatsInUse: 0, nextDispatchR: 0 }))
  }

  get waitingCount(): number {
    return this.requestsWaiting
  }

  /**
   * A request of `flow` taking `seats` arrives: it waits in its queue (or, without queues, executes at once) — call
   * `dispatch` then — or is rejected: `queue-full` when the level's seats are all taken and its queue holds the
   * queue length limit (`rejectOrEnqueueToBoundLocked`), `concurrency-limit` without queues when it does not fit.
   */
  arrive(now: number, flow: string, seats: number, payload: T): Arrival<T> {
    this.syncTime(now)
    const queuing = this.queuing
    if (queuing === undefined) {
      if (this.seatsInUse + seats > this.seats) return { _tag: "Rejected", reason: "concurrency-limit" }
      const entry: FairEntry<T> = { payload, seats, queue: undefined, arrivalR: this.currentR, state: "executing", startedAt: now }
      this.seatsInUse += seats
      return { _tag: "Entered", entry }
    }
    const queue = this.shuffleShard(flow, queuing)
    if (this.seatsInUse >= this.seats && queue.waiting.length >= queuing.queueLengthLimit) return { _tag: "Rejected", reason: "queue-full" }
    if (!isActive(queue)) {
      queue.nextDispatchR = this.currentR
      this.activeQueues++
    }
    const entry: FairEntry<T> = { payload, seats, queue, arrivalR: this.currentR, state: "waiting", startedAt: 0 }
    queue.waiting.push(entry )
    queue.waitingWork += seats * EstimatedServiceSeconds
    this.seatsWaiting += seats
    this.requestsWaiting++
    this.boundNextDispatch(queue)
    return { _tag: "Entered", entry }
  }

  /**
   * The next waiting request to run now, moved to executing; undefined when none waits or the chosen queue's head
   * does not fit in the free seats. Call until undefined (upstream's `dispatchAsMuchAsPossibleLocked`).
   */
  dispatch(now: number): FairEntry<T> | undefined {
    if (this.requestsWaiting === 0 || this.seatsInUse >= this.seats) return undefined
    this.syncTime(now)
    const queue = this.queueToDispatch()
    const head = queue.waiting[0]!
    if (this.seatsInUse + head.seats > this.seats) return undefined
    this.robinIndex = queue.index
    queue.waiting.shift()
    queue.waitingWork -= head.seats * EstimatedServiceSeconds
    this.seatsWaiting -= head.seats
    this.requestsWaiting--
    head.state = "executing"
    head.startedAt = now
    queue.executing++
    queue.seatsInUse += head.seats
    this.seatsInUse += head.seats
    queue.nextDispatchR += head.seats * EstimatedServiceSeconds
    this.boundNextDispatch(queue)
    return head
  }

  /** An executing request has ended: its seats free, its queue charged its real service time. Call `dispatch` then. */
  finish(now: number, entry: FairEntry<T>): void {
    if (entry.state !== "executing") return
    this.syncTime(now)
    entry.state = "done"
    this.seatsInUse -= entry.seats
    const queue = entry.queue
    if (queue === undefined) return
    queue.executing--
    queue.seatsInUse -= entry.seats
    queue.nextDispatchR -= entry.seats * (EstimatedServiceSeconds - (now - entry.startedAt))
    if (!isActive(queue)) this.activeQueues--
    this.boundNextDispatch(queue)
  }

  /** A waiting request leaves its queue unserved (timed out, cancelled); false when it no longer waits. */
  remove(now: number, entry: FairEntry<T>): boolean {
    const queue = entry.queue
    if (entry.state !== "waiting" || queue === undefined) return false
    this.syncTime(now)
    entry.state = "removed"
    queue.waiting.splice(queue.waiting.indexOf(entry ), 1)
    queue.waitingWork -= entry.seats * EstimatedServiceSeconds
    this.seatsWaiting -= entry.seats
    this.requestsWaiting--
    if (!isActive(queue)) this.activeQueues--
    this.boundNextDispatch(queue)
    return true
  }

  /** Advances R over the real time since the last change, at the rate the state since then gives (`syncTimeLocked`). */
  private syncTime(now: number): void {
    const elapsed = now - this.lastRealTime
    this.lastRealTime = now
    if (this.activeQueues === 0 || !(elapsed > 0)) return
    this.currentR += (elapsed * Math.min(this.seatsInUse + this.seatsWaiting, this.seats)) / this.activeQueues
  }

  /** The hand's queue with the least waiting work, the hand read from a rotating offset (`shuffleShardLocked`). */
  private shuffleShard(flow: string, queuing: QueuingSettings): FairQueue<T> {
    const hand = dealHand(flowHash(flow), queuing.queues, queuing.handSize)
    const offset = this.enqueues % hand.length
    this.enqueues++
    let best: FairQueue<T> | undefined
    for (let i = 0; i < hand.length; i++) {
      const queue = this.queues[hand[(offset + i) % hand.length]!]!
      if (best === undefined || queue.waitingWork < best.waitingWork) best = queue
    }
    return best!
  }

  /**
   * The queue whose head finishes first in virtual time, walking from the one after the last dispatched so that
   * ties go round robin (`findDispatchQueueToBoundLocked`). Some queue holds a waiting request.
   */
  private queueToDispatch(): FairQueue<T> {
    const n = this.queues.length
    let best: FairQueue<T> | undefined
    let bestFinish = Number.POSITIVE_INFINITY
    for (let i = 1; i <= n; i++) {
      const queue = this.queues[(this.robinIndex + i + n) % n]!
      const head = queue.waiting[0]
      if (head === undefined) continue
      const finish = queue.nextDispatchR + head.seats * EstimatedServiceSeconds
      if (finish < bestFinish) {
        best = queue
        bestFinish = finish
      }
    }
    return best!
  }

  /** A queue's next dispatch never precedes its head's arrival in virtual time (upstream's anti-windup). */
  private boundNextDispatch(queue: FairQueue<T>): void {
    const head = queue.waiting[0]
    if (head !== undefined && queue.nextDispatchR < head.arrivalR) queue.nextDispatchR = head.arrivalR
  }
}

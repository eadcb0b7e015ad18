/**
 * API Priority and Fairness as the service-time model books it (docs/apf.md): a request is classified by the
 * FlowSchemas (`Bootstrap.ts`), its flow picks queues in its priority level (`QueueSet.ts`), and it is dispatched,
 * queued or rejected with 429. The server's concurrency limit is `maxRequestsInflight + maxMutatingRequestsInflight`
 * (kube-apiserver's `--max-requests-inflight` + `--max-mutating-requests-inflight` with APF on), shared by the
 * limited levels in proportion to their nominal concurrency shares: ⌈limit × shares / Σ shares⌉ each.
 */
import type { Histogram } from "hdr-histogram-js"
import { makeHistogram, recordMillis, summarize, type Summary } from "../../../src/loadgen/LatencyRecorder.js"
import { type Classification, classification, priorityLevels, type PriorityLevel, type RequestAttributes } from "./Bootstrap.js"
import { QueueSet, type Booking } from "./QueueSet.js"

/** A quarter of the 60 s request timeout (kube-apiserver's `RequestTimeout / 4`). */
export const RequestWaitLimitMs = 15_000

/** Seats of each limited level for a server concurrency limit. */
export const levelSeats = (serverConcurrencyLimit: number, levels: ReadonlyArray<PriorityLevel> = priorityLevels): Record<string, number> => {
  const limited = levels.filter((l) => l.type === "Limited")
  const shares = limited.reduce((n, l) => n + l.nominalConcurrencyShares, 0)
  return Object.fromEntries(limited.map((l) => [l.name, Math.ceil((serverConcurrencyLimit * l.nominalConcurrencyShares) / shares)]))
}

interface LevelState {
  readonly level: PriorityLevel
  readonly queues: QueueSet | undefined
  dispatched: number
  readonly rejected: { "queue-full": number; "time-out": number; "concurrency-limit": number }
  readonly wait: Histogram
  /** Dispatched without waiting, not yet in `wait`: most requests, counted here and recorded in one step when read. */
  unqueued: number
}

export interface LevelMetrics {
  readonly seats: number | "unlimited"
  readonly dispatched: number
  readonly rejected: number
  readonly rejectedBy: { readonly "queue-full": number; readonly "time-out": number; readonly "concurrency-limit": number }
  /** Time dispatched requests waited in a queue (modelled, ms). */
  readonly queueWaitMs: Summary
}

export type ApfBooking = Booking & { readonly level: string; readonly flowSchema: string }

/**
 * Told of every booking as it is made (the `apiserver_flowcontrol_*` series of `run --metrics-out`,
 * ../ModelledFlowControlMetrics.ts): its arrival, where it was classified, whether it is a watch's start, and the
 * level's answer. Undefined (no metrics) costs one check per booking.
 */
export interface ApfBookingObserver {
  booked(at: number, classified: Classification, watch: boolean, booking: Booking): void
}

export class PriorityAndFairness {
  /** In the order of `priorityLevels`: a classification names its level by index. */
  private readonly levels: ReadonlyArray<LevelState>
  observer: ApfBookingObserver | undefined = undefined

  constructor(readonly serverConcurrencyLimit: number) {
    const seats = levelSeats(serverConcurrencyLimit)
    this.levels = priorityLevels.map((level) => {
      const queues = level.type === "Exempt" ? undefined : new QueueSet({ seats: seats[level.name]!, queuing: level.queuing, requestWaitLimitMs: RequestWaitLimitMs })
      return { level, queues, dispatched: 0, rejected: { "queue-full": 0, "time-out": 0, "concurrency-limit": 0 }, wait: makeHistogram(), unqueued: 0 }
    })
  }

  /**
   * Classifies and books a request arriving at `at` that occupies `seats` seats for `serviceMs`; a request that
   * carries its `classification` (made once, sent often) is not classified again.
   */
  book(at: number, request: RequestAttributes & { readonly classification?: Classification }, seats: number, serviceMs: number): ApfBooking {
    const classified = request.classification ?? classification(request)
    const booking = this.placeAs(at, classified, seats, serviceMs, request.verb)
    const schema = classified.schema
    // Built field by field: a spread of the literal gives every booking a hidden class of its own (~10× slower,
    // docs/benchmarks.md "Simulated cluster"), and every request of a simulated cluster is booked here.
    const level = schema.priorityLevel
    const flowSchema = schema.name
    return booking._tag === "Dispatched"
      ? { _tag: "Dispatched", start: booking.start, end: booking.end, level, flowSchema }
      : { _tag: "Rejected", reason: booking.reason, at: booking.at, level, flowSchema }
  }

  /** `book` for a caller that needs only the times (the node agents' requests): one object less per request. */
  place(
    at: number,
    request: RequestAttributes & { readonly classification?: Classification; readonly level?: number; readonly flow?: string },
    seats: number,
    serviceMs: number
  ): Booking {
    // The level and flow the request carries (`ModelRequests.ts`): its classification is read only for an observer.
    const level = request.level
    const flow = request.flow
    if (level !== undefined && flow !== undefined && this.observer === undefined) return this.placeIn(at, level, flow, seats, serviceMs)
    return this.placeAs(at, request.classification ?? classification(request), seats, serviceMs, request.verb)
  }

  /**
   * `place` of a request that starts at once, as its end: booked and counted as `place` would; NaN, with nothing
   * booked, when it would wait or be rejected, or when the request's level and flow are not carried or an observer
   * is told of bookings — then `place` books it. A node agent's booking allocates nothing this way.
   */
  placeAtOnce(at: number, request: { readonly level?: number; readonly flow?: string }, seats: number, serviceMs: number): number {
    const level = request.level
    if (level === undefined || request.flow === undefined || this.observer !== undefined) return Number.NaN
    return this.placeAtOnceIn(at, level, seats, serviceMs)
  }

  /**
   * `placeAtOnce` of a request of priority level `level` (index in `priorityLevels`), for a caller that knows it
   * without the request (`ServiceTimeModel.completeAtOnce`): the observer is the caller's to check.
   */
  placeAtOnceIn(at: number, level: number, seats: number, serviceMs: number): number {
    if (!(serviceMs >= 0)) return Number.NaN
    const state = this.levels[level]!
    const end = state.queues === undefined ? at + serviceMs : state.queues.bookAtOnce(at, seats, serviceMs)
    if (end === end) {
      state.dispatched++
      state.unqueued++
    }
    return end
  }

  private placeAs(at: number, classified: Classification, seats: number, serviceMs: number, verb: string): Booking {
    const booking = this.placeIn(at, classified.level, classified.flow, seats, serviceMs)
    this.observer?.booked(at, classified, verb === "watch", booking)
    return booking
  }

  /** Books on level `level` for `flow` and counts the answer. */
  private placeIn(at: number, level: number, flow: string, seats: number, serviceMs: number): Booking {
    const state = this.levels[level]!
    const booking: Booking = state.queues === undefined ? { _tag: "Dispatched", start: at, end: at + serviceMs } : state.queues.book(at, flow, seats, serviceMs)
    if (booking._tag === "Dispatched") {
      state.dispatched++
      if (booking.start === at) state.unqueued++
      else recordMillis(state.wait, booking.start - at)
    } else state.rejected[booking.reason]++
    return booking
  }

  /** Per priority level: seats, dispatched, rejected, queue wait. */
  metrics(): Record<string, LevelMetrics> {
    const out: Record<string, LevelMetrics> = {}
    for (const s of this.levels) {
      const name = s.level.name
      if (s.unqueued > 0) {
        s.wait.recordValueWithCount(0, s.unqueued)
        s.unqueued = 0
      }
      const rejected = s.rejected["queue-full"] + s.rejected["time-out"] + s.rejected["concurrency-limit"]
      out[name] = {
        seats: s.queues === undefined ? "unlimited" : s.queues.options.seats,
        dispatched: s.dispatched,
        rejected,
        rejectedBy: { ...s.rejected },
        queueWaitMs: summarize(s.wait)
      }
    }
    return out
  }
}

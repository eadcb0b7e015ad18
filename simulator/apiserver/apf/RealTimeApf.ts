/**
 * API Priority and Fairness for the real-time HTTP server (`clustersim serve`), as kube-apiserver's filter
 * (`server/filters/priority-and-fairness.go`, `util/flowcontrol/apf_controller.go`) runs it: each request is
 * classified by the bootstrap FlowSchemas (./Bootstrap.ts) and joins a queue of its priority level's shuffle-sharded
 * queues, from which fair queuing (./FairQueuing.ts, upstream's queueset) gives free seats to the queue whose head
 * finishes first in virtual time — so one flow's backlog does not hold back another flow of the level. A request
 * runs at once when picked on arrival, else waits, or is rejected — `queue-full`, `time-out` after the request wait
 * limit (./PriorityAndFairness.ts `RequestWaitLimitMs`), `concurrency-limit` for a level without queues,
 * `cancelled` when its client goes away while it waits. The virtual-time model books requests instead
 * (./PriorityAndFairness.ts); this one holds them.
 *
 * Simplifications (docs/apf.md, docs/metrics.md): no borrowing between levels; seats per request from the caller
 * (upstream's work estimate), without upstream's extra seats and latency for writes.
 */
import { classification, priorityLevels, type RequestAttributes } from "./Bootstrap.js"
import { levelSeats, RequestWaitLimitMs } from "./PriorityAndFairness.js"
import { FairQueuing, type FairEntry } from "./FairQueuing.js"

/** Why APF answered 429: the `reason` tag of `apf_rejected` (src/loadgen/ClusterMetrics.ts). */
export const rejectReasons = ["queue-full", "time-out", "concurrency-limit", "cancelled"] as const
export type RejectReason = (typeof rejectReasons)[number]

/** What the filter reports (the `apiserver_flowcontrol_*` metrics; ../http/FlowControlMetrics.ts). */
export interface ApfObserver {
  readonly waiting: (level: string, flowSchema: string, delta: 1 | -1) => void
  readonly executing: (level: string, flowSchema: string, delta: 1 | -1) => void
  /** A request left its queue (or never entered one): `execute` whether it went on to run. */
  readonly waited: (level: string, flowSchema: string, execute: boolean, seconds: number) => void
  readonly dispatched: (level: string, flowSchema: string) => void
  readonly rejected: (level: string, flowSchema: string, reason: RejectReason) => void
  readonly executed: (level: string, flowSchema: string, watch: boolean, seconds: number) => void
}

const noObserver: ApfObserver = { waiting: () => {}, executing: () => {}, waited: () => {}, dispatched: () => {}, rejected: () => {}, executed: () => {} }

/** What the filter needs of time: now in seconds, and a cancellable timer (the wait limit). */
export interface ApfTimers {
  readonly nowSeconds: () => number
  readonly after: (ms: number, f: () => void) => () => void
}

/** A request let through: call `done` once when it has executed (a watch: once its initial events are out). */
export interface Admitted {
  readonly level: string
  readonly flowSchema: string
  /** How long it waited in a queue (0: it ran at once); the SLI leaves this out. */
  readonly waitedSeconds: number
  readonly done: () => void
}

export interface ApfRequest {
  readonly attributes: RequestAttributes
  /** Seats it occupies while it executes (1, or a LIST's work estimate). */
  readonly seats: number
  readonly watch: boolean
  /**
   * Its deadline (ms from now) when that comes before the request wait limit: a wait in a queue ends then, and the
   * request leaves it `cancelled`, as upstream's queue sees the request's context done.
   */
  readonly waitLimitMs?: number | undefined
  /** Runs the request; may be called later (after a wait in a queue). */
  readonly execute: (admitted: Admitted) => void
  readonly reject: (reason: RejectReason) => void
}

/** A request of a limited level, from its arrival until it ends or leaves its queue. */
interface Pending {
  readonly request: ApfRequest
  readonly flowSchema: string
  /** Real time (s) it arrived. */
  readonly arrived: number
  /** Whether it was reported waiting in a queue (it did not run on arrival). */
  queued: boolean
  cancelTimer: () => void
}

interface Level {
  readonly name: string
  readonly exempt: boolean
  readonly seats: number
  /** Its seats and queues (./FairQueuing.ts); undefined for the exempt level. */
  readonly fair: FairQueuing<Pending> | undefined
}

/** Upstream's `probes` FlowSchema: the health paths go to the exempt level whoever asks. */
const healthPaths = new Set(["/healthz", "/livez", "/readyz"])

export class RealTimeApf {
  private readonly levels: ReadonlyArray<Level>
  private readonly observer: ApfObserver
  /** Whether execution is timed: only for an observer (the clock is read twice a request for it). */
  private readonly timed: boolean

  constructor(
    /** `--max-requests-inflight` + `--max-mutating-requests-inflight` (400 + 200). */
    readonly serverConcurrencyLimit: number,
    private readonly timers: ApfTimers,
    observer?: ApfObserver
  ) {
    this.observer = observer ?? noObserver
    this.timed = observer !== undefined
    const seats = levelSeats(serverConcurrencyLimit)
    const now = timers.nowSeconds()
    this.levels = priorityLevels.map((l) => {
      const exempt = l.type === "Exempt"
      const levelSeatCount = seats[l.name] ?? 0
      return { name: l.name, exempt, seats: levelSeatCount, fair: exempt ? undefined : new FairQueuing<Pending>(levelSeatCount, l.queuing, now) }
    })
  }

  /** Each limited level's nominal seats (`apiserver_flowcontrol_nominal_limit_seats`). */
  nominalSeats(): ReadonlyArray<{ readonly level: string; readonly seats: number }> {
    return this.levels.filter((l) => !l.exempt).map((l) => ({ level: l.name, seats: l.seats }))
  }

  /** Classifies `r` and executes, queues or rejects it; when queued, the cancel to call if its client goes away. */
  enter(r: ApfRequest, path: string): (() => void) | undefined {
    const classified = classification(r.attributes)
    const probe = healthPaths.has(path)
    const level = this.levels[probe ? 0 : classified.level]!
    const flowSchema = probe ? "probes" : classified.schema.name
    const fair = level.fair
    if (fair === undefined) {
      this.observer.waited(level.name, flowSchema, true, 0)
      this.run(level, flowSchema, r, 0, undefined)
      return undefined
    }
    const now = this.timers.nowSeconds()
    const pending: Pending = { request: r, flowSchema, arrived: now, queued: false, cancelTimer: () => {} }
    // a request wider than the level runs alone in it, as upstream's `canAccommodateSeatsLocked` lets it
    const seats = Math.min(Math.max(1, r.seats), Math.max(1, level.seats))
    const arrival = fair.arrive(now, classified.flow, seats, pending)
    if (arrival._tag === "Rejected") {
      this.reject(level, flowSchema, r, arrival.reason)
      return undefined
    }
    const entry = arrival.entry
    // upstream enqueues every request and then dispatches: one that runs at once never shows as waiting
    if (entry.state === "executing") this.start(level, entry)
    else this.dispatchWaiting(level)
    if (entry.state !== "waiting") return undefined
    pending.queued = true
    this.observer.waiting(level.name, flowSchema, 1)
    const deadline = r.waitLimitMs !== undefined && r.waitLimitMs < RequestWaitLimitMs
    pending.cancelTimer = this.timers.after(deadline ? Math.max(0, r.waitLimitMs!) : RequestWaitLimitMs, () => this.giveUp(level, entry, deadline ? "cancelled" : "time-out"))
    return () => this.giveUp(level, entry, "cancelled")
  }

  /** Runs a request its level's queues have just moved to executing, reporting the wait it leaves. */
  private start(level: Level, entry: FairEntry<Pending>): void {
    const pending = entry.payload
    const waitedSeconds = pending.queued ? this.leave(level, pending, true) : 0
    if (!pending.queued) this.observer.waited(level.name, pending.flowSchema, true, 0)
    this.run(level, pending.flowSchema, pending.request, waitedSeconds, entry)
  }

  private run(level: Level, flowSchema: string, r: ApfRequest, waitedSeconds: number, entry: FairEntry<Pending> | undefined): void {
    this.observer.dispatched(level.name, flowSchema)
    this.observer.executing(level.name, flowSchema, 1)
    const started = this.timed ? this.timers.nowSeconds() : 0
    let finished = false
    r.execute({
      level: level.name,
      flowSchema,
      waitedSeconds,
      done: () => {
        if (finished) return
        finished = true
        const now = this.timers.nowSeconds()
        if (entry !== undefined) level.fair!.finish(now, entry)
        this.observer.executing(level.name, flowSchema, -1)
        if (this.timed) this.observer.executed(level.name, flowSchema, r.watch, now - started)
        this.dispatchWaiting(level)
      }
    })
  }

  private reject(level: Level, flowSchema: string, r: ApfRequest, reason: RejectReason): void {
    this.observer.rejected(level.name, flowSchema, reason)
    r.reject(reason)
  }

  /** Seats freed (or a request arrived): the requests fair queuing picks run while they fit. */
  private dispatchWaiting(level: Level): void {
    const fair = level.fair
    if (fair === undefined) return
    for (let next = fair.dispatch(this.timers.nowSeconds()); next !== undefined; next = fair.dispatch(this.timers.nowSeconds())) this.start(level, next)
  }

  private giveUp(level: Level, entry: FairEntry<Pending>, reason: RejectReason): void {
    if (!level.fair!.remove(this.timers.nowSeconds(), entry)) return
    this.leave(level, entry.payload, false)
    this.reject(level, entry.payload.flowSchema, entry.payload.request, reason)
    // a head that did not fit may have left: what is behind it may run (upstream dispatches only on arrivals and ends)
    this.dispatchWaiting(level)
  }

  /** A queued request leaves its queue: reported, its wait limit cancelled; the seconds it waited. */
  private leave(level: Level, pending: Pending, execute: boolean): number {
    pending.cancelTimer()
    const waited = this.timers.nowSeconds() - pending.arrived
    this.observer.waiting(level.name, pending.flowSchema, -1)
    this.observer.waited(level.name, pending.flowSchema, execute, waited)
    return waited
  }
}

/**
 * API Priority and Fairness for the real-time HTTP server (`clustersim serve`), as kube-apiserver's filter
 * (`server/filters/priority-and-fairness.go`, `util/flowcontrol/apf_controller.go`) runs it: each request is
 * classified by the bootstrap FlowSchemas (./Bootstrap.ts) and, in its priority level, executes at once when the
 * level's seats allow, waits in the shortest queue of its flow's hand (./ShuffleSharding.ts), or is rejected —
 * `queue-full`, `time-out` after the request wait limit (./PriorityAndFairness.ts `RequestWaitLimitMs`),
 * `concurrency-limit` for a level without queues, `cancelled` when its client goes away while it waits. The virtual-
 * time model books requests instead (./PriorityAndFairness.ts); this one holds them.
 *
 * Simplifications (docs/apf.md, docs/metrics.md): a level dispatches its waiting requests in arrival order (not
 * upstream's fair queuing by virtual finish time), no borrowing between levels; seats per request from the
 * caller (upstream's work estimate).
 */
import { classification, priorityLevels, type RequestAttributes } from "./Bootstrap.js"
import { levelSeats, RequestWaitLimitMs } from "./PriorityAndFairness.js"
import { dealHand, flowHash } from "./ShuffleSharding.js"

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

interface Waiting {
  readonly request: ApfRequest
  readonly flowSchema: string
  readonly queue: Array<Waiting>
  readonly arrived: number
  cancelTimer: () => void
}

interface Level {
  readonly name: string
  readonly exempt: boolean
  readonly seats: number
  readonly queuing: { readonly queues: number; readonly handSize: number; readonly queueLengthLimit: number } | undefined
  readonly queues: Array<Array<Waiting>>
  /** Every waiting request of the level, oldest first (dispatch order). */
  readonly waiting: Array<Waiting>
  inUse: number
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
    this.levels = priorityLevels.map((l) => ({
      name: l.name,
      exempt: l.type === "Exempt",
      seats: seats[l.name] ?? 0,
      queuing: l.queuing,
      queues: Array.from({ length: l.queuing?.queues ?? 0 }, () => []),
      waiting: [],
      inUse: 0
    }))
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
    const seats = Math.min(Math.max(1, r.seats), Math.max(1, level.seats))
    if (level.exempt || (level.waiting.length === 0 && level.inUse + seats <= level.seats)) {
      this.observer.waited(level.name, flowSchema, true, 0)
      this.run(level, flowSchema, r, seats, 0)
      return undefined
    }
    if (level.queuing === undefined) {
      this.reject(level, flowSchema, r, "concurrency-limit")
      return undefined
    }
    const queue = this.shortestQueue(level, classified.flow)
    if (queue.length >= level.queuing.queueLengthLimit) {
      this.reject(level, flowSchema, r, "queue-full")
      return undefined
    }
    const waiting: Waiting = { request: r, flowSchema, queue, arrived: this.timers.nowSeconds(), cancelTimer: () => {} }
    queue.push(waiting)
    level.waiting.push(waiting)
    this.observer.waiting(level.name, flowSchema, 1)
    const deadline = r.waitLimitMs !== undefined && r.waitLimitMs < RequestWaitLimitMs
    waiting.cancelTimer = this.timers.after(deadline ? Math.max(0, r.waitLimitMs!) : RequestWaitLimitMs, () => this.giveUp(level, waiting, deadline ? "cancelled" : "time-out"))
    return () => this.giveUp(level, waiting, "cancelled")
  }

  private run(level: Level, flowSchema: string, r: ApfRequest, seats: number, waitedSeconds: number): void {
    level.inUse += seats
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
        level.inUse -= seats
        this.observer.executing(level.name, flowSchema, -1)
        if (this.timed) this.observer.executed(level.name, flowSchema, r.watch, this.timers.nowSeconds() - started)
        this.dispatchWaiting(level)
      }
    })
  }

  private reject(level: Level, flowSchema: string, r: ApfRequest, reason: RejectReason): void {
    this.observer.rejected(level.name, flowSchema, reason)
    r.reject(reason)
  }

  /** Seats freed: the oldest waiting requests that fit now run. */
  private dispatchWaiting(level: Level): void {
    while (level.waiting.length > 0) {
      const next = level.waiting[0]!
      const seats = Math.min(Math.max(1, next.request.seats), Math.max(1, level.seats))
      if (level.inUse + seats > level.seats) return
      this.leave(level, next, true)
      this.run(level, next.flowSchema, next.request, seats, this.timers.nowSeconds() - next.arrived)
    }
  }

  private giveUp(level: Level, waiting: Waiting, reason: RejectReason): void {
    if (!level.waiting.includes(waiting)) return
    this.leave(level, waiting, false)
    this.reject(level, waiting.flowSchema, waiting.request, reason)
  }

  private leave(level: Level, waiting: Waiting, execute: boolean): void {
    waiting.cancelTimer()
    level.waiting.splice(level.waiting.indexOf(waiting), 1)
    waiting.queue.splice(waiting.queue.indexOf(waiting), 1)
    this.observer.waiting(level.name, waiting.flowSchema, -1)
    this.observer.waited(level.name, waiting.flowSchema, execute, this.timers.nowSeconds() - waiting.arrived)
  }

  /** The queue of the flow's hand with the fewest waiting requests (the first such, as upstream). */
  private shortestQueue(level: Level, flow: string): Array<Waiting> {
    const q = level.queuing!
    let best: Array<Waiting> | undefined
    for (const index of dealHand(flowHash(flow), q.queues, q.handSize)) {
      const queue = level.queues[index]!
      if (best === undefined || queue.length < best.length) best = queue
    }
    return best!
  }
}

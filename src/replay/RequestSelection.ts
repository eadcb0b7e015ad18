/**
 * One request per `auditID`, in the order the API server received them. Upstream writes an event per stage
 * (`RequestReceived`, `ResponseStarted` for long-running requests only, `ResponseComplete`, `Panic`), and its
 * backends flush them out of order (a batch per goroutine; a slow LIST completes after requests received later).
 * The selector keeps `ResponseComplete` (or `Panic`), or `ResponseStarted` for a long-running request — then its
 * `ResponseComplete`, read later, ends it — and releases each request once the log has moved `windowMs` past its
 * receipt, so memory holds one window of requests, never the log.
 *
 * A request read more than a window behind the log (received before `windowMs` ahead of the latest time read so far)
 * is out of order beyond the window: it is marked `late` and placed where the log has it, at the latest time read
 * before it (docs/replay.md "Bad input"). Compared only with what was released, one event far back near the start
 * (a clock an hour off, a time of year 1) would go out first and become the schedule's origin, and everything after
 * it would wait for the gap. A late request keeps its recorded latency; an end read for it later moves with it.
 *
 * The end of a long-running request released open goes through the window too, in time order with the requests: what
 * comes out is in time order, so the sender knows that nothing it has not read yet starts before the last entry it
 * took (docs/replay.md "Memory and timing"); an end handed out as soon as it was read would sit a window ahead of the
 * requests behind it, and a sender trusting the order would read those only when they were already due.
 *
 * A long-running request released open whose end the log never shows (a log cut before it, a policy that drops the
 * stage) is ended where upstream's server would have ended it at the latest: its `timeoutSeconds`, or twice
 * `--min-request-timeout` (1800 s) without one (apiserver `endpoints/handlers/get.go` ListResource draws the timeout
 * from [1, 2) × minRequestTimeout). Remembering it longer would hold every such request of the log.
 */
import type { Event } from "../api/audit/Event.js"
import { isLongRunning, microTimeMs } from "../api/audit/EventTime.js"
import type { LocatedEvent } from "./AuditLine.js"
import { MinHeap } from "./MinHeap.js"

/** A request to replay: its chosen event and what the report compares against. */
export interface RecordedRequest {
  readonly event: Event
  readonly file: string
  readonly line: number
  /** `requestReceivedTimestamp`, ms since the epoch. */
  readonly receivedMs: number
  /** When it is scheduled, in log time: `receivedMs`, or later when it came after the window (`late`). */
  readonly scheduleMs: number
  readonly late: boolean
  /** `stageTimestamp − requestReceivedTimestamp` of the chosen stage (the first response of a long-running request). */
  readonly recordedLatencyMs: number
  readonly recordedCode: number | undefined
  readonly longRunning: boolean
  /** How long a long-running request stayed open, when its end was read before it was released. */
  readonly holdMs: number | undefined
}

export type Selected =
  | { readonly _tag: "Request"; readonly request: RecordedRequest }
  /** A long-running request released open has ended at `atMs` (log time). */
  | { readonly _tag: "End"; readonly auditID: string; readonly atMs: number }

export interface SelectionCounts {
  /** Events of a stage the replay does not use (`RequestReceived`). */
  requestReceived: number
  /** A second event of a stage already taken for its `auditID`. */
  duplicates: number
  /** Requests released after a later one: the log's disorder exceeded the window. */
  lateBeyondWindow: number
}

interface Pending {
  readonly seq: number
  /** Where it goes in the order: `receivedMs`, or for a request read beyond the window, the log's time when it was read. */
  readonly orderMs: number
  /** Read more than a window behind the log. */
  readonly late: boolean
  event: Event
  readonly file: string
  readonly line: number
  readonly receivedMs: number
  readonly recordedLatencyMs: number
  readonly recordedCode: number | undefined
  readonly longRunning: boolean
  holdMs: number | undefined
}

/** Ordered by (orderMs, seq). */
const pendingOrder = (a: Pending, b: Pending): boolean => a.orderMs < b.orderMs || (a.orderMs === b.orderMs && a.seq < b.seq)

/** An open long-running request's end, waiting for the window to pass it. */
interface PendingEnd {
  readonly seq: number
  readonly auditID: string
  readonly atMs: number
  /** The server's timeout, not an end the log showed: dropped when the log ends first or the request ended already. */
  readonly timeout: boolean
}

/** Upstream's default `--min-request-timeout`, in ms; a watch without `timeoutSeconds` lasts at most twice it. */
export const MinRequestTimeoutMs = 1800_000

/** The latest a long-running request received at `receivedMs` can end on upstream's server. */
export const serverTimeoutMs = (requestURI: string): number => {
  const m = /[?&]timeoutSeconds=(\d+)(&|$)/.exec(requestURI)
  const s = m === null ? 0 : Number(m[1])
  return s > 0 ? s * 1000 : 2 * MinRequestTimeoutMs
}

const endOrder = (a: PendingEnd, b: PendingEnd): boolean => a.atMs < b.atMs || (a.atMs === b.atMs && a.seq < b.seq)

const codeOf = (e: Event): number | undefined => e.responseStatus?.code

export class RequestSelector {
  readonly counts: SelectionCounts = { requestReceived: 0, duplicates: 0, lateBeyondWindow: 0 }
  private readonly heap = new MinHeap<Pending>(pendingOrder)
  private readonly ends = new MinHeap<PendingEnd>(endOrder)
  private readonly pending = new Map<string, Pending>()
  /**
   * Released requests by auditID: `open` ones wait for their end; the others only catch duplicates, for a while.
   * `shiftMs`: how much later than received it was scheduled (a late request), which its end moves by too.
   */
  private readonly released = new Map<string, { readonly open: boolean; readonly receivedMs: number; readonly shiftMs: number }>()
  private watermark = Number.NEGATIVE_INFINITY
  private seq = 0
  /** `released`'s size that calls for a prune: twice what the last one left, so pruning costs O(1) a request. */
  private pruneAt = 1024

  constructor(private readonly windowMs: number) {}

  /** Requests and ends pending in the window (what memory holds). */
  get held(): number {
    return this.heap.size + this.ends.size
  }

  /** Released requests still remembered by auditID: open ones, and the recent ones that catch duplicates. */
  get remembered(): number {
    return this.released.size
  }

  push(located: LocatedEvent): ReadonlyArray<Selected> {
    const e = located.event
    const receivedMs = microTimeMs(e.requestReceivedTimestamp)
    const stageMs = microTimeMs(e.stageTimestamp)
    // the log's time before this event: a request received more than a window before it is out of order beyond it
    const readAtMs = this.watermark
    if (stageMs > this.watermark) this.watermark = stageMs
    const out: Array<Selected> = []
    if (e.stage === "RequestReceived") {
      this.counts.requestReceived++
      this.release(out, false)
      return out
    }
    const ends = e.stage === "ResponseComplete" || e.stage === "Panic"
    const p = this.pending.get(e.auditID)
    const r = p === undefined ? this.released.get(e.auditID) : undefined
    if (p !== undefined) {
      // the end of a long-running request still in the window: it is released with its duration
      if (!ends || p.holdMs !== undefined || !p.longRunning) this.counts.duplicates++
      else p.holdMs = Math.max(0, stageMs - p.receivedMs)
    } else if (r !== undefined) {
      if (r.open && ends) {
        // remembered a while as done, so the timeout end pushed at its release is dropped
        // never before what was released already (an end read beyond the window): the output stays in time order
        const atMs = Math.max(stageMs + r.shiftMs, readAtMs - this.windowMs)
        this.released.set(e.auditID, { open: false, receivedMs: atMs, shiftMs: r.shiftMs })
        this.ends.push({ seq: this.seq++, auditID: e.auditID, atMs, timeout: false })
      } else this.counts.duplicates++
    } else {
      const longRunning = e.stage === "ResponseStarted" || isLongRunning(e)
      const late = receivedMs < readAtMs - this.windowMs
      const entry: Pending = {
        seq: this.seq++,
        orderMs: late ? readAtMs : receivedMs,
        late,
        event: e,
        file: located.file,
        line: located.line,
        receivedMs,
        recordedLatencyMs: Math.max(0, stageMs - receivedMs),
        recordedCode: codeOf(e),
        longRunning,
        // a long-running request logged only at its end (a policy omitting ResponseStarted) ends there
        holdMs: longRunning && ends ? Math.max(0, stageMs - receivedMs) : undefined
      }
      this.heap.push(entry)
      this.pending.set(e.auditID, entry)
    }
    this.release(out, false)
    return out
  }

  /** The log has ended: every request still held, in order. */
  end(): ReadonlyArray<Selected> {
    const out: Array<Selected> = []
    this.release(out, true)
    return out
  }

  private release(out: Array<Selected>, all: boolean): void {
    const horizon = this.watermark - this.windowMs
    for (;;) {
      const top = this.heap.peek()
      const end = this.ends.peek()
      // an end before the next request goes first (at the same time too: a request's end before a later start)
      if (end !== undefined && (all || end.atMs <= horizon) && (top === undefined || end.atMs <= top.orderMs)) {
        this.ends.pop()
        if (end.timeout) {
          // the replay closes what is still open when the log ends; the request may have ended already
          const r = this.released.get(end.auditID)
          if (all || r === undefined || !r.open) continue
          this.released.set(end.auditID, { open: false, receivedMs: end.atMs, shiftMs: r.shiftMs })
          if (this.released.size >= this.pruneAt) this.prune()
        }
        out.push({ _tag: "End", auditID: end.auditID, atMs: end.atMs })
        continue
      }
      if (top === undefined || !(all || top.orderMs <= horizon)) return
      this.heap.pop()
      this.pending.delete(top.event.auditID)
      // what is read within the window is never before what was released (the horizon only moves on)
      const late = top.late
      if (late) this.counts.lateBeyondWindow++
      const scheduleMs = top.orderMs
      const open = top.longRunning && top.holdMs === undefined
      this.released.set(top.event.auditID, { open, receivedMs: top.receivedMs, shiftMs: scheduleMs - top.receivedMs })
      if (open) this.ends.push({ seq: this.seq++, auditID: top.event.auditID, atMs: scheduleMs + serverTimeoutMs(top.event.requestURI), timeout: true })
      out.push({
        _tag: "Request",
        request: {
          event: top.event,
          file: top.file,
          line: top.line,
          receivedMs: top.receivedMs,
          scheduleMs,
          late,
          recordedLatencyMs: top.recordedLatencyMs,
          recordedCode: top.recordedCode,
          longRunning: top.longRunning,
          holdMs: top.holdMs
        }
      })
      if (this.released.size >= this.pruneAt) this.prune()
    }
  }

  /**
   * Forget released requests that are done, four windows behind the log: a duplicate later than that is rare, and
   * remembering every auditID would hold the whole log's ids.
   */
  private prune(): void {
    const before = this.watermark - 4 * this.windowMs
    for (const [id, r] of this.released) if (!r.open && r.receivedMs < before) this.released.delete(id)
    this.pruneAt = Math.max(1024, 2 * this.released.size)
  }
}

/**
 * The modelled API server's `apiserver_flowcontrol_*` series in virtual time (`run --metrics-out`, docs/metrics.md):
 * serve's definitions (`MetricDefinitions.ts`, as `http/FlowControlMetrics.ts` exposes them from the real filter), fed
 * by the virtual-time model's bookings (`apf/PriorityAndFairness.ts` `ApfBookingObserver`). A booking is decided at
 * arrival, so what serve counts as it happens is counted here when booked: dispatched, rejected with its reason, the
 * queue wait (`execute="false"` for a wait that timed out), the execution time; the gauges of requests waiting and
 * executing are read at the scrape's instant from the bookings' intervals ([arrival, start) queued, [start, end)
 * executing). One series per FlowSchema (its level is the schema's): no label object per request.
 */
import type { Registry } from "prom-client"
import { promClient } from "../../src/loadgen/PromClient.js"
import { BoundHistogram, type HistogramCell } from "../../src/loadgen/BoundHistogram.js"
import { flowSchemas, type Classification, type FlowSchema } from "./apf/Bootstrap.js"
import { levelSeats, type ApfBookingObserver } from "./apf/PriorityAndFairness.js"
import type { Booking } from "./apf/QueueSet.js"
import * as Def from "./MetricDefinitions.js"

type Reason = "queue-full" | "time-out" | "concurrency-limit"
const reasons: ReadonlyArray<Reason> = ["queue-full", "time-out", "concurrency-limit"]

/** One FlowSchema's counts and cells. */
interface Series {
  readonly index: number
  readonly labels: { readonly priority_level: string; readonly flow_schema: string }
  dispatched: number
  /** Per reason (`reasons`' order), and whether that series is exposed yet (serve's appear on first rejection). */
  readonly rejected: Float64Array
  readonly rejectedSeen: Uint8Array
  readonly waitExecuted: HistogramCell
  waitTimedOut: HistogramCell | undefined
  readonly regular: HistogramCell
  watch: HistogramCell | undefined
  /** Whether any request of the schema waited in a queue (serve's in-queue gauge appears then). */
  queued: boolean
}

export class ModelledFlowControlMetrics implements ApfBookingObserver {
  private readonly bySchema = new Map<FlowSchema, Series>()
  /** In the order first booked. */
  private readonly series: Array<Series> = []
  private readonly wait: BoundHistogram
  private readonly execution: BoundHistogram
  /**
   * Bookings that may still be waiting or executing at a later scrape: (series, arrival, start, end) per entry, in
   * typed arrays; those over by the clock's reading are dropped when the arrays fill (bounded by what is in flight).
   */
  private bookings = new Float64Array(4 * 1024)
  private held = 0

  /** `now`: the virtual clock (ms); `serverConcurrencyLimit`: the model's, shared by the levels' nominal seats. */
  constructor(registers: ReadonlyArray<Registry>, private readonly now: () => number, serverConcurrencyLimit: number) {
    const { Counter, Gauge } = promClient()
    const r = [...registers]
    const series = this.series
    new Counter({
      ...Def.flowcontrolDispatchedRequests,
      registers: r,
      collect() {
        this.reset()
        for (const s of series) this.inc(s.labels, s.dispatched)
      }
    })
    new Counter({
      ...Def.flowcontrolRejectedRequests,
      registers: r,
      collect() {
        this.reset()
        for (const s of series) for (let i = 0; i < reasons.length; i++) if (s.rejectedSeen[i] === 1) this.inc({ ...s.labels, reason: reasons[i]! }, s.rejected[i]!)
      }
    })
    // the gauges at the scrape's instant: one pass over the bookings in flight fills both
    const inqueue = new Float64Array(flowSchemas.length)
    const executing = new Float64Array(flowSchemas.length)
    const count = () => this.inFlight(inqueue, executing)
    new Gauge({
      ...Def.flowcontrolCurrentInqueueRequests,
      registers: r,
      collect() {
        count()
        for (const s of series) if (s.queued) this.set(s.labels, inqueue[s.index]!)
      }
    })
    new Gauge({
      ...Def.flowcontrolCurrentExecutingRequests,
      registers: r,
      collect() {
        count()
        for (const s of series) if (s.dispatched > 0) this.set(s.labels, executing[s.index]!)
      }
    })
    this.wait = new BoundHistogram({ ...Def.flowcontrolRequestWaitDuration, registers: r })
    this.execution = new BoundHistogram({ ...Def.flowcontrolRequestExecution, registers: r })
    // each limited level's seats, set once as upstream sets them when the configuration is digested
    const seats = Object.entries(levelSeats(serverConcurrencyLimit))
    for (const def of [Def.flowcontrolRequestConcurrencyLimit, Def.flowcontrolNominalLimitSeats]) {
      const gauge = new Gauge({ ...def, registers: r })
      for (const [level, n] of seats) gauge.set({ priority_level: level }, n)
    }
  }

  booked(at: number, classified: Classification, watch: boolean, booking: Booking): void {
    let s = this.bySchema.get(classified.schema)
    if (s === undefined) this.bySchema.set(classified.schema, (s = this.seriesOf(classified.schema)))
    if (booking._tag === "Dispatched") {
      s.dispatched++
      if (booking.start > at) s.queued = true
      this.wait.observe(s.waitExecuted, (booking.start - at) / 1000)
      this.execution.observe(watch ? (s.watch ??= this.execution.cell({ ...s.labels, type: "watch" })) : s.regular, (booking.end - booking.start) / 1000)
      this.remember(s.index, at, booking.start, booking.end)
      return
    }
    const reason = booking.reason === "queue-full" ? 0 : booking.reason === "time-out" ? 1 : 2
    s.rejected[reason]!++
    s.rejectedSeen[reason] = 1
    // a request that timed out waited in its queue until then (serve observes that wait with execute="false")
    if (booking.at > at) {
      s.queued = true
      this.wait.observe((s.waitTimedOut ??= this.wait.cell({ ...s.labels, execute: "false" })), (booking.at - at) / 1000)
      this.remember(s.index, at, booking.at, booking.at)
    }
  }

  private seriesOf(schema: FlowSchema): Series {
    const labels = { priority_level: schema.priorityLevel, flow_schema: schema.name }
    const s: Series = {
      index: this.series.length,
      labels,
      dispatched: 0,
      rejected: new Float64Array(reasons.length),
      rejectedSeen: new Uint8Array(reasons.length),
      waitExecuted: this.wait.cell({ ...labels, execute: "true" }),
      waitTimedOut: undefined,
      regular: this.execution.cell({ ...labels, type: "regular" }),
      watch: undefined,
      queued: false
    }
    this.series.push(s)
    return s
  }

  private remember(index: number, at: number, start: number, end: number): void {
    if (this.held * 4 === this.bookings.length) {
      this.dropOver(this.now())
      // still more than half full after dropping: grow
      if (this.held * 8 > this.bookings.length) {
        const grown = new Float64Array(this.bookings.length * 2)
        grown.set(this.bookings.subarray(0, this.held * 4))
        this.bookings = grown
      }
    }
    const b = this.bookings
    const i = this.held++ * 4
    b[i] = index
    b[i + 1] = at
    b[i + 2] = start
    b[i + 3] = end
  }

  /** Drops the bookings ended by `t`: none is waiting or executing at `t` or later. */
  private dropOver(t: number): void {
    const b = this.bookings
    let kept = 0
    for (let i = 0; i < this.held * 4; i += 4) {
      if (b[i + 3]! <= t) continue
      if (kept !== i) b.copyWithin(kept, i, i + 4)
      kept += 4
    }
    this.held = kept / 4
  }

  /** Per series, the requests waiting and executing at the clock's reading (a booking for a later arrival is neither). */
  private inFlight(inqueue: Float64Array, executing: Float64Array): void {
    const t = this.now()
    this.dropOver(t)
    inqueue.fill(0)
    executing.fill(0)
    const b = this.bookings
    for (let i = 0; i < this.held * 4; i += 4) {
      const index = b[i]!
      if (b[i + 1]! > t) continue
      if (t < b[i + 2]!) inqueue[index]!++
      else executing[index]!++
    }
  }
}

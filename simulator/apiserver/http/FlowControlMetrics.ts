/**
 * The `apiserver_flowcontrol_*` metrics of kube-apiserver 1.26 (`apiserver/pkg/util/flowcontrol/metrics/metrics.go`:
 * names, help texts, labels and buckets), fed by the HTTP server's API Priority and Fairness filter
 * (../apf/RealTimeApf.ts): dispatched and rejected requests, requests waiting and executing now, the time spent
 * waiting and executing, and each limited level's seats. Registered with the server's other metrics (./ServerMetrics.ts);
 * the definitions are in ../MetricDefinitions.ts, which the virtual-time run's file shares (../ModelledFlowControlMetrics.ts).
 */
import type { Registry } from "prom-client"
import { Counter, Gauge, Histogram, type HistogramSeries, type Value } from "./MetricSeries.js"
import type { ApfObserver, RejectReason } from "../apf/RealTimeApf.js"
import * as Def from "../MetricDefinitions.js"

export class FlowControlMetrics implements ApfObserver {
  private readonly rejectedTotal: Counter<"priority_level" | "flow_schema" | "reason">
  private readonly dispatchedTotal: Counter<"priority_level" | "flow_schema">
  private readonly inqueue: Gauge<"priority_level" | "flow_schema">
  private readonly executingNow: Gauge<"priority_level" | "flow_schema">
  private readonly waitSeconds: Histogram<"priority_level" | "flow_schema" | "execute">
  private readonly executionSeconds: Histogram<"priority_level" | "flow_schema" | "type">
  private readonly concurrencyLimit: Gauge<"priority_level">
  private readonly nominalLimitSeats: Gauge<"priority_level">

  constructor(registers: ReadonlyArray<Registry>) {
    const registersCopy = () => [...registers]
    this.rejectedTotal = new Counter({ ...Def.flowcontrolRejectedRequests, registers: registersCopy() })
    this.dispatchedTotal = new Counter({ ...Def.flowcontrolDispatchedRequests, registers: registersCopy() })
    this.inqueue = new Gauge({ ...Def.flowcontrolCurrentInqueueRequests, registers: registersCopy() })
    this.executingNow = new Gauge({ ...Def.flowcontrolCurrentExecutingRequests, registers: registersCopy() })
    this.waitSeconds = new Histogram({ ...Def.flowcontrolRequestWaitDuration, registers: registersCopy() })
    this.executionSeconds = new Histogram({ ...Def.flowcontrolRequestExecution, registers: registersCopy() })
    this.concurrencyLimit = new Gauge({ ...Def.flowcontrolRequestConcurrencyLimit, registers: registersCopy() })
    this.nominalLimitSeats = new Gauge({ ...Def.flowcontrolNominalLimitSeats, registers: registersCopy() })
  }

  /** Each limited level's seats: upstream sets both gauges when the configuration is digested. */
  limits(levels: ReadonlyArray<{ readonly level: string; readonly seats: number }>): void {
    for (const { level, seats } of levels) {
      this.concurrencyLimit.set({ priority_level: level }, seats)
      this.nominalLimitSeats.set({ priority_level: level }, seats)
    }
  }

  /** Each (level, FlowSchema)'s series: a request reports five times (../apf/RealTimeApf.ts), with no label work. */
  private readonly byFlow = new Map<string, Map<string, FlowSeries>>()

  private flow(level: string, flowSchema: string): FlowSeries {
    let bySchema = this.byFlow.get(level)
    if (bySchema === undefined) this.byFlow.set(level, (bySchema = new Map()))
    let s = bySchema.get(flowSchema)
    if (s === undefined) {
      s = { labels: { priority_level: level, flow_schema: flowSchema }, inqueue: undefined, executing: undefined, dispatched: undefined, waitedRan: undefined, waitedNot: undefined, regular: undefined, watch: undefined }
      bySchema.set(flowSchema, s)
    }
    return s
  }

  readonly waiting = (level: string, flowSchema: string, delta: 1 | -1): void => {
    const f = this.flow(level, flowSchema)
    ;(f.inqueue ??= this.inqueue.bind(f.labels)).value += delta
  }
  readonly executing = (level: string, flowSchema: string, delta: 1 | -1): void => {
    const f = this.flow(level, flowSchema)
    ;(f.executing ??= this.executingNow.bind(f.labels)).value += delta
  }
  readonly waited = (level: string, flowSchema: string, execute: boolean, seconds: number): void => {
    const f = this.flow(level, flowSchema)
    const series = execute ? (f.waitedRan ??= this.waitSeconds.bind({ ...f.labels, execute: "true" })) : (f.waitedNot ??= this.waitSeconds.bind({ ...f.labels, execute: "false" }))
    series.observe(seconds)
  }
  readonly dispatched = (level: string, flowSchema: string): void => {
    const f = this.flow(level, flowSchema)
    ;(f.dispatched ??= this.dispatchedTotal.bind(f.labels)).value++
  }
  readonly rejected = (level: string, flowSchema: string, reason: RejectReason): void => this.rejectedTotal.inc({ priority_level: level, flow_schema: flowSchema, reason })
  readonly executed = (level: string, flowSchema: string, watch: boolean, seconds: number): void => {
    const f = this.flow(level, flowSchema)
    const series = watch ? (f.watch ??= this.executionSeconds.bind({ ...f.labels, type: "watch" })) : (f.regular ??= this.executionSeconds.bind({ ...f.labels, type: "regular" }))
    series.observe(seconds)
  }
}

/** One (level, FlowSchema)'s series, each bound on its first use (a series is exposed from then on). */
interface FlowSeries {
  readonly labels: { readonly priority_level: string; readonly flow_schema: string }
  inqueue: Value | undefined
  executing: Value | undefined
  dispatched: Value | undefined
  /** `request_wait_duration_seconds` with `execute` true, false. */
  waitedRan: HistogramSeries | undefined
  waitedNot: HistogramSeries | undefined
  /** `request_execution_seconds` with `type` regular, watch. */
  regular: HistogramSeries | undefined
  watch: HistogramSeries | undefined
}

/**
 * The simulated scheduler's metrics in a virtual-time run (`run --metrics-out`, docs/metrics.md), in kube-scheduler
 * 1.26's names, labels and buckets (`pkg/scheduler/metrics/metrics.go`; `leader_election_master_status` from
 * client-go's `tools/leaderelection/metrics.go`). A run exports them when it provides `SchedulerMetrics`; without it
 * the scheduler counts nothing more than its own stats.
 */
import { Context, Effect, Option } from "effect"
import type { Registry } from "prom-client"
import { promClient } from "../../src/loadgen/PromClient.js"

export type AttemptResult = "scheduled" | "unschedulable" | "error"

/** A replica's scheduling queue, as the metrics read it (`SchedulingQueue.counts`). */
export interface PendingPods {
  readonly queue: { readonly counts: () => { readonly active: number; readonly backoff: number; readonly unschedulable: number } }
}

/** What the scheduler tells the run's metrics. */
export interface SchedulerMetricsService {
  /** One scheduling attempt (`schedule_one.go`): its result and its time from the pod's pop to the bind's answer. */
  readonly attempt: (result: AttemptResult, profile: string, seconds: number) => void
  /** A replica: its queues (`scheduler_pending_pods`) while it leads, and whether it leads (without an elector, always). */
  readonly track: (core: PendingPods, isLeader: () => boolean, leaseName: string) => void
}

export class SchedulerMetrics extends Context.Tag("clustersim/scheduler/SchedulerMetrics")<SchedulerMetrics, SchedulerMetricsService>() {}

/** The run's `SchedulerMetrics`, if it exports metrics. */
export const schedulerMetrics: Effect.Effect<SchedulerMetricsService | undefined> = Effect.map(Effect.serviceOption(SchedulerMetrics), Option.getOrUndefined)

/** `scheduling_attempt_duration_seconds`: `ExponentialBuckets(0.001, 2, 15)`. */
const attemptBuckets = Array.from({ length: 15 }, (_, i) => 0.001 * 2 ** i)

/** The metrics in `registers`: the replicas' pending pods summed over the leaders, the leaders counted. */
export const makeSchedulerMetrics = (registers: ReadonlyArray<Registry>): SchedulerMetricsService => {
  const { Counter, Gauge, Histogram } = promClient()
  const r = [...registers]
  const replicas: Array<{ readonly core: PendingPods; readonly isLeader: () => boolean; readonly leaseName: string }> = []
  const attempts = new Counter({
    name: "scheduler_schedule_attempts_total",
    help: "Number of attempts to schedule pods, by the result. 'unschedulable' means a pod could not be scheduled, while 'error' means an internal scheduler problem.",
    labelNames: ["result", "profile"],
    registers: r
  })
  const durations = new Histogram({
    name: "scheduler_scheduling_attempt_duration_seconds",
    help: "Scheduling attempt latency in seconds (scheduling algorithm + binding)",
    labelNames: ["result", "profile"],
    buckets: attemptBuckets,
    registers: r
  })
  new Gauge({
    name: "scheduler_pending_pods",
    help: "Number of pending pods, by the queue type. 'active' means number of pods in activeQ; 'backoff' means number of pods in backoffQ; 'unschedulable' means number of pods in unschedulablePods.",
    labelNames: ["queue"],
    registers: r,
    collect() {
      const sum = { active: 0, backoff: 0, unschedulable: 0 }
      for (const replica of replicas) {
        if (!replica.isLeader()) continue
        const counts = replica.core.queue.counts()
        sum.active += counts.active
        sum.backoff += counts.backoff
        sum.unschedulable += counts.unschedulable
      }
      for (const [queue, n] of Object.entries(sum)) this.set({ queue }, n)
    }
  })
  new Gauge({
    name: "leader_election_master_status",
    help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease. Please make sure to group by name.",
    labelNames: ["name"],
    registers: r,
    collect() {
      this.reset()
      for (const replica of replicas) this.inc({ name: replica.leaseName }, replica.isLeader() ? 1 : 0)
    }
  })
  return {
    attempt: (result, profile, seconds) => {
      attempts.inc({ result, profile })
      durations.observe({ result, profile }, seconds)
    },
    track: (core, isLeader, leaseName) => void replicas.push({ core, isLeader, leaseName })
  }
}

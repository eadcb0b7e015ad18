/**
 * The node agents' metrics of a virtual-time run (`run --metrics-out`, docs/metrics.md): kubelet's names where
 * kubelet has the metric (`pkg/kubelet/metrics/metrics.go`: `kubelet_runtime_operations_*` with
 * `operation_type="pull_image"`; `kubelet_evictions` is ./eviction/EvictionMetrics.ts), `clustersim_node_*` where it has none (kubelet measures neither its lease renewals
 * nor its node status updates; only client-go's `rest_client_*` see them). Summed over every simulated node: one
 * series per metric, not one per node (5,000 nodes would be 5,000 series of each).
 */
import type { Counter, Histogram, Registry } from "prom-client"
import { promClient } from "../../src/loadgen/PromClient.js"
import { BoundHistogram, type HistogramCell } from "../../src/loadgen/BoundHistogram.js"
import type { NodeAgentObserver } from "./AgentEnvironment.js"
import type { ImageEvent } from "./images/ImageManager.js"

/** client-go's and kubelet's default buckets (`prometheus.DefBuckets`). */
const defBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** `kubelet_runtime_operations_duration_seconds`: `ExponentialBuckets(.005, 2.5, 14)`. */
const runtimeBuckets = Array.from({ length: 14 }, (_, i) => 0.005 * 2.5 ** i)
const pullImage = { operation_type: "pull_image" }

export class NodeAgentExportedMetrics implements NodeAgentObserver {
  private readonly leaseRenew: BoundHistogram
  private readonly leaseRenewCell: HistogramCell
  private readonly statusUpdate: BoundHistogram
  private readonly statusUpdateCell: HistogramCell
  private readonly operations: Counter<string>
  private readonly operationErrors: Counter<string>
  private readonly operationDuration: Histogram<string>
  /** Pulls end in the model's future (their end is known when they start): observed once the clock passed it. */
  private pendingPulls: Array<{ readonly at: number; readonly seconds: number | undefined }> = []

  /** `now`: the virtual clock (ms). (`kubelet_evictions` is `eviction/EvictionMetrics.ts`: the `eviction` section counts there too.) */
  constructor(registers: ReadonlyArray<Registry>, now: () => number) {
    const { Counter, Histogram } = promClient()
    const r = [...registers]
    // a lease renewal of every node every 10 s: the cheap histogram (../../src/loadgen/BoundHistogram.ts)
    this.leaseRenew = new BoundHistogram({
      name: "clustersim_node_lease_renew_duration_seconds",
      help: "Node lease renewals by the simulated node agents: from the renewal's intended start to the update's response, in seconds.",
      buckets: defBuckets,
      registers: r
    })
    this.leaseRenewCell = this.leaseRenew.cell({})
    this.statusUpdate = new BoundHistogram({
      name: "clustersim_node_status_update_duration_seconds",
      help: "Node status updates (PATCH nodes/status) by the simulated node agents: from the update's intended start to the response, in seconds.",
      buckets: defBuckets,
      registers: r
    })
    this.statusUpdateCell = this.statusUpdate.cell({})
    const pulls = this
    // the first of the three read at a scrape: the pulls that ended by then go into all three first
    this.operations = new Counter({
      name: "kubelet_runtime_operations_total",
      help: "Cumulative number of runtime operations by operation type.",
      labelNames: ["operation_type"],
      registers: r,
      collect() {
        pulls.observePulls(now())
      }
    })
    this.operationErrors = new Counter({
      name: "kubelet_runtime_operations_errors_total",
      help: "Cumulative number of runtime operation errors by operation type.",
      labelNames: ["operation_type"],
      registers: r
    })
    this.operationDuration = new Histogram({
      name: "kubelet_runtime_operations_duration_seconds",
      help: "Duration in seconds of runtime operations. Broken down by operation type.",
      labelNames: ["operation_type"],
      buckets: runtimeBuckets,
      registers: r
    })
  }

  leaseWritten(latencyMs: number): void {
    this.leaseRenew.observe(this.leaseRenewCell, latencyMs / 1000)
  }

  statusUpdated(latencyMs: number): void {
    this.statusUpdate.observe(this.statusUpdateCell, latencyMs / 1000)
  }

  /** An image event of the model (`ImagePulls.onEvent`): a pull that ended (`Pulled`) or failed (`Failed`). */
  imageEvent(e: ImageEvent): void {
    if (e.reason === "Pulled" && e.pulledIn !== undefined) this.pendingPulls.push({ at: e.t, seconds: e.pulledIn.pullMs / 1000 })
    else if (e.reason === "Failed") this.pendingPulls.push({ at: e.t, seconds: undefined })
  }

  private observePulls(t: number): void {
    if (this.pendingPulls.length === 0) return
    const later: typeof this.pendingPulls = []
    for (const p of this.pendingPulls) {
      if (p.at > t) later.push(p)
      else {
        this.operations.inc(pullImage)
        if (p.seconds === undefined) this.operationErrors.inc(pullImage)
        else this.operationDuration.observe(pullImage, p.seconds)
      }
    }
    this.pendingPulls = later
  }
}

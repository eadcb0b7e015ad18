/**
 * `etcd_request_duration_seconds` of kube-apiserver 1.26 (`apiserver/pkg/storage/etcd3/metrics/metrics.go`; the
 * operations and `type` labels of `storage/etcd3/store.go`, which names the Go type read or written: `*core.Pod`,
 * `*core.PodList`). The model's storage step is the in-memory store (../Store.ts): each get, list page, create,
 * update and delete is timed where kube-apiserver would wait for etcd — in-process, so microseconds (docs/metrics.md).
 */
import type { Registry } from "prom-client"
import { Histogram, type HistogramSeries } from "./MetricSeries.js"
import type { ResourceType } from "../../../src/api/Resources.js"
import type { StorageOperation, StorageTiming } from "../Store.js"

const buckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60]

/**
 * The internal Go type of a stored kind as `getTypeName` prints it: the package is the API group's first word
 * (`apps`, `coordination`, `rbac`), core for the core group and for Events (events.k8s.io stores core Events).
 */
export const storedTypeName = (resource: ResourceType, list: boolean): string => {
  const pkg = resource.group === "" || resource.kind === "Event" ? "core" : resource.group.split(".")[0]!
  return `*${pkg}.${resource.kind}${list ? "List" : ""}`
}

export class EtcdMetrics implements StorageTiming {
  private readonly durations: Histogram<"operation" | "type">
  /** Each resource's series by operation, of its objects and of its lists, bound on first use: no label work per operation. */
  private readonly series = new Map<ResourceType, readonly [Partial<Record<StorageOperation, HistogramSeries>>, Partial<Record<StorageOperation, HistogramSeries>>]>()

  constructor(
    registers: ReadonlyArray<Registry>,
    /** Now in seconds, from the server's clock. */
    private readonly nowSeconds: () => number
  ) {
    this.durations = new Histogram({
      name: "etcd_request_duration_seconds",
      help: "Etcd request latency in seconds for each operation and object type.",
      labelNames: ["operation", "type"],
      buckets,
      registers: [...registers]
    })
  }

  readonly start = (): number => this.nowSeconds()

  readonly observe = (operation: StorageOperation, resource: ResourceType, list: boolean, started: number): void => {
    const seconds = this.nowSeconds() - started
    let byKind = this.series.get(resource)
    if (byKind === undefined) this.series.set(resource, (byKind = [{}, {}]))
    const series = (byKind[list ? 1 : 0][operation] ??= this.durations.bind({ operation, type: storedTypeName(resource, list) }))
    series.observe(seconds)
  }
}

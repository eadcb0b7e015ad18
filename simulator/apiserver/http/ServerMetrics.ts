/**
 * The HTTP server's Prometheus metrics (`GET /metrics`, docs/metrics.md) in kube-apiserver 1.26's names, labels and
 * buckets (`apiserver/pkg/endpoints/metrics/metrics.go`, `endpoints/handlers/watch.go`,
 * `storage/etcd3/metrics`): what each request's answer was and how long it took, in-flight and long-running
 * requests, watch events, watchers and stored objects — plus Node's process metrics. Exposed with prom-client
 * (the well-kept Prometheus client for Node) in the text format 0.0.4, or OpenMetrics when the scraper asks for it.
 */
import { type OpenMetricsContentType, Registry } from "prom-client"
import { resourceTypes } from "../../../src/api/Resources.js"
import { addProcessMetrics } from "../../../src/loadgen/ProcessMetrics.js"
import * as Def from "../MetricDefinitions.js"
import type { RequestInfo } from "../RequestInfo.js"
import { isLongRunning } from "./RequestDeadline.js"
import type { Parsed } from "./Routes.js"
import type { ServerState } from "../ServerState.js"
import type { StorageTiming } from "../Store.js"
import { EtcdMetrics } from "./EtcdMetrics.js"
import { FlowControlMetrics } from "./FlowControlMetrics.js"
// prom-client's registry writes them; its own Counter and Histogram cost ~45 µs a request (./MetricSeries.ts)
import { Counter, Gauge, Histogram, type HistogramSeries, type Value } from "./MetricSeries.js"
import { canonicalVerb } from "./RequestLog.js"


/** One answered request as the metrics see it. */
export interface ObservedRequest {
  readonly method: string
  readonly info: RequestInfo | undefined
  readonly contentType: string | undefined
  readonly query: string
  readonly code: number
  readonly seconds: number
  readonly responseBytes: number
  /** Time it waited in API Priority and Fairness's queues, which the SLI leaves out (0 or absent: none). */
  readonly waitedSeconds?: number
  /** It reached an instrumented handler ({@link isInstrumented}); nothing else is counted. */
  readonly instrumented: boolean
}

/** Upstream's `CleanScope` (1.26): a named object or a create is `resource`, then `namespace`, then `cluster`. */
export const cleanScope = (info: RequestInfo): string => {
  if (info.name !== "" || info.verb === "create") return "resource"
  if (info.namespace !== "") return "namespace"
  return info.isResourceRequest ? "cluster" : ""
}

/**
 * Upstream's `cleanDryRun`: `invalid` unless every `dryRun` value is `All` (`ValidateDryRun`), else the values
 * deduplicated, sorted and joined by `,` — so a client cannot make a series of its own with a value.
 */
const cleanDryRun = (query: string): string => {
  const values = new URLSearchParams(query).getAll("dryRun")
  return values.every((v) => v === "All") ? [...new Set(values)].sort().join(",") : "invalid"
}

/** The verbs upstream's `cleanVerb` reports as they are (`validRequestMethods`); any other method is `other`. */
const reportedVerbs = new Set(["APPLY", "CONNECT", "CREATE", "DELETE", "DELETECOLLECTION", "GET", "LIST", "PATCH", "POST", "PROXY", "PUT", "UPDATE", "WATCH", "WATCHLIST"])
const cleanVerb = (verb: string): string => (reportedVerbs.has(verb) ? verb : "other")

/**
 * Whether a request reached a handler upstream instruments, so that its labels are the route's, never a client's
 * invention: an installed resource route (`InstrumentRouteFunc` in `installer.go`; a served type, version and
 * subresource — `metrics.k8s.io`'s too) or a health endpoint's root (`healthz.go` `InstallPathHandler` instruments
 * `/healthz`, `/livez`, `/readyz`, not the per-check paths). An unknown group, version, resource or subresource is a
 * 404 no handler counts, as is a request the authentication or authorization filters refused before routing.
 */
export const isInstrumented = (route: Parsed): boolean =>
  route._tag === "resource" || route._tag === "resourceMetrics" || (route._tag === "health" && route.check === undefined)


const requestKind = (info: RequestInfo | undefined): "readOnly" | "mutating" =>
  info !== undefined && ["get", "list", "watch"].includes(info.verb) ? "readOnly" : "mutating"

/** The series one request shape updates, bound on its first request, and the shape's label values (its resource aside). */
interface RequestSeries {
  readonly verb: string
  readonly dryRun: string
  readonly group: string
  readonly version: string
  /** The path, for a health path. */
  readonly subresource: string
  readonly scope: string
  readonly code: number
  readonly requests: Value
  readonly duration: HistogramSeries
  readonly sli: HistogramSeries
  readonly slo: HistogramSeries
  /** Reads only (GET, LIST), as upstream. */
  readonly responseSizes: HistogramSeries | undefined
  /** A 504 (the request timed out) only. */
  readonly terminations: Value | undefined
}

const openMetricsRegistry = (): Registry<OpenMetricsContentType> => {
  const registry = new Registry<OpenMetricsContentType>()
  registry.setContentType(Registry.OPENMETRICS_CONTENT_TYPE)
  return registry
}

export class ServerMetrics {
  private readonly registry = new Registry()
  private readonly openMetricsRegistry = openMetricsRegistry()
  /** Every metric is in both registries: one per exposition format, so concurrent scrapes never race. */
  private readonly registers = [this.registry, this.openMetricsRegistry] as unknown as ReadonlyArray<Registry>
  /** `apiserver_flowcontrol_*` (./FlowControlMetrics.ts), fed by the HTTP server's API Priority and Fairness filter. */
  readonly flowControl = new FlowControlMetrics(this.registers)
  private etcd: EtcdMetrics | undefined
  private readonly requests = new Counter({
    ...Def.requestTotal,
    registers: [...this.registers]
  })
  private readonly durations = new Histogram({
    ...Def.requestDuration,
    registers: [...this.registers]
  })
  private readonly sli = new Histogram({
    ...Def.requestSliDuration,
    registers: [...this.registers]
  })
  private readonly slo = new Histogram({
    ...Def.requestSloDuration,
    registers: [...this.registers]
  })
  private readonly responseSizes = new Histogram({
    ...Def.responseSizes,
    registers: [...this.registers]
  })
  private readonly terminations = new Counter({
    ...Def.requestTerminations,
    registers: [...this.registers]
  })
  private readonly inflight = new Gauge({
    ...Def.currentInflightRequests,
    registers: [...this.registers]
  })
  private readonly longRunning = new Gauge({
    ...Def.longRunningRequests,
    registers: [...this.registers]
  })
  private readonly watchEvents = new Counter({
    ...Def.watchEventsTotal,
    registers: [...this.registers]
  })
  private readonly watchEventSizes = new Histogram({
    ...Def.watchEventsSizes,
    registers: [...this.registers]
  })

  private readonly inflightReadOnly = this.inflight.bind({ request_kind: "readOnly" })
  private readonly inflightMutating = this.inflight.bind({ request_kind: "mutating" })
  /** The request shapes seen, by resource ("" for the health paths; `seriesOf`). */
  private readonly byResource = new Map<string, Array<RequestSeries>>()
  /** The watch event series of each resource type. */
  private readonly byWatchedResource = new WeakMap<object, { readonly events: Value; readonly sizes: HistogramSeries }>()

  constructor(state: ServerState) {
    const registers = this.registers
    new Gauge({
      ...Def.registeredWatchers,
      registers: [...registers],
      collect() {
        this.reset()
        for (const [resource, count] of state.hub.countsByResource()) this.set({ group: resource.group, version: resource.version, kind: resource.kind }, count)
      }
    })
    new Gauge({
      ...Def.storageObjects,
      registers: [...registers],
      collect() {
        for (const r of resourceTypes) if (!r.virtual) this.set({ resource: Def.storageResourceLabel(r) }, state.store.count(r))
      }
    })
    // one set per process, not per server (src/loadgen/ProcessMetrics.ts): a closed server must not stay reachable
    addProcessMetrics(this.registers)
  }

  /** `etcd_request_duration_seconds` (./EtcdMetrics.ts): the timing the store's operations report to. */
  storageTiming(nowSeconds: () => number): StorageTiming {
    return (this.etcd ??= new EtcdMetrics(this.registers, nowSeconds))
  }

  /**
   * A request arrived: counted in flight (short ones) or long-running (watches, logs; labelled only when
   * `instrumented`, as upstream's handlers count them) until `finished` — the series to `dec()` then.
   */
  started(info: RequestInfo | undefined, method: string, contentType: string | undefined, instrumented: boolean): Value | undefined {
    // long-running (`WithMaxInFlightLimit`'s `LongRunningFunc`): watches and the streaming subresources
    if (info !== undefined && isLongRunning(info)) {
      if (!instrumented) return undefined
      const series = this.longRunning.bind(this.labels(method, info!, contentType))
      series.inc()
      return series
    }
    const series = requestKind(info) === "readOnly" ? this.inflightReadOnly : this.inflightMutating
    series.inc()
    return series
  }

  /** A request was answered (or its client went away): `MonitorRequest` for resource requests and health paths. */
  finished(r: ObservedRequest): void {
    const info = r.info
    if (info === undefined || !r.instrumented) return
    const s = this.seriesOf(r.method, info, r.contentType, r.query, r.code)
    s.requests.value++
    s.duration.observe(r.seconds)
    // No webhooks here; the SLI leaves out the wait in API Priority and Fairness's queues (./PriorityAndFairnessFilter.ts).
    const sli = r.seconds - (r.waitedSeconds ?? 0)
    s.sli.observe(sli)
    s.slo.observe(sli)
    s.responseSizes?.observe(r.responseBytes)
    if (s.terminations !== undefined) s.terminations.value++
  }

  /**
   * The series a request of this shape updates, bound on its first request. Found by comparing label values with
   * the shapes seen of its resource: a string key joined from them cost ~10 times more (bench/metricsOverhead.ts).
   */
  private seriesOf(method: string, info: RequestInfo, contentType: string | undefined, query: string, code: number): RequestSeries {
    const dryRun = query.includes("dryRun") ? cleanDryRun(query) : ""
    const resourceRequest = info.isResourceRequest
    const verb = cleanVerb(resourceRequest ? canonicalVerb(method, info, contentType) : method.toUpperCase())
    const group = resourceRequest ? info.apiGroup : ""
    const version = resourceRequest ? info.apiVersion : ""
    const resource = resourceRequest ? info.resource : ""
    const subresource = resourceRequest ? info.subresource : info.path
    const scope = resourceRequest ? cleanScope(info) : ""
    let shapes = this.byResource.get(resource)
    if (shapes === undefined) this.byResource.set(resource, (shapes = []))
    for (let i = 0; i < shapes.length; i++) {
      const s = shapes[i]!
      if (s.code === code && s.verb === verb && s.subresource === subresource && s.scope === scope && s.version === version && s.group === group && s.dryRun === dryRun) return s
    }
    const c = String(code)
    const labels = resourceRequest
      ? this.labels(method, info, contentType, dryRun, c)
      : { verb, dry_run: dryRun, group: "", version: "", resource: "", subresource, scope: "", component: "", code: c }
    // One object with every label: each family reads its own names (./MetricSeries.ts).
    const s: RequestSeries = {
      verb,
      dryRun,
      group,
      version,
      subresource,
      scope,
      code,
      requests: this.requests.bind(labels),
      duration: this.durations.bind(labels),
      sli: this.sli.bind(labels),
      slo: this.slo.bind(labels),
      responseSizes: verb === "GET" || verb === "LIST" ? this.responseSizes.bind(labels) : undefined,
      terminations: code === 504 ? this.terminations.bind(labels) : undefined
    }
    shapes.push(s)
    return s
  }

  /** One watch event written to a client (`watch.go`: counted and sized per event). */
  watchEventSent(resource: { readonly group: string; readonly version: string; readonly kind: string }, bytes: number): void {
    let s = this.byWatchedResource.get(resource)
    if (s === undefined) {
      const labels = { group: resource.group, version: resource.version, kind: resource.kind }
      this.byWatchedResource.set(resource, (s = { events: this.watchEvents.bind(labels), sizes: this.watchEventSizes.bind(labels) }))
    }
    s.events.value++
    s.sizes.observe(bytes)
  }

  /** The exposition and its Content-Type: OpenMetrics 1.0 when asked (http/ServeMetrics.ts negotiates), else the text format 0.0.4. */
  async exposition(openMetrics: boolean): Promise<{ readonly contentType: string; readonly body: string }> {
    if (!openMetrics) return { contentType: this.registry.contentType, body: await this.registry.metrics() }
    const body = await this.openMetricsRegistry.metrics()
    // prom-client writes OpenMetrics by cutting `_total` off each counter's own name (the metric objects both
    // registries share); put it back before the next text scrape. Nothing runs in between: the collection is synchronous.
    for (const metric of this.openMetricsRegistry.getMetricsAsArray() as unknown as ReadonlyArray<{ name: string; type?: string }>)
      if (metric.type === "counter" && !metric.name.endsWith("_total")) metric.name = `${metric.name}_total`
    return { contentType: this.openMetricsRegistry.contentType, body }
  }

  private labels(method: string, info: RequestInfo, contentType: string | undefined, dryRun = "", code = "") {
    return {
      verb: cleanVerb(canonicalVerb(method, info, contentType)),
      dry_run: dryRun,
      group: info.apiGroup,
      version: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      scope: cleanScope(info),
      component: "apiserver",
      code
    }
  }
}

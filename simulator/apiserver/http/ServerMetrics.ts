/**
 * The HTTP server's Prometheus metrics (`GET /metrics`, docs/metrics.md) in kube-apiserver 1.26's names, labels and
 * buckets (`apiserver/pkg/endpoints/metrics/metrics.go`, `endpoints/handlers/watch.go`,
 * `storage/etcd3/metrics`): what each request's answer was and how long it took, in-flight and long-running
 * requests, watch events, watchers and stored objects — plus Node's process metrics. Exposed with prom-client
 * (the well-kept Prometheus client for Node) in the text format 0.0.4, or OpenMetrics when the scraper asks for it.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, type OpenMetricsContentType, Registry } from "prom-client"
import { resourceTypes } from "../../../src/api/Resources.js"
import type { RequestInfo } from "../RequestInfo.js"
import type { ServerState } from "../ServerState.js"
import { canonicalVerb } from "./RequestLog.js"

/** `apiserver_request_duration_seconds` (metrics.go). */
const durationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60]
/** `apiserver_request_sli_duration_seconds` and its deprecated `_slo_` twin. */
const sliBuckets = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60]
const exponential = (start: number, factor: number, count: number) => Array.from({ length: count }, (_, i) => start * factor ** i)

const requestLabels = ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const

/** One answered request as the metrics see it. */
export interface ObservedRequest {
  readonly method: string
  readonly info: RequestInfo | undefined
  readonly contentType: string | undefined
  readonly query: string
  readonly code: number
  readonly seconds: number
  readonly responseBytes: number
}

/** Upstream's `CleanScope` (1.26): a named object or a create is `resource`, then `namespace`, then `cluster`. */
export const cleanScope = (info: RequestInfo): string => {
  if (info.name !== "" || info.verb === "create") return "resource"
  if (info.namespace !== "") return "namespace"
  return info.isResourceRequest ? "cluster" : ""
}

/** Upstream's `cleanDryRun`: the `dryRun` values, sorted and joined by `,`. */
const cleanDryRun = (query: string): string => new URLSearchParams(query).getAll("dryRun").sort().join(",")

/** Paths upstream instruments outside the resource handlers (`healthz.go` `InstallPathHandler`). */
const instrumentedPaths = new Set(["/healthz", "/livez", "/readyz"])

/** Long-running requests (`WithMaxInFlightLimit`'s `LongRunningFunc`): watches and the streaming subresources. */
const isLongRunning = (info: RequestInfo | undefined): boolean =>
  info !== undefined && info.isResourceRequest && (info.verb === "watch" || ["log", "exec", "attach", "portforward", "proxy"].includes(info.subresource))

const requestKind = (info: RequestInfo | undefined): "readOnly" | "mutating" =>
  info !== undefined && ["get", "list", "watch"].includes(info.verb) ? "readOnly" : "mutating"

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
  private readonly requests = new Counter({
    name: "apiserver_request_total",
    help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
    labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"],
    registers: [...this.registers]
  })
  private readonly durations = new Histogram({
    name: "apiserver_request_duration_seconds",
    help: "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
    labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"],
    buckets: durationBuckets,
    registers: [...this.registers]
  })
  private readonly sli = new Histogram({
    name: "apiserver_request_sli_duration_seconds",
    help: "Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.",
    labelNames: requestLabels,
    buckets: sliBuckets,
    registers: [...this.registers]
  })
  private readonly slo = new Histogram({
    name: "apiserver_request_slo_duration_seconds",
    help: "(Deprecated since 1.27.0) Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.",
    labelNames: requestLabels,
    buckets: sliBuckets,
    registers: [...this.registers]
  })
  private readonly responseSizes = new Histogram({
    name: "apiserver_response_sizes",
    help: "Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.",
    labelNames: requestLabels,
    buckets: exponential(1000, 10, 8),
    registers: [...this.registers]
  })
  private readonly terminations = new Counter({
    name: "apiserver_request_terminations_total",
    help: "Number of requests which apiserver terminated in self-defense.",
    labelNames: [...requestLabels, "code"],
    registers: [...this.registers]
  })
  private readonly inflight = new Gauge({
    name: "apiserver_current_inflight_requests",
    help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
    labelNames: ["request_kind"],
    registers: [...this.registers]
  })
  private readonly longRunning = new Gauge({
    name: "apiserver_longrunning_requests",
    help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
    labelNames: requestLabels,
    registers: [...this.registers]
  })
  private readonly watchEvents = new Counter({
    name: "apiserver_watch_events_total",
    help: "Number of events sent in watch clients",
    labelNames: ["group", "version", "kind"],
    registers: [...this.registers]
  })
  private readonly watchEventSizes = new Histogram({
    name: "apiserver_watch_events_sizes",
    help: "Watch event size distribution in bytes",
    labelNames: ["group", "version", "kind"],
    buckets: exponential(1024, 2, 8),
    registers: [...this.registers]
  })

  constructor(state: ServerState) {
    const registers = this.registers
    for (const kind of ["readOnly", "mutating"]) this.inflight.set({ request_kind: kind }, 0)
    new Gauge({
      name: "apiserver_registered_watchers",
      help: "Number of currently registered watchers for a given resources",
      labelNames: ["group", "version", "kind"],
      registers: [...registers],
      collect() {
        this.reset()
        for (const [resource, count] of state.hub.countsByResource()) this.set({ group: resource.group, version: resource.version, kind: resource.kind }, count)
      }
    })
    new Gauge({
      name: "apiserver_storage_objects",
      help: "Number of stored objects at the time of last check split by kind.",
      labelNames: ["resource"],
      registers: [...registers],
      collect() {
        for (const r of resourceTypes) if (!r.virtual) this.set({ resource: r.group ? `${r.plural}.${r.group}` : r.plural }, state.store.count(r))
      }
    })
    for (const registry of [this.registry, this.openMetricsRegistry]) {
      collectDefaultMetrics({ register: registry })
      // Gauges named like counters, which `promtool check metrics` rejects; the process metrics stay.
      for (const name of ["nodejs_active_handles_total", "nodejs_active_requests_total", "nodejs_active_resources_total"]) registry.removeSingleMetric(name)
    }
  }

  /** A request arrived: counted in flight (short ones) or long-running (watches, logs) until `finished`. */
  started(info: RequestInfo | undefined, method: string, contentType: string | undefined): () => void {
    if (isLongRunning(info)) {
      const labels = this.labels(method, info!, contentType)
      this.longRunning.inc(labels)
      return () => this.longRunning.dec(labels)
    }
    const kind = requestKind(info)
    this.inflight.inc({ request_kind: kind })
    return () => this.inflight.dec({ request_kind: kind })
  }

  /** A request was answered (or its client went away): `MonitorRequest` for resource requests and health paths. */
  finished(r: ObservedRequest): void {
    const info = r.info
    if (info === undefined || (!info.isResourceRequest && !instrumentedPaths.has(info.path))) return
    const labels = info.isResourceRequest
      ? this.labels(r.method, info, r.contentType)
      : { verb: r.method.toUpperCase(), group: "", version: "", resource: "", subresource: info.path, scope: "", component: "" }
    const code = String(r.code)
    const dryRun = cleanDryRun(r.query)
    this.requests.inc({ ...labels, dry_run: dryRun, code })
    this.durations.observe({ ...labels, dry_run: dryRun }, r.seconds)
    // No webhooks here, and the real-time server does not queue (APF is modelled in virtual time): SLI = duration.
    this.sli.observe(labels, r.seconds)
    this.slo.observe(labels, r.seconds)
    if (labels.verb === "GET" || labels.verb === "LIST") this.responseSizes.observe(labels, r.responseBytes)
    if (r.code === 504) this.terminations.inc({ ...labels, code })
  }

  /** One watch event written to a client (`watch.go`: counted and sized per event). */
  watchEventSent(resource: { readonly group: string; readonly version: string; readonly kind: string }, bytes: number): void {
    const labels = { group: resource.group, version: resource.version, kind: resource.kind }
    this.watchEvents.inc(labels)
    this.watchEventSizes.observe(labels, bytes)
  }

  /** The exposition and its Content-Type: OpenMetrics when `accept` asks for it, else the text format 0.0.4. */
  async exposition(accept: string | undefined): Promise<{ readonly contentType: string; readonly body: string }> {
    const openMetrics = (accept ?? "").includes("application/openmetrics-text")
    if (!openMetrics) return { contentType: this.registry.contentType, body: await this.registry.metrics() }
    const body = await this.openMetricsRegistry.metrics()
    // prom-client writes OpenMetrics by cutting `_total` off each counter's own name (the metric objects both
    // registries share); put it back before the next text scrape. Nothing runs in between: the collection is synchronous.
    for (const metric of this.openMetricsRegistry.getMetricsAsArray() as unknown as ReadonlyArray<{ name: string; type?: string }>)
      if (metric.type === "counter" && !metric.name.endsWith("_total")) metric.name = `${metric.name}_total`
    return { contentType: this.openMetricsRegistry.contentType, body }
  }

  private labels(method: string, info: RequestInfo, contentType: string | undefined) {
    return {
      verb: canonicalVerb(method, info, contentType),
      group: info.apiGroup,
      version: info.apiVersion,
      resource: info.resource,
      subresource: info.subresource,
      scope: cleanScope(info),
      component: "apiserver"
    }
  }
}

/**
 * kube-apiserver 1.26's metric definitions — names, help, label names, buckets — in one place for both expositions:
 * `clustersim serve`'s `/metrics` (`http/ServerMetrics.ts`) and the modelled server of a virtual-time run
 * (`ModelledRequestMetrics.ts`, `run --metrics-out`, docs/metrics.md). Upstream: `endpoints/metrics/metrics.go`,
 * `endpoints/handlers/watch.go`, `storage/etcd3/metrics`, `filters/maxinflight.go`, `filters/timeout.go`,
 * `util/flowcontrol/metrics/metrics.go`.
 */

/** `apiserver_request_duration_seconds` (metrics.go). */
export const durationBuckets = [0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60]
/** `apiserver_request_sli_duration_seconds` and its deprecated `_slo_` twin. */
export const sliBuckets = [0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2, 3, 4, 5, 6, 8, 10, 15, 20, 30, 45, 60]
/** Prometheus' `ExponentialBuckets(start, factor, count)`. */
export const exponential = (start: number, factor: number, count: number) => Array.from({ length: count }, (_, i) => start * factor ** i)

export const requestLabels = ["verb", "group", "version", "resource", "subresource", "scope", "component"] as const

export const requestTotal = {
  name: "apiserver_request_total",
  help: "Counter of apiserver requests broken out for each verb, dry run value, group, version, resource, scope, component, and HTTP response code.",
  labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component", "code"]
} as const

export const requestDuration = {
  name: "apiserver_request_duration_seconds",
  help: "Response latency distribution in seconds for each verb, dry run value, group, version, resource, subresource, scope and component.",
  labelNames: ["verb", "dry_run", "group", "version", "resource", "subresource", "scope", "component"],
  buckets: durationBuckets
} as const

export const requestSliDuration = {
  name: "apiserver_request_sli_duration_seconds",
  help: "Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.",
  labelNames: requestLabels,
  buckets: sliBuckets
} as const

export const requestSloDuration = {
  name: "apiserver_request_slo_duration_seconds",
  help: "(Deprecated since 1.27.0) Response latency distribution (not counting webhook duration and priority & fairness queue wait times) in seconds for each verb, group, version, resource, subresource, scope and component.",
  labelNames: requestLabels,
  buckets: sliBuckets
} as const

export const responseSizes = {
  name: "apiserver_response_sizes",
  help: "Response size distribution in bytes for each group, version, verb, resource, subresource, scope and component.",
  labelNames: requestLabels,
  buckets: exponential(1000, 10, 8)
} as const

export const requestTerminations = {
  name: "apiserver_request_terminations_total",
  help: "Number of requests which apiserver terminated in self-defense.",
  labelNames: [...requestLabels, "code"]
} as const

export const currentInflightRequests = {
  name: "apiserver_current_inflight_requests",
  help: "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
  labelNames: ["request_kind"]
} as const

export const longRunningRequests = {
  name: "apiserver_longrunning_requests",
  help: "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource, scope and component. Not all requests are tracked this way.",
  labelNames: requestLabels
} as const

export const watchEventsTotal = {
  name: "apiserver_watch_events_total",
  help: "Number of events sent in watch clients",
  labelNames: ["group", "version", "kind"]
} as const

export const watchEventsSizes = {
  name: "apiserver_watch_events_sizes",
  help: "Watch event size distribution in bytes",
  labelNames: ["group", "version", "kind"],
  buckets: exponential(1024, 2, 8)
} as const

export const registeredWatchers = {
  name: "apiserver_registered_watchers",
  help: "Number of currently registered watchers for a given resources",
  labelNames: ["group", "version", "kind"]
} as const

export const storageObjects = {
  name: "apiserver_storage_objects",
  help: "Number of stored objects at the time of last check split by kind.",
  labelNames: ["resource"]
} as const

/** `apiserver_storage_objects`' label: `pods`, `deployments.apps` (the group resource). */
export const storageResourceLabel = (r: { readonly plural: string; readonly group: string }): string => (r.group ? `${r.plural}.${r.group}` : r.plural)

/** `requestDurationSecondsBuckets` of 1.26's flowcontrol metrics (`util/flowcontrol/metrics/metrics.go`). */
export const flowcontrolBuckets = [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30]

export const flowcontrolRejectedRequests = {
  name: "apiserver_flowcontrol_rejected_requests_total",
  help: "Number of requests rejected by API Priority and Fairness subsystem",
  labelNames: ["priority_level", "flow_schema", "reason"]
} as const

export const flowcontrolDispatchedRequests = {
  name: "apiserver_flowcontrol_dispatched_requests_total",
  help: "Number of requests executed by API Priority and Fairness subsystem",
  labelNames: ["priority_level", "flow_schema"]
} as const

export const flowcontrolCurrentInqueueRequests = {
  name: "apiserver_flowcontrol_current_inqueue_requests",
  help: "Number of requests currently pending in queues of the API Priority and Fairness subsystem",
  labelNames: ["priority_level", "flow_schema"]
} as const

export const flowcontrolCurrentExecutingRequests = {
  name: "apiserver_flowcontrol_current_executing_requests",
  help: "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem",
  labelNames: ["priority_level", "flow_schema"]
} as const

export const flowcontrolRequestWaitDuration = {
  name: "apiserver_flowcontrol_request_wait_duration_seconds",
  help: "Length of time a request spent waiting in its queue",
  labelNames: ["priority_level", "flow_schema", "execute"],
  buckets: flowcontrolBuckets
} as const

export const flowcontrolRequestExecution = {
  name: "apiserver_flowcontrol_request_execution_seconds",
  help: "Duration of initial stage (for a WATCH) or any (for a non-WATCH) stage of request execution in the API Priority and Fairness subsystem",
  labelNames: ["priority_level", "flow_schema", "type"],
  buckets: flowcontrolBuckets
} as const

export const flowcontrolRequestConcurrencyLimit = {
  name: "apiserver_flowcontrol_request_concurrency_limit",
  help: "Shared concurrency limit in the API Priority and Fairness subsystem",
  labelNames: ["priority_level"]
} as const

export const flowcontrolNominalLimitSeats = {
  name: "apiserver_flowcontrol_nominal_limit_seats",
  help: "Nominal number of execution seats configured for each priority level",
  labelNames: ["priority_level"]
} as const

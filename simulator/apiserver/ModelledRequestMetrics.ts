/**
 * The modelled API server's request metrics in virtual time (`run --metrics-out`, docs/metrics.md): kube-apiserver's
 * `apiserver_request_total`, `apiserver_request_duration_seconds`, `apiserver_request_sli_duration_seconds` (and the
 * `_slo_` twin) and `apiserver_storage_objects`, with serve's definitions (`MetricDefinitions.ts`), fed by the
 * service-time model (`ServiceTime.ts` `ServedRequestObserver`): what the model answered and when, not how long the
 * in-process server took on the host.
 */
import { Counter, Gauge, Histogram, type Registry } from "prom-client"
import { resourceTypes, type ResourceType } from "../../src/api/Resources.js"
import * as Def from "./MetricDefinitions.js"
import type { ModelRequest } from "./ModelRequests.js"
import type { ServedRequestObserver } from "./ServiceTime.js"

/** A request's label values, the code aside (`apiserver_request_total` adds it). */
type RequestLabels = Readonly<Record<"verb" | "dry_run" | "group" | "version" | "resource" | "subresource" | "scope" | "component", string>>

/** The verb label as upstream reports it (`CleanVerb`): the HTTP method, LIST and WATCH for collection reads. */
const reportedVerb: Readonly<Record<string, string>> = {
  get: "GET",
  list: "LIST",
  watch: "WATCH",
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  deletecollection: "DELETE"
}

/** Resource types by plural; the core group first where two groups share one (`events`). */
const byPlural = new Map<string, ResourceType>()
for (const r of resourceTypes) if (!byPlural.has(r.plural) || r.group === "") byPlural.set(r.plural, r)

/**
 * The labels of a modelled request. Scope as upstream's `CleanScope`: a verb on one object (get, update, patch,
 * delete) or a create is `resource`; a collection verb is `namespace` with a namespace, else `cluster`.
 */
export const requestLabelsOf = (request: ModelRequest): RequestLabels => {
  const [plural = "", subresource = ""] = request.resource.split("/")
  const type = byPlural.get(plural)
  const collection = request.verb === "list" || request.verb === "watch" || request.verb === "deletecollection"
  return {
    verb: reportedVerb[request.verb] ?? request.verb.toUpperCase(),
    dry_run: "",
    group: type?.group ?? "",
    version: type?.version ?? "",
    resource: plural,
    subresource,
    scope: !collection ? "resource" : request.namespace ? "namespace" : "cluster",
    component: "apiserver"
  }
}

/** One request shape's label sets: with `dry_run` (total, duration), without (SLI), and per code (total). */
interface Shape {
  readonly labels: RequestLabels
  readonly sli: Omit<RequestLabels, "dry_run">
  readonly byCode: Map<number, Readonly<Record<string, string>>>
}

const shapeOf = (request: ModelRequest): Shape => {
  const labels = requestLabelsOf(request)
  const { dry_run: _dryRun, ...sli } = labels
  return { labels, sli, byCode: new Map() }
}

export class ModelledRequestMetrics implements ServedRequestObserver {
  private readonly requests: Counter<string>
  private readonly durations: Histogram<string>
  private readonly sli: Histogram<string>
  private readonly slo: Histogram<string>
  /** Labels made once per request shape (the node agents send the same few shapes millions of times). */
  private readonly shapes = new WeakMap<ModelRequest, Shape>()

  /** `storedCount`: objects of a type stored now (the simulated server's store), read at each scrape. */
  constructor(registers: ReadonlyArray<Registry>, storedCount: (r: ResourceType) => number) {
    this.requests = new Counter({ ...Def.requestTotal, registers: [...registers] })
    this.durations = new Histogram({ ...Def.requestDuration, registers: [...registers] })
    this.sli = new Histogram({ ...Def.requestSliDuration, registers: [...registers] })
    this.slo = new Histogram({ ...Def.requestSloDuration, registers: [...registers] })
    new Gauge({
      ...Def.storageObjects,
      registers: [...registers],
      collect() {
        for (const r of resourceTypes) if (!r.virtual) this.set({ resource: Def.storageResourceLabel(r) }, storedCount(r))
      }
    })
  }

  served(request: ModelRequest, code: number, arrival: number, start: number, end: number): void {
    let shape = this.shapes.get(request)
    if (shape === undefined) this.shapes.set(request, (shape = shapeOf(request)))
    let counted = shape.byCode.get(code)
    if (counted === undefined) shape.byCode.set(code, (counted = { ...shape.labels, code: String(code) }))
    this.requests.inc(counted)
    this.durations.observe(shape.labels, (end - arrival) / 1000)
    // the SLI leaves out the wait in API Priority and Fairness' queues (`apiserver_request_sli_duration_seconds`)
    this.sli.observe(shape.sli, (end - start) / 1000)
    this.slo.observe(shape.sli, (end - start) / 1000)
  }
}

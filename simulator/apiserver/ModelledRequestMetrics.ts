/**
 * The modelled API server's request metrics in virtual time (`run --metrics-out`, docs/metrics.md): kube-apiserver's
 * `apiserver_request_total`, `apiserver_request_duration_seconds`, `apiserver_request_sli_duration_seconds` (and the
 * `_slo_` twin) and `apiserver_storage_objects`, with serve's definitions (`MetricDefinitions.ts`), fed by the
 * service-time model (`ServiceTime.ts` `ServedRequestObserver`): what the model answered and when, not how long the
 * in-process server took on the host.
 */
import type { Registry } from "prom-client"
import { promClient } from "../../src/loadgen/PromClient.js"
import { resourceTypes, type ResourceType } from "../../src/api/Resources.js"
import { BoundHistogram, type HistogramCell } from "../../src/loadgen/BoundHistogram.js"
import * as Def from "./MetricDefinitions.js"
import type { ModelRequest } from "./ModelRequests.js"
import type { ServedRequestObserver } from "./ServiceTimeModel.js"

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

/** One request shape's cells: its duration's, its SLI's (the SLO twin's too), its count per code. */
interface Shape {
  readonly labels: RequestLabels
  readonly duration: HistogramCell
  readonly sli: HistogramCell
  readonly byCode: Map<number, Counted>
}

/** A count not yet handed to prom-client's counter (at the next scrape). */
interface Counted {
  readonly labels: Readonly<Record<string, string>>
  pending: number
}

export class ModelledRequestMetrics implements ServedRequestObserver {
  private readonly durations: BoundHistogram
  private readonly sli: BoundHistogram
  /** Every (shape, code) counted, in the order first seen. */
  private readonly counted: Array<Counted> = []
  /**
   * The shapes by what their labels are made of: verb, then resource (with subresource), then whether a namespace is
   * given (index 0) or not (1). A few small maps of short strings: the node agents' ~50,000 request objects in a
   * WeakMap cost a hash probe that missed the cache on every request (docs/benchmarks.md "Metrics overhead").
   */
  private readonly byRequest = new Map<string, Map<string, Array<Shape | undefined>>>()
  /** The shapes by their label values: every node's lease update is one series, not one per node. */
  private readonly byLabels = new Map<string, Shape>()

  /** `storedCount`: objects of a type stored now (the simulated server's store), read at each scrape. */
  constructor(registers: ReadonlyArray<Registry>, storedCount: (r: ResourceType) => number) {
    const { Counter, Gauge } = promClient()
    const counted = this.counted
    // the counts of each request are kept in the shapes (no label hashing per request) and handed over at a scrape
    new Counter({
      ...Def.requestTotal,
      registers: [...registers],
      collect() {
        for (const c of counted) {
          if (c.pending === 0) continue
          this.inc(c.labels, c.pending)
          c.pending = 0
        }
      }
    })
    this.durations = new BoundHistogram({ ...Def.requestDuration, registers })
    this.sli = new BoundHistogram({ ...Def.requestSliDuration, registers })
    // the deprecated SLO histogram is observed with the SLI's value for the same labels (upstream's metrics.go)
    this.sli.twin({ ...Def.requestSloDuration, registers })
    new Gauge({
      ...Def.storageObjects,
      registers: [...registers],
      collect() {
        for (const r of resourceTypes) if (!r.virtual) this.set({ resource: Def.storageResourceLabel(r) }, storedCount(r))
      }
    })
  }

  served(request: ModelRequest, code: number, arrival: number, start: number, end: number): void {
    let byResource = this.byRequest.get(request.verb)
    if (byResource === undefined) this.byRequest.set(request.verb, (byResource = new Map()))
    let scopes = byResource.get(request.resource)
    if (scopes === undefined) byResource.set(request.resource, (scopes = [undefined, undefined]))
    const scope = request.namespace ? 0 : 1
    const shape = (scopes[scope] ??= this.shapeOf(requestLabelsOf(request)))
    let counted = shape.byCode.get(code)
    if (counted === undefined) {
      shape.byCode.set(code, (counted = { labels: { ...shape.labels, code: String(code) }, pending: 0 }))
      this.counted.push(counted)
    }
    counted.pending++
    this.durations.observe(shape.duration, (end - arrival) / 1000)
    // the SLI leaves out the wait in API Priority and Fairness' queues (`apiserver_request_sli_duration_seconds`)
    this.sli.observe(shape.sli, (end - start) / 1000)
  }

  private shapeOf(labels: RequestLabels): Shape {
    const key = Object.values(labels).join("\u0000")
    const known = this.byLabels.get(key)
    if (known !== undefined) return known
    const { dry_run: _dryRun, ...sli } = labels
    const shape = { labels, duration: this.durations.cell(labels), sli: this.sli.cell(sli), byCode: new Map() }
    this.byLabels.set(key, shape)
    return shape
  }
}

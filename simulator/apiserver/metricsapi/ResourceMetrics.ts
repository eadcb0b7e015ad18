/**
 * The resource metrics API `metrics.k8s.io/v1beta1` as metrics-server serves it (`k8s.io/metrics/pkg/apis/metrics/v1beta1`
 * types; metrics-server `pkg/api/node.go`, `pod.go`): NodeMetrics and PodMetrics, read-only (get, list), what
 * `kubectl top` asks for. Figures come from ./SimulatedUsage.ts for the live cluster's nodes (docs/metrics.md
 * "kubectl top"); without a live cluster the lists are empty, as a metrics-server with no kubelets to scrape. Pure:
 * the objects in, the documents out.
 */
import { makeQuantity } from "../../../src/api/go/Quantity.js"
import type { KObject } from "../../../src/api/Object.js"
import * as Status from "../../../src/api/Status.js"
import { containersOf, containerUsage, nodeUsage, type Usage } from "./SimulatedUsage.js"

export const metricsGroup = "metrics.k8s.io"
export const metricsVersion = "v1beta1"
export const metricsGroupVersion = `${metricsGroup}/${metricsVersion}`

/** metrics-server's `--metric-resolution` default: the figures are refreshed, and stamped, every 15 s. */
export const resolutionMs = 15_000
const window = "15s"

/** The group's resources as its APIResourceList lists them (metrics-server's `APIService` discovery). */
export const metricsResources = [
  { name: "nodes", singularName: "", namespaced: false, kind: "NodeMetrics", verbs: ["get", "list"] },
  { name: "pods", singularName: "", namespaced: true, kind: "PodMetrics", verbs: ["get", "list"] }
] as const

export const metricsResourceList = () => ({ kind: "APIResourceList", apiVersion: "v1", groupVersion: metricsGroupVersion, resources: metricsResources })

/** The group's entry in `/apis` and its `/apis/metrics.k8s.io` document. */
export const metricsApiGroup = () => {
  const version = { groupVersion: metricsGroupVersion, version: metricsVersion }
  return { name: metricsGroup, versions: [version], preferredVersion: version }
}

/** CPU in nanocores ("123456n", canonical as `resource.NewScaledQuantity(n, -9)` prints it), memory in bytes ("12345Ki"). */
export const usageQuantities = (u: Usage) => ({
  cpu: makeQuantity(u.nanocores, -9, "DecimalSI").toString(),
  memory: makeQuantity(u.bytes, 0, "BinarySI").toString()
})

/** The stamp of the figures at `now`: the last resolution boundary, in RFC 3339 seconds. */
export const stampOf = (now: number): string => new Date(Math.floor(now / resolutionMs) * resolutionMs).toISOString().replace(/\.\d{3}Z$/, "Z")
const createdAt = (now: number): string => new Date(Math.floor(now / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z")

const meta = (obj: KObject, now: number, namespaced: boolean) => ({
  name: obj.metadata.name,
  ...(namespaced ? { namespace: obj.metadata.namespace } : {}),
  // metrics-server stamps each object when it is served (`metav1.NewTime(time.Now())`)
  creationTimestamp: createdAt(now),
  ...(obj.metadata.labels !== undefined ? { labels: obj.metadata.labels } : {})
})

/** The figures are taken at the stamp, so two reads within one resolution agree. */
const sampleTime = (now: number) => Math.floor(now / resolutionMs) * resolutionMs

export const nodeMetrics = (node: KObject, pods: ReadonlyArray<KObject>, now: number) => ({
  metadata: meta(node, now, false),
  timestamp: stampOf(now),
  window,
  usage: usageQuantities(nodeUsage(node, pods, sampleTime(now)))
})

export const podMetrics = (pod: KObject, now: number) => ({
  metadata: meta(pod, now, true),
  timestamp: stampOf(now),
  window,
  containers: containersOf(pod).map((c) => ({ name: c.name, usage: usageQuantities(containerUsage(pod, c, sampleTime(now))) }))
})

const typeMeta = (kind: string) => ({ kind, apiVersion: metricsGroupVersion })

export const single = <A extends object>(kind: "NodeMetrics" | "PodMetrics", item: A) => ({ ...typeMeta(kind), ...item })
export const list = <A>(kind: "NodeMetricsList" | "PodMetricsList", items: ReadonlyArray<A>) => ({ ...typeMeta(kind), metadata: {}, items })

/** metrics-server's NotFound: `nodemetrics.metrics.k8s.io "NAME"`, `podmetrics.metrics.k8s.io "NAMESPACE/NAME"`. */
export const nodeNotFound = (name: string) => Status.notFound({ group: metricsGroup, plural: "nodemetrics" }, name)
export const podNotFound = (namespace: string, name: string) => Status.notFound({ group: metricsGroup, plural: "podmetrics" }, `${namespace}/${name}`)

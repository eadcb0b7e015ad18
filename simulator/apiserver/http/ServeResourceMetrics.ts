/**
 * Answers `metrics.k8s.io/v1beta1` requests (../metricsapi/ResourceMetrics.ts): NodeMetrics and PodMetrics, listed
 * (all namespaces or one, with a label selector) or got by name, as metrics-server answers them. Authorization has
 * already run on the request's RequestInfo like any resource request. Only the live cluster's nodes have kubelets
 * to measure (`live`); without one every list is empty and every get NotFound.
 */
import { Clock, Effect } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Nodes, Pods } from "../../../src/api/Resources.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import { simulatedLabel, simulatedLabelValue } from "../../../src/api/WellKnown.js"
import type { ApiServerImpl } from "../ApiServer.js"
import { list, nodeMetrics, nodeNotFound, podMetrics, podNotFound, single } from "../metricsapi/ResourceMetrics.js"
import { isReady, isRunning } from "../metricsapi/SimulatedUsage.js"
import type { Responder } from "./Responder.js"

export interface ResourceMetricsRequest {
  readonly method: string
  readonly resource: string
  readonly namespace: string | undefined
  readonly name: string | undefined
  readonly labelSelector: string | undefined
  /** A live cluster runs in this process: its nodes are measured. */
  readonly live: boolean
}

/** The nodes a kubelet of the live cluster answers for: the simulated ones, Ready. */
const measuredNodes = (api: ApiServerImpl, labelSelector: string | undefined, live: boolean) =>
  live
    ? Effect.map(api.list(Nodes, { labelSelector: labelSelector ? `${labelSelector},${simulatedLabel}=${simulatedLabelValue}` : `${simulatedLabel}=${simulatedLabelValue}` }), (l) =>
        l.items.filter(isReady)
      )
    : Effect.succeed([] as ReadonlyArray<KObject>)

/** Running pods by node name, of the measured nodes only. */
const runningPods = (api: ApiServerImpl, namespace: string | undefined, labelSelector: string | undefined, nodes: ReadonlyArray<KObject>) =>
  Effect.map(api.list(Pods, { namespace, labelSelector }), (l) => {
    const names = new Set(nodes.map((n) => n.metadata.name))
    return l.items.filter((p) => isRunning(p) && names.has((p.spec as { nodeName: string }).nodeName))
  })

const byNode = (pods: ReadonlyArray<KObject>): Map<string, Array<KObject>> => {
  const out = new Map<string, Array<KObject>>()
  for (const p of pods) {
    const node = (p.spec as { nodeName: string }).nodeName
    const on = out.get(node)
    if (on) on.push(p)
    else out.set(node, [p])
  }
  return out
}

export const serveResourceMetrics = (api: ApiServerImpl, r: ResourceMetricsRequest, out: Responder): Effect.Effect<void, ApiError> =>
  Effect.gen(function* () {
    // metrics-server registers get and list only (no watch: kubectl top never asks for one)
    if (r.method !== "GET") return yield* Effect.fail(Status.methodNotAllowed())
    const now = yield* Clock.currentTimeMillis
    if (r.resource === "nodes") {
      if (r.name !== undefined) {
        const nodes = (yield* measuredNodes(api, undefined, r.live)).filter((n) => n.metadata.name === r.name)
        if (nodes.length === 0) return yield* Effect.fail(nodeNotFound(r.name))
        const pods = yield* runningPods(api, undefined, undefined, nodes)
        return out.json(200, single("NodeMetrics", nodeMetrics(nodes[0]!, pods, now)))
      }
      const nodes = yield* measuredNodes(api, r.labelSelector, r.live)
      const pods = byNode(nodes.length === 0 ? [] : yield* runningPods(api, undefined, undefined, nodes))
      return out.json(200, list("NodeMetricsList", nodes.map((n) => nodeMetrics(n, pods.get(n.metadata.name ?? "") ?? [], now))))
    }
    const nodes = yield* measuredNodes(api, undefined, r.live)
    if (r.name !== undefined) {
      const namespace = r.namespace ?? ""
      const pod = (yield* runningPods(api, namespace, undefined, nodes)).find((p) => p.metadata.name === r.name)
      if (pod === undefined) return yield* Effect.fail(podNotFound(namespace, r.name))
      return out.json(200, single("PodMetrics", podMetrics(pod, now)))
    }
    // a bad selector is refused by the pod list (400), as metrics-server's lister refuses it
    const pods = yield* runningPods(api, r.namespace, r.labelSelector, nodes)
    return out.json(200, list("PodMetricsList", pods.map((p) => podMetrics(p, now))))
  })

/**
 * The container events a kubelet records when it starts a pod's containers (upstream `pkg/kubelet/kuberuntime`
 * `kuberuntime_container.go` `startContainer`, `kuberuntime_image.go` `EnsureImageExists`): per container `Pulling`
 * (`Pulling image "x"`), `Pulled` (`Successfully pulled image "x" in 1.2s (1.2s including waiting)`, the time from
 * the pod's scheduling to its container's start), `Created` (`Created container x`), `Started` (`Started container
 * x`) — the same steps the pod's simulated log shows (simulator/apiserver/PodLog.ts) — reported by `kubelet` from
 * the pod's node (its reporting instance). A pod's events are recorded once, when a simulated node's agent has
 * written it Running.
 *
 * Choice: the node agents' real-time start-up path (simulator/nodeagent/PodStarter.ts) models no image pulls
 * (`cluster.images` is virtual time only) and records no events, so a live cluster (`clustersim serve --nodes`)
 * records these from the pods it sees turn Running — after the status write, not before it as a kubelet does.
 */
import { Effect, Queue, Scope } from "effect"
import { formatDuration } from "../../src/api/go/Duration.js"
import { isRecord, type KObject } from "../../src/api/Object.js"
import { Nodes, Pods } from "../../src/api/Resources.js"
import { simulatedLabel, simulatedLabelValue } from "../../src/api/WellKnown.js"
import type { ApiClient } from "../../src/client/ApiClient.js"
import { startInformer } from "../../src/informer/Informer.js"
import * as EventRecorder from "../events/EventRecorder.js"

const runningOnNode = (pod: KObject): string | undefined => {
  const status = isRecord(pod.status) ? pod.status : {}
  const node = isRecord(pod.spec) && typeof pod.spec.nodeName === "string" ? pod.spec.nodeName : undefined
  return status.phase === "Running" && node ? node : undefined
}

const timeOf = (text: unknown): number | undefined => (typeof text === "string" && !Number.isNaN(Date.parse(text)) ? Date.parse(text) : undefined)

/** The events of one pod's start, in the kubelet's order: `[reason, note]` per container. */
export const containerStartEvents = (pod: KObject): ReadonlyArray<readonly [string, string]> => {
  const containers = (isRecord(pod.spec) && Array.isArray(pod.spec.containers) ? pod.spec.containers : []) as ReadonlyArray<{ name?: string; image?: string }>
  const status = (isRecord(pod.status) ? pod.status : {}) as { conditions?: ReadonlyArray<{ type?: string; lastTransitionTime?: string }>; containerStatuses?: ReadonlyArray<{ name?: string; state?: { running?: { startedAt?: string } } }> }
  const scheduled = timeOf(status.conditions?.find((c) => c.type === "PodScheduled")?.lastTransitionTime)
  return containers.flatMap((c) => {
    const started = timeOf(status.containerStatuses?.find((s) => s.name === c.name)?.state?.running?.startedAt)
    const took = formatDuration(scheduled !== undefined && started !== undefined ? Math.max(0, started - scheduled) : 0)
    const image = JSON.stringify(c.image ?? "")
    return [
      ["Pulling", `Pulling image ${image}`] as const,
      ["Pulled", `Successfully pulled image ${image} in ${took} (${took} including waiting)`] as const,
      ["Created", `Created container ${c.name ?? ""}`] as const,
      ["Started", `Started container ${c.name ?? ""}`] as const
    ]
  })
}

/** Watches pods and the simulated nodes; records the start events of each pod a simulated node runs. */
export const recordContainerEvents: Effect.Effect<void, never, ApiClient | Scope.Scope> = Effect.gen(function* () {
  const recorders = new Map<string, EventRecorder.EventRecorderService>()
  const recorded = new Set<string>()
  const scope = yield* Effect.scope
  const nodes = yield* startInformer({ resource: Nodes, labelSelector: `${simulatedLabel}=${simulatedLabelValue}` })
  const pending = yield* Queue.unbounded<KObject>()
  const seen = (pod: KObject) => {
    const node = runningOnNode(pod)
    const uid = pod.metadata.uid
    if (node === undefined || uid === undefined || recorded.has(uid) || nodes.cache.get(undefined, node) === undefined) return
    recorded.add(uid)
    Queue.unsafeOffer(pending, pod)
  }
  const forget = (pod: KObject) => void recorded.delete(pod.metadata.uid ?? "")
  yield* nodes.synced
  yield* startInformer({ resource: Pods }, { onAdd: (p, _n, initial) => (initial ? void recorded.add(p.metadata.uid ?? "") : seen(p)), onUpdate: (_o, p) => seen(p), onDelete: forget })
  const recorderOf = (node: string) =>
    Effect.gen(function* () {
      const known = recorders.get(node)
      if (known) return known
      const made = yield* Scope.extend(EventRecorder.make({ reportingController: "kubelet", reportingInstance: node }), scope)
      recorders.set(node, made)
      return made
    })
  yield* Effect.forever(
    Effect.gen(function* () {
      const pod = yield* Queue.take(pending)
      {
        const recorder = yield* recorderOf(runningOnNode(pod)!)
        const ref = { kind: "Pod", apiVersion: "v1", name: pod.metadata.name ?? "", namespace: pod.metadata.namespace, uid: pod.metadata.uid }
        for (const [reason, note] of containerStartEvents(pod)) yield* recorder.eventf(ref, undefined, "Normal", reason, reason, note)
      }
    })
  )
})

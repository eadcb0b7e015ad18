/**
 * The node agent's image step for a pod, between admission and running it (upstream `syncPod` →
 * `startContainer` → `EnsureImageExists`): every container's image, then either the time the pod can run, or a
 * waiting state for its containers (`ErrImagePull`, `ImagePullBackOff`) and when the pod worker tries again —
 * upstream requeues a pod whose sync failed after `wait.Jitter(10s, 0.5)` (`pod_workers.go`), and each retry
 * either pulls or, inside the image back-off, only records `BackOff`.
 */
import type { KObject } from "../../../src/api/Object.js"
import type { SeededRandomService } from "../../kernel/SeededRandom.js"
import type { PodWaiting } from "../ShardContext.js"
import type { ImagePulls } from "./ImagePulls.js"
import type { WaitingReason } from "./ImageManager.js"

/** The pod worker's retry after a failed sync (upstream `backOffPeriod` and `workerBackOffPeriodJitterFactor`). */
export const podWorkerBackoff = { periodMs: 10_000, jitterFactor: 0.5 } as const


interface ContainerView {
  readonly name?: string
  readonly image?: string
}

const containersOf = (pod: KObject): ReadonlyArray<ContainerView> => ((pod.spec ?? {}) as { containers?: ReadonlyArray<ContainerView> }).containers ?? []

export const podKey = (pod: KObject): string => `${pod.metadata.namespace ?? "default"}/${pod.metadata.name}`

/** Runs the image step of `pod` on `node` at `t`: the time it may run, or how it waits. */
export const pullPodImages = (pulls: ImagePulls, random: SeededRandomService, pod: KObject, node: string, t: number): number | PodWaiting => {
  const images = containersOf(pod).flatMap((c) => (c.image === undefined || c.image === "" ? [] : [c.image]))
  const out = pulls.ensurePod(node, { key: podKey(pod), uid: pod.metadata.uid ?? podKey(pod), images }, t)
  if (out.kind === "ready") return out.at
  const retryAt = Math.ceil(out.at + podWorkerBackoff.periodMs * (1 + podWorkerBackoff.jitterFactor * random.next()))
  const { reason, message } = out
  return { at: out.at, retryAt, reason, status: (current, now) => waitingStatus(current, reason, message, now) }
}

/** The status a pod waiting for its images has (phase Pending, containers waiting with the reason). */
export const waitingStatus = (pod: KObject, reason: WaitingReason, message: string, now: string) => {
  const containers = containersOf(pod)
  const names = containers.map((c) => c.name ?? "")
  const notReady = (type: string) => ({
    type,
    status: "False",
    lastProbeTime: null,
    lastTransitionTime: now,
    reason: "ContainersNotReady",
    message: `containers with unready status: [${names.join(" ")}]`
  })
  const scheduled = (((pod.status ?? {}) as { conditions?: ReadonlyArray<{ type: string }> }).conditions ?? []).find((c) => c.type === "PodScheduled")
  return {
    status: {
      phase: "Pending",
      conditions: [{ type: "Initialized", status: "True", lastProbeTime: null, lastTransitionTime: now }, notReady("Ready"), notReady("ContainersReady"), ...(scheduled ? [scheduled] : [])],
      containerStatuses: containers.map((c) => ({
        name: c.name ?? "",
        image: c.image ?? "",
        imageID: "",
        ready: false,
        restartCount: 0,
        started: false,
        state: { waiting: { reason, message } }
      }))
    }
  }
}

/**
 * The ReplicaSet controller's decisions, pure (upstream `pkg/controller/replicaset/replica_set.go` and
 * `replica_set_utils.go`): how many pods to create or delete (`manageReplicas`, at most `burstReplicas` per sync,
 * creates in slow-start batches 1, 2, 4, …), which pods go first (`getPodsToDelete` with `ActivePodsWithRanks`),
 * the pod a template makes (`GetPodFromTemplate`), and the status (`calculateStatus`).
 */
import { isRecord, type KObject } from "../../../src/api/Object.js"
import { formatLabels } from "../../../src/api/table/printers/Labels.js"
import { controllerRef, isPodAvailable, isPodReady, podAssigned, podPhase, selectorMatches } from "../ControllerRef.js"

/** `BurstReplicas`: creates or deletes per sync. */
export const burstReplicas = 500

/** `SlowStartInitialBatchSize`. */
export const slowStartInitialBatchSize = 1

export const replicaSetApiVersion = "apps/v1"

export interface ReplicaSetView {
  readonly replicas: number
  readonly minReadySeconds: number
  readonly selector: unknown
  readonly template: { readonly metadata?: { readonly labels?: Record<string, string>; readonly annotations?: Record<string, string> }; readonly spec?: unknown }
}

/** The spec as the controller reads it; a missing `replicas` is 1 (upstream defaulting). */
export const replicaSetView = (rs: KObject): ReplicaSetView => {
  const spec = (isRecord(rs.spec) ? rs.spec : {}) as Record<string, unknown>
  return {
    replicas: typeof spec.replicas === "number" ? spec.replicas : 1,
    minReadySeconds: typeof spec.minReadySeconds === "number" ? spec.minReadySeconds : 0,
    selector: spec.selector,
    template: (isRecord(spec.template) ? spec.template : {}) as ReplicaSetView["template"]
  }
}

/** Pods to create (positive) or delete (negative), capped at `burstReplicas`. */
export const replicaDiff = (pods: number, replicas: number): number => {
  const diff = pods - replicas
  return diff < 0 ? Math.min(-diff, burstReplicas) : -Math.min(diff, burstReplicas)
}

/** `slowStartBatch`'s batch sizes for `count` calls: 1, 2, 4, … (the last cut to what remains). */
export const slowStartBatches = (count: number, initial = slowStartInitialBatchSize): ReadonlyArray<number> => {
  const out: Array<number> = []
  let remaining = count
  for (let size = Math.min(remaining, initial); size > 0; size = Math.min(2 * size, remaining)) {
    out.push(size)
    remaining -= size
  }
  return out
}

/** `GetPodFromTemplate`: labels, annotations and spec of the template, `generateName` `<rs>-`, the controller reference. */
export const podFromTemplate = (rs: KObject): KObject => {
  const { template } = replicaSetView(rs)
  const meta = template.metadata ?? {}
  return {
    metadata: {
      generateName: `${rs.metadata.name}-`,
      namespace: rs.metadata.namespace,
      ...(meta.labels ? { labels: { ...meta.labels } } : {}),
      ...(meta.annotations ? { annotations: { ...meta.annotations } } : {}),
      ownerReferences: [controllerRef(rs, replicaSetApiVersion, "ReplicaSet")]
    },
    spec: template.spec ?? {}
  }
}

/**
 * Whether the pods the template makes are ones the selector matches (upstream's validation refuses a ReplicaSet
 * whose are not: `ValidatePodTemplateSpecForReplicaSet`). Matched by the controller's own rule, the one it counts
 * its pods by, so a ReplicaSet that passes makes progress.
 */
export const selectsOwnPods = (view: ReplicaSetView): boolean => selectorMatches(view.selector, view.template.metadata?.labels)

/** Why a ReplicaSet that fails `selectsOwnPods` creates no pods: upstream's validation text, after the labels. */
export const templateMismatchMessage = (view: ReplicaSetView): string =>
  `pod template labels ${formatLabels(view.template.metadata?.labels ?? {})}: \`selector\` does not match template \`labels\``

const phaseRank = (pod: KObject): number => {
  switch (podPhase(pod)) {
    case "Pending":
      return 0
    case "Unknown":
      return 1
    case "Running":
      return 2
    default:
      return 0
  }
}

const readySince = (pod: KObject): number => {
  const c = ((isRecord(pod.status) ? pod.status.conditions : undefined) as ReadonlyArray<{ type?: string; lastTransitionTime?: string }> | undefined)?.find(
    (c) => c.type === "Ready"
  )
  return c?.lastTransitionTime ? Date.parse(c.lastTransitionTime) : 0
}

const created = (pod: KObject): number => (pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : 0)

/**
 * `ActivePods.Less` as `getPodsToDelete` ranks them, first to go first: unassigned before assigned; Pending before
 * Unknown before Running; not ready before ready; ready for less time before more; newer before older. (Upstream's
 * deletion cost, co-located rank and restart counts are not modelled: no simulated pod carries them.)
 */
export const deletionOrder = (a: KObject, b: KObject): number => {
  if (podAssigned(a) !== podAssigned(b)) return podAssigned(a) ? 1 : -1
  if (phaseRank(a) !== phaseRank(b)) return phaseRank(a) - phaseRank(b)
  if (isPodReady(a) !== isPodReady(b)) return isPodReady(a) ? 1 : -1
  if (isPodReady(a) && readySince(a) !== readySince(b)) return readySince(b) - readySince(a)
  return created(b) - created(a)
}

/** `getPodsToDelete`: the `count` pods first in `deletionOrder`. */
export const podsToDelete = (pods: ReadonlyArray<KObject>, count: number): ReadonlyArray<KObject> => [...pods].sort(deletionOrder).slice(0, count)

export interface ReplicaSetCondition {
  readonly type: string
  readonly status: string
  readonly lastTransitionTime?: string
  readonly reason?: string
  readonly message?: string
}

export interface ReplicaSetStatus {
  readonly replicas: number
  readonly fullyLabeledReplicas?: number
  readonly readyReplicas?: number
  readonly availableReplicas?: number
  readonly observedGeneration?: number
  readonly conditions?: ReadonlyArray<ReplicaSetCondition>
}

/** A failed create or delete of the last sync: the `ReplicaFailure` condition's reason and message. */
export interface ManageFailure {
  readonly reason: "FailedCreate" | "FailedDelete"
  readonly message: string
}

/**
 * `calculateStatus`: replicas = the active pods it controls, fullyLabeled = those whose labels carry all the
 * template's labels, ready, available (ready for minReadySeconds at `now`), the generation seen; `ReplicaFailure`
 * set on a failed create or delete and removed after a sync without one. Zero counts are omitted (`omitempty`).
 */
export const replicaSetStatus = (rs: KObject, pods: ReadonlyArray<KObject>, now: number, failure: ManageFailure | undefined, nowText: string): ReplicaSetStatus => {
  const view = replicaSetView(rs)
  const templateLabels = view.template.metadata?.labels ?? {}
  const fullyLabeled = pods.filter((p) => selectorMatches({ matchLabels: templateLabels }, p.metadata.labels)).length
  const ready = pods.filter(isPodReady).length
  const available = pods.filter((p) => isPodAvailable(p, view.minReadySeconds, now)).length
  const before = ((isRecord(rs.status) ? rs.status.conditions : undefined) ?? []) as ReadonlyArray<ReplicaSetCondition>
  const others = before.filter((c) => c.type !== "ReplicaFailure")
  const existing = before.find((c) => c.type === "ReplicaFailure")
  const conditions =
    failure === undefined
      ? others
      : existing !== undefined
        ? before
        : [...others, { type: "ReplicaFailure", status: "True", lastTransitionTime: nowText, reason: failure.reason, message: failure.message }]
  return {
    replicas: pods.length,
    ...(fullyLabeled > 0 ? { fullyLabeledReplicas: fullyLabeled } : {}),
    ...(ready > 0 ? { readyReplicas: ready } : {}),
    ...(available > 0 ? { availableReplicas: available } : {}),
    ...(rs.metadata.generation !== undefined ? { observedGeneration: rs.metadata.generation } : {}),
    ...(conditions.length > 0 ? { conditions } : {})
  }
}

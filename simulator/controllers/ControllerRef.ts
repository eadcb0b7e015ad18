/**
 * What the workload controllers share (upstream `pkg/controller/controller_utils.go`, `pkg/api/v1/pod/util.go`,
 * apimachinery `metav1.LabelSelectorAsSelector`): controller references, label-selector objects, pod readiness and
 * availability, active pods. Pure.
 */
import { isRecord, type KObject, type OwnerReference } from "../../src/api/Object.js"

/** The owner reference with `controller: true`, if any (`metav1.GetControllerOf`). */
export const controllerOf = (obj: KObject): OwnerReference | undefined => (obj.metadata.ownerReferences ?? []).find((r) => r.controller === true)

/** `metav1.NewControllerRef`: the reference a controller puts on what it creates (blocks the owner's foreground deletion). */
export const controllerRef = (owner: KObject, apiVersion: string, kind: string): OwnerReference => ({
  apiVersion,
  kind,
  name: owner.metadata.name ?? "",
  uid: owner.metadata.uid ?? "",
  controller: true,
  blockOwnerDeletion: true
})

interface Requirement {
  readonly key: string
  readonly operator: string
  readonly values?: ReadonlyArray<string>
}

/**
 * Whether `labels` match a `LabelSelector` object (matchLabels ANDed with matchExpressions). An empty selector
 * matches everything, a missing one nothing, as `LabelSelectorAsSelector` reads them.
 */
export const selectorMatches = (selector: unknown, labels: Readonly<Record<string, string>> | undefined): boolean => {
  if (!isRecord(selector)) return false
  const l = labels ?? {}
  if (isRecord(selector.matchLabels)) for (const [k, v] of Object.entries(selector.matchLabels)) if (l[k] !== v) return false
  const exprs = Array.isArray(selector.matchExpressions) ? (selector.matchExpressions as ReadonlyArray<Requirement>) : []
  for (const e of exprs) {
    const has = Object.prototype.hasOwnProperty.call(l, e.key)
    const values = e.values ?? []
    switch (e.operator) {
      case "In":
        if (!has || !values.includes(l[e.key]!)) return false
        break
      case "NotIn":
        if (has && values.includes(l[e.key]!)) return false
        break
      case "Exists":
        if (!has) return false
        break
      case "DoesNotExist":
        if (has) return false
        break
      default:
        return false
    }
  }
  return true
}

/** Whether a selector selects everything (`selector.Empty()`): controllers refuse to act on one. */
export const selectorIsEmpty = (selector: unknown): boolean =>
  !isRecord(selector) ||
  ((!isRecord(selector.matchLabels) || Object.keys(selector.matchLabels).length === 0) &&
    (!Array.isArray(selector.matchExpressions) || selector.matchExpressions.length === 0))

interface PodCondition {
  readonly type?: string
  readonly status?: string
  readonly lastTransitionTime?: string
}

const podStatus = (pod: KObject) => (isRecord(pod.status) ? pod.status : {}) as { readonly phase?: string; readonly conditions?: ReadonlyArray<PodCondition> }

const readyCondition = (pod: KObject): PodCondition | undefined => (podStatus(pod).conditions ?? []).find((c) => c.type === "Ready")

/** `podutil.IsPodReady`. */
export const isPodReady = (pod: KObject): boolean => readyCondition(pod)?.status === "True"

/** `podutil.IsPodAvailable`: ready, and for at least `minReadySeconds` at `now` (ms). */
export const isPodAvailable = (pod: KObject, minReadySeconds: number, now: number): boolean => {
  const c = readyCondition(pod)
  if (c?.status !== "True") return false
  if (minReadySeconds <= 0) return true
  const since = c.lastTransitionTime ? Date.parse(c.lastTransitionTime) : NaN
  return !Number.isNaN(since) && since + minReadySeconds * 1000 <= now
}

/** `controller.IsPodActive`: not Succeeded or Failed, not being deleted. */
export const isPodActive = (pod: KObject): boolean => {
  const phase = podStatus(pod).phase
  return phase !== "Succeeded" && phase !== "Failed" && pod.metadata.deletionTimestamp === undefined
}

/** The pod's phase, "" when it has none yet. */
export const podPhase = (pod: KObject): string => podStatus(pod).phase ?? ""

/** Whether a pod is bound to a node. */
export const podAssigned = (pod: KObject): boolean => isRecord(pod.spec) && typeof pod.spec.nodeName === "string" && pod.spec.nodeName !== ""

/** `namespace/name`, as informers key objects. */
export const keyOf = (obj: KObject): string => `${obj.metadata.namespace ?? ""}/${obj.metadata.name ?? ""}`

export const splitKey = (key: string): { readonly namespace: string; readonly name: string } => {
  const slash = key.indexOf("/")
  return { namespace: key.slice(0, slash), name: key.slice(slash + 1) }
}

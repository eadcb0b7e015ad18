/**
 * The Deployment controller's arithmetic, pure (upstream `pkg/controller/deployment/util/deployment_util.go`, and
 * the decisions of `sync.go`, `rolling.go`, `progress.go`): spec defaults, maxSurge / maxUnavailable
 * (`ResolveFenceposts`), the new ReplicaSet's size (`NewRSNewReplicas`), how far old ones may shrink
 * (`reconcileOldReplicaSets`), proportional scaling (`scale`, `GetProportion`), the status (`calculateStatus`) and
 * its conditions (`syncRolloutStatus`), the template hash (`ComputeHash`). Times are ms; texts RFC 3339.
 */
import { isRecord, type KObject } from "../../../src/api/Object.js"

export const podTemplateHashLabel = "pod-template-hash"
export const revisionAnnotation = "deployment.kubernetes.io/revision"
export const desiredReplicasAnnotation = "deployment.kubernetes.io/desired-replicas"
export const maxReplicasAnnotation = "deployment.kubernetes.io/max-replicas"

/** Annotations of the Deployment not copied to its ReplicaSets (`annotationsToSkip`). */
const annotationsToSkip = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  revisionAnnotation,
  "deployment.kubernetes.io/revision-history",
  desiredReplicasAnnotation,
  maxReplicasAnnotation,
  "deprecated.deployment.rollback.to"
])

export type IntOrPercent = number | string

export interface DeploymentView {
  readonly replicas: number
  readonly selector: unknown
  readonly template: Record<string, unknown>
  readonly strategy: "RollingUpdate" | "Recreate"
  readonly maxSurge: IntOrPercent
  readonly maxUnavailable: IntOrPercent
  readonly minReadySeconds: number
  readonly revisionHistoryLimit: number
  /** undefined: no deadline (upstream's MaxInt32). */
  readonly progressDeadlineSeconds: number | undefined
  readonly paused: boolean
}

const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {})

/**
 * The spec with upstream's defaults (`SetDefaults_Deployment`, apps/v1): 1 replica, RollingUpdate with 25 % / 25 %,
 * 10 revisions kept, a 600 s progress deadline. The simulated server stores what clients send, so they apply here.
 */
export const deploymentView = (d: KObject): DeploymentView => {
  const spec = rec(d.spec)
  const strategy = rec(spec.strategy)
  const rolling = rec(strategy.rollingUpdate)
  const deadline = spec.progressDeadlineSeconds
  return {
    replicas: typeof spec.replicas === "number" ? spec.replicas : 1,
    selector: spec.selector,
    template: rec(spec.template),
    strategy: strategy.type === "Recreate" ? "Recreate" : "RollingUpdate",
    maxSurge: (rolling.maxSurge as IntOrPercent | undefined) ?? "25%",
    maxUnavailable: (rolling.maxUnavailable as IntOrPercent | undefined) ?? "25%",
    minReadySeconds: typeof spec.minReadySeconds === "number" ? spec.minReadySeconds : 0,
    revisionHistoryLimit: typeof spec.revisionHistoryLimit === "number" ? spec.revisionHistoryLimit : 10,
    progressDeadlineSeconds: typeof deadline === "number" ? (deadline >= 2147483647 ? undefined : deadline) : 600,
    paused: spec.paused === true
  }
}

/** `intstr.GetScaledValueFromIntOrPercent`: "25%" of `total`, rounded up or down. */
export const scaledValue = (v: IntOrPercent, total: number, roundUp: boolean): number => {
  if (typeof v === "number") return v
  const m = /^(\d+)%$/.exec(v)
  if (!m) return /^\d+$/.test(v) ? Number(v) : 0
  const x = (Number(m[1]) * total) / 100
  return roundUp ? Math.ceil(x) : Math.floor(x)
}

/** `ResolveFenceposts`: surge rounds up, unavailable down; both 0 would deadlock, so unavailable becomes 1. */
export const resolveFenceposts = (maxSurge: IntOrPercent, maxUnavailable: IntOrPercent, desired: number): { readonly surge: number; readonly unavailable: number } => {
  const surge = scaledValue(maxSurge, desired, true)
  const unavailable = scaledValue(maxUnavailable, desired, false)
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable }
}

/** `MaxUnavailable`: 0 for Recreate or no replicas; never more than the replicas. */
export const maxUnavailableOf = (d: DeploymentView): number => {
  if (d.strategy !== "RollingUpdate" || d.replicas === 0) return 0
  return Math.min(d.replicas, resolveFenceposts(d.maxSurge, d.maxUnavailable, d.replicas).unavailable)
}

/** `MaxSurge`: 0 for Recreate. */
export const maxSurgeOf = (d: DeploymentView): number => (d.strategy !== "RollingUpdate" ? 0 : resolveFenceposts(d.maxSurge, d.maxUnavailable, d.replicas).surge)

/** What the controller reads of a ReplicaSet. */
export interface RsView {
  readonly name: string
  readonly created: number
  readonly replicas: number
  readonly statusReplicas: number
  readonly readyReplicas: number
  readonly availableReplicas: number
  readonly annotations: Readonly<Record<string, string>>
}

export const rsView = (rs: KObject): RsView => {
  const spec = rec(rs.spec)
  const status = rec(rs.status)
  const n = (v: unknown) => (typeof v === "number" ? v : 0)
  return {
    name: rs.metadata.name ?? "",
    created: rs.metadata.creationTimestamp ? Date.parse(rs.metadata.creationTimestamp) : 0,
    replicas: typeof spec.replicas === "number" ? spec.replicas : 1,
    statusReplicas: n(status.replicas),
    readyReplicas: n(status.readyReplicas),
    availableReplicas: n(status.availableReplicas),
    annotations: rs.metadata.annotations ?? {}
  }
}

const sum = (rss: ReadonlyArray<RsView>, f: (r: RsView) => number) => rss.reduce((a, r) => a + f(r), 0)

/** `NewRSNewReplicas`: the new ReplicaSet's next size (rolling: up to replicas + maxSurge pods in all; Recreate: all). */
export const newRSNewReplicas = (d: DeploymentView, all: ReadonlyArray<RsView>, newRS: RsView): number => {
  if (d.strategy === "Recreate") return d.replicas
  const currentPodCount = sum(all, (r) => r.replicas)
  const maxTotalPods = d.replicas + maxSurgeOf(d)
  if (currentPodCount >= maxTotalPods) return newRS.replicas
  const scaleUpCount = Math.min(maxTotalPods - currentPodCount, d.replicas - newRS.replicas)
  return newRS.replicas + scaleUpCount
}

/**
 * `reconcileOldReplicaSets` (`rolling.go`): the old ReplicaSets' new sizes, oldest first: first their unhealthy
 * pods (`cleanupUnhealthyReplicas`), then available ones while more than replicas − maxUnavailable stay available
 * (`scaleDownOldReplicaSetsForRollingUpdate`). Only the changed ones are returned.
 */
export const oldReplicaSetScaleDowns = (d: DeploymentView, all: ReadonlyArray<RsView>, olds: ReadonlyArray<RsView>, newRS: RsView | undefined): ReadonlyArray<{ readonly name: string; readonly to: number }> => {
  const oldPodsCount = sum(olds, (r) => r.replicas)
  if (oldPodsCount === 0) return []
  const allPodsCount = sum(all, (r) => r.replicas)
  const minAvailable = d.replicas - maxUnavailableOf(d)
  const newRSUnavailable = newRS === undefined ? 0 : newRS.replicas - newRS.availableReplicas
  const maxScaledDown = allPodsCount - minAvailable - newRSUnavailable
  if (maxScaledDown <= 0) return []
  const sizes = new Map(olds.map((r) => [r.name, r.replicas]))
  const byAge = [...olds].sort((a, b) => a.created - b.created || (a.name < b.name ? -1 : 1))
  // unhealthy first
  let cleaned = 0
  for (const r of byAge) {
    if (cleaned >= maxScaledDown) break
    if (r.replicas === 0) continue
    if (r.replicas === r.availableReplicas) continue
    const down = Math.min(maxScaledDown - cleaned, r.replicas - r.availableReplicas)
    sizes.set(r.name, r.replicas - down)
    cleaned += down
  }
  // then available pods while the minimum stays available
  const available = sum(all, (r) => r.availableReplicas)
  let total = available - minAvailable
  if (total > 0) {
    for (const r of byAge) {
      if (total <= 0) break
      const size = sizes.get(r.name)!
      if (size === 0) continue
      const down = Math.min(size, total)
      sizes.set(r.name, size - down)
      total -= down
    }
  }
  return olds.filter((r) => sizes.get(r.name) !== r.replicas).map((r) => ({ name: r.name, to: sizes.get(r.name)! }))
}

/** `GetDesiredReplicasAnnotation`. */
export const desiredOf = (r: RsView): number | undefined => {
  const v = r.annotations[desiredReplicasAnnotation]
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined
}

/** `isScalingEvent`: an active ReplicaSet was sized for another replica count. */
export const isScalingEvent = (d: DeploymentView, all: ReadonlyArray<RsView>): boolean =>
  all.some((r) => r.replicas > 0 && desiredOf(r) !== undefined && desiredOf(r) !== d.replicas)

/** `IsSaturated`. */
export const isSaturated = (d: DeploymentView, r: RsView | undefined): boolean =>
  r !== undefined && r.replicas === d.replicas && desiredOf(r) === d.replicas && r.availableReplicas === d.replicas

/**
 * `scale` (`sync.go`): the sizes after a scaling event. One active (or, with none, the newest) ReplicaSet takes the
 * whole count; a saturated new one leaves the old ones at 0; otherwise the replicas added or removed are spread in
 * proportion (`GetProportion`), the leftover to the first (largest) one.
 */
export const scaleSizes = (
  d: DeploymentView,
  newRS: RsView | undefined,
  olds: ReadonlyArray<RsView>,
  deploymentStatusReplicas: number
): ReadonlyArray<{ readonly name: string; readonly to: number }> => {
  const newestFirst = [...olds].sort((a, b) => b.created - a.created)
  const all = [...newestFirst, ...(newRS ? [newRS] : [])]
  const active = all.filter((r) => r.replicas > 0)
  if (newRS !== undefined || olds.length > 0) {
    const one = active.length === 0 ? (newRS ?? newestFirst[0]) : active.length === 1 ? active[0] : undefined
    if (one !== undefined) return one.replicas === d.replicas ? [] : [{ name: one.name, to: d.replicas }]
  }
  if (isSaturated(d, newRS)) return olds.filter((r) => r.replicas > 0).map((r) => ({ name: r.name, to: 0 }))
  if (d.strategy !== "RollingUpdate") return []
  const allowed = d.replicas > 0 ? d.replicas + maxSurgeOf(d) : 0
  const toAdd = allowed - sum(active, (r) => r.replicas)
  const ordered =
    toAdd > 0
      ? [...active].sort((a, b) => b.replicas - a.replicas || b.created - a.created) // ReplicaSetsBySizeNewer
      : [...active].sort((a, b) => b.replicas - a.replicas || a.created - b.created) // ReplicaSetsBySizeOlder
  const sizes = new Map<string, number>()
  let added = 0
  for (const r of ordered) {
    if (toAdd === 0) {
      sizes.set(r.name, r.replicas)
      continue
    }
    const p = proportion(r, d, toAdd, added, deploymentStatusReplicas)
    sizes.set(r.name, r.replicas + p)
    added += p
  }
  if (toAdd !== 0 && ordered.length > 0) {
    const first = ordered[0]!
    sizes.set(first.name, Math.max(0, sizes.get(first.name)! + toAdd - added))
  }
  return ordered.filter((r) => sizes.get(r.name) !== r.replicas).map((r) => ({ name: r.name, to: sizes.get(r.name)! }))
}

/** Go's `math.Round` (half away from zero), as `integer.RoundToInt32`. */
const roundHalfAway = (x: number): number => (x < 0 ? -Math.round(-x) : Math.round(x))

const proportion = (r: RsView, d: DeploymentView, toAdd: number, added: number, statusReplicas: number): number => {
  if (r.replicas === 0 || toAdd === 0 || toAdd === added) return 0
  let fraction: number
  if (d.replicas === 0) fraction = -r.replicas
  else {
    const maxReplicas = d.replicas + maxSurgeOf(d)
    const annotated = r.annotations[maxReplicasAnnotation]
    let before = annotated !== undefined && /^\d+$/.test(annotated) ? Number(annotated) : 0
    if (before === 0) before = statusReplicas
    fraction = before === 0 ? 0 : roundHalfAway((r.replicas * maxReplicas) / before) - r.replicas
  }
  const allowed = toAdd - added
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed)
}

export interface DeploymentCondition {
  readonly type: string
  readonly status: string
  readonly lastUpdateTime?: string
  readonly lastTransitionTime?: string
  readonly reason?: string
  readonly message?: string
}

export interface DeploymentStatus {
  readonly observedGeneration?: number
  readonly replicas?: number
  readonly updatedReplicas?: number
  readonly readyReplicas?: number
  readonly availableReplicas?: number
  readonly unavailableReplicas?: number
  readonly conditions?: ReadonlyArray<DeploymentCondition>
  readonly collisionCount?: number
}

/** `SetDeploymentCondition`: same status and reason is no change; same status keeps the transition time; it moves last. */
export const setCondition = (conditions: ReadonlyArray<DeploymentCondition>, c: DeploymentCondition): ReadonlyArray<DeploymentCondition> => {
  const current = conditions.find((x) => x.type === c.type)
  if (current && current.status === c.status && current.reason === c.reason) return conditions
  const next = current && current.status === c.status ? { ...c, lastTransitionTime: current.lastTransitionTime } : c
  return [...conditions.filter((x) => x.type !== c.type), next]
}

export const conditionOf = (s: DeploymentStatus, type: string): DeploymentCondition | undefined => (s.conditions ?? []).find((c) => c.type === type)

const condition = (type: string, status: string, reason: string, message: string, now: string): DeploymentCondition => ({
  type,
  status,
  lastUpdateTime: now,
  lastTransitionTime: now,
  reason,
  message
})

export const newReplicaSetCreated = (name: string, now: string) => condition("Progressing", "True", "NewReplicaSetCreated", `Created new replica set "${name}"`, now)
export const foundNewReplicaSet = (name: string, now: string) => condition("Progressing", "True", "FoundNewReplicaSet", `Found new replica set "${name}"`, now)
/** `FailedRSCreateReason`: the new ReplicaSet could not be created. */
export const replicaSetCreateError = (message: string, now: string) => condition("Progressing", "False", "ReplicaSetCreateError", message, now)

/** `calculateStatus`: counts from the ReplicaSets, `Available` by whether replicas − maxUnavailable are available. */
export const calculateStatus = (d: KObject, all: ReadonlyArray<RsView>, newRS: RsView | undefined, now: string): DeploymentStatus => {
  const view = deploymentView(d)
  const before = rec(d.status) as DeploymentStatus
  const available = sum(all, (r) => r.availableReplicas)
  const unavailable = Math.max(0, sum(all, (r) => r.replicas) - available)
  const availability =
    available >= view.replicas - maxUnavailableOf(view)
      ? condition("Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", now)
      : condition("Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", now)
  return {
    ...(d.metadata.generation !== undefined ? { observedGeneration: d.metadata.generation } : {}),
    replicas: sum(all, (r) => r.statusReplicas),
    updatedReplicas: newRS?.statusReplicas ?? 0,
    readyReplicas: sum(all, (r) => r.readyReplicas),
    availableReplicas: available,
    unavailableReplicas: unavailable,
    conditions: setCondition(before.conditions ?? [], availability),
    ...(before.collisionCount !== undefined ? { collisionCount: before.collisionCount } : {})
  }
}

/** `DeploymentComplete`. */
export const deploymentComplete = (d: KObject, s: DeploymentStatus): boolean => {
  const replicas = deploymentView(d).replicas
  return s.updatedReplicas === replicas && s.replicas === replicas && s.availableReplicas === replicas && (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0)
}

/** `DeploymentProgressing`: more updated, ready or available pods, or fewer old ones, than the stored status says. */
export const deploymentProgressing = (d: KObject, s: DeploymentStatus): boolean => {
  const old = rec(d.status) as DeploymentStatus
  const n = (v: number | undefined) => v ?? 0
  return (
    n(s.updatedReplicas) > n(old.updatedReplicas) ||
    n(s.replicas) - n(s.updatedReplicas) < n(old.replicas) - n(old.updatedReplicas) ||
    n(s.readyReplicas) > n(old.readyReplicas) ||
    n(s.availableReplicas) > n(old.availableReplicas)
  )
}

/** `DeploymentTimedOut`: the Progressing condition not updated for progressDeadlineSeconds. */
export const deploymentTimedOut = (d: KObject, s: DeploymentStatus, nowMs: number): boolean => {
  const deadline = deploymentView(d).progressDeadlineSeconds
  if (deadline === undefined) return false
  const c = conditionOf(s, "Progressing")
  if (c === undefined || c.reason === "NewReplicaSetAvailable") return false
  if (c.reason === "ProgressDeadlineExceeded") return true
  const from = c.lastUpdateTime ? Date.parse(c.lastUpdateTime) : NaN
  return !Number.isNaN(from) && from + deadline * 1000 < nowMs
}

/** `syncRolloutStatus`'s status: `calculateStatus` with the Progressing condition as `progress.go` moves it. */
export const rolloutStatus = (d: KObject, all: ReadonlyArray<RsView>, newRS: RsView | undefined, nowMs: number, now: string): DeploymentStatus => {
  let s = calculateStatus(d, all, newRS, now)
  const view = deploymentView(d)
  if (view.progressDeadlineSeconds === undefined) return { ...s, conditions: (s.conditions ?? []).filter((c) => c.type !== "Progressing") }
  const current = conditionOf(s, "Progressing")
  const isCompleteDeployment = s.replicas === s.updatedReplicas && current?.reason === "NewReplicaSetAvailable"
  if (isCompleteDeployment) return s
  const subject = newRS ? `ReplicaSet "${newRS.name}"` : `Deployment "${d.metadata.name}"`
  if (deploymentComplete(d, s)) {
    s = { ...s, conditions: setCondition(s.conditions ?? [], condition("Progressing", "True", "NewReplicaSetAvailable", `${subject} has successfully progressed.`, now)) }
  } else if (deploymentProgressing(d, s)) {
    const c = condition("Progressing", "True", "ReplicaSetUpdated", `${subject} is progressing.`, now)
    const kept = current?.status === "True" ? { ...c, lastTransitionTime: current.lastTransitionTime } : c
    s = { ...s, conditions: [...(s.conditions ?? []).filter((x) => x.type !== "Progressing"), kept] }
  } else if (deploymentTimedOut(d, s, nowMs)) {
    s = { ...s, conditions: setCondition(s.conditions ?? [], condition("Progressing", "False", "ProgressDeadlineExceeded", `${subject} has timed out progressing.`, now)) }
  }
  return s
}

/** FNV-1a, 32 bits (`hash/fnv` New32a). */
const fnv32a = (bytes: Uint8Array, h = 0x811c9dc5): number => {
  for (const b of bytes) {
    h ^= b
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h >>> 0
}

/** JSON with keys sorted, so equal templates hash and compare equal whatever their key order. */
export const canonicalJson = (v: unknown): string =>
  Array.isArray(v) ? `[${v.map(canonicalJson).join(",")}]` : isRecord(v) ? `{${Object.keys(v).sort().filter((k) => v[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonicalJson(v[k])}`).join(",")}}` : JSON.stringify(v)

const alphanums = "bcdfghjklmnpqrstvwxz2456789"

/** `rand.SafeEncodeString`: each character mapped into an alphabet without vowels (no words in names). */
export const safeEncodeString = (s: string): string => Array.from(s, (c) => alphanums[c.charCodeAt(0) % alphanums.length]).join("")

/**
 * `controller.ComputeHash`: FNV-32a of the template, then of the collision count (4 bytes little-endian), printed
 * in decimal and safe-encoded. Upstream hashes Go's `spew` dump of the struct; this hashes canonical JSON, so the
 * value differs from kube-controller-manager's for the same template, but is stable and of the same form.
 */
export const computeHash = (template: unknown, collisionCount: number | undefined): string => {
  let h = fnv32a(new TextEncoder().encode(canonicalJson(template)))
  if (collisionCount !== undefined) {
    const b = new Uint8Array(8)
    new DataView(b.buffer).setUint32(0, collisionCount >>> 0, true)
    h = fnv32a(b, h)
  }
  return safeEncodeString(String(h))
}

/** The template without the pod-template-hash label (`EqualIgnoreHash`'s view). */
const withoutHash = (template: unknown): unknown => {
  const t = rec(template)
  const meta = rec(t.metadata)
  const { [podTemplateHashLabel]: _h, ...labels } = (rec(meta.labels) as Record<string, string>)
  return { ...t, metadata: { ...meta, labels } }
}

/** `EqualIgnoreHash`. */
export const equalIgnoreHash = (a: unknown, b: unknown): boolean => canonicalJson(withoutHash(a)) === canonicalJson(withoutHash(b))

/** `MaxRevision`. */
export const maxRevision = (rss: ReadonlyArray<KObject>): number =>
  rss.reduce((m, rs) => {
    const v = Number(rs.metadata.annotations?.[revisionAnnotation] ?? "0")
    return Number.isFinite(v) && v > m ? v : m
  }, 0)

/**
 * `SetNewReplicaSetAnnotations` + `SetReplicasAnnotations`: the Deployment's annotations (but those skipped), the
 * revision when it grows, desired and max replicas.
 */
export const replicaSetAnnotations = (d: KObject, current: Readonly<Record<string, string>>, revision: string): Record<string, string> => {
  const view = deploymentView(d)
  const out: Record<string, string> = { ...current }
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) if (!annotationsToSkip.has(k)) out[k] = v
  const old = Number(current[revisionAnnotation] ?? "0")
  if (!(current[revisionAnnotation] !== undefined && old >= Number(revision))) out[revisionAnnotation] = revision
  out[desiredReplicasAnnotation] = String(view.replicas)
  out[maxReplicasAnnotation] = String(view.replicas + maxSurgeOf(view))
  return out
}

/**
 * `cleanupDeployment`: as many old ReplicaSets as exceed revisionHistoryLimit, lowest revision first, each only if it
 * has no pods (`ReplicaSetsByRevision`; those with pods are skipped, not replaced by the next).
 */
export const replicaSetsToCleanUp = (d: DeploymentView, olds: ReadonlyArray<RsView>): ReadonlyArray<string> => {
  const diff = olds.length - d.revisionHistoryLimit
  if (diff <= 0) return []
  const revision = (r: RsView) => Number(r.annotations[revisionAnnotation] ?? "0") || 0
  const byRevision = [...olds].sort((a, b) => revision(a) - revision(b) || a.created - b.created)
  return byRevision.slice(0, diff).filter((r) => r.replicas === 0 && r.statusReplicas === 0).map((r) => r.name)
}

/**
 * The scheduler's pure core (reference §6): node and pod views, the default filter plugins, the score plugins
 * with their weights, the adaptive number of nodes to score and the FitError text. No effects here.
 */
import { Either } from "effect"
import { isRecord, type KObject } from "../../src/api/Object.js"
import { parseQuantity } from "../../src/api/go/Quantity.js"
import { toleratesAny, type Taint, type Toleration } from "../../src/api/kinds/Taints.js"
import { TaintKeys } from "../../src/api/WellKnown.js"

// ---- views -------------------------------------------------------------------------------------------------

export interface Requirement {
  readonly key: string
  readonly operator: string
  readonly values: ReadonlyArray<string>
}

export interface NodeSelectorTerm {
  readonly matchExpressions: ReadonlyArray<Requirement>
  readonly matchFields: ReadonlyArray<Requirement>
}

export interface PodView {
  readonly namespace: string
  readonly name: string
  readonly uid: string
  readonly priority: number
  readonly schedulerName: string
  readonly nodeName: string
  /** Summed container requests: milli-cpu and bytes. */
  readonly cpu: number
  readonly memory: number
  /** The same with upstream's non-zero defaults (100m, 200Mi) for containers that request nothing. */
  readonly nonZeroCpu: number
  readonly nonZeroMemory: number
  readonly nodeSelector: Readonly<Record<string, string>>
  readonly requiredTerms: ReadonlyArray<NodeSelectorTerm> | undefined
  readonly preferredTerms: ReadonlyArray<{ readonly weight: number; readonly term: NodeSelectorTerm }>
  readonly tolerations: ReadonlyArray<Toleration>
}

/** What the pods accounted to a node add up to. */
export interface Usage {
  reqCpu: number
  reqMemory: number
  nonZeroCpu: number
  nonZeroMemory: number
  pods: number
}

export interface NodeInfo extends Usage {
  readonly name: string
  labels: Readonly<Record<string, string>>
  taints: ReadonlyArray<Taint>
  unschedulable: boolean
  allocCpu: number
  allocMemory: number
  allocPods: number
}

export const noUsage: Readonly<Usage> = { reqCpu: 0, reqMemory: 0, nonZeroCpu: 0, nonZeroMemory: 0, pods: 0 }

const DEFAULT_MILLI_CPU = 100
const DEFAULT_MEMORY = 200 * 1024 * 1024

/** Parsed quantities by their text, one cache per unit: a lookup builds no key. */
const milliCache = new Map<string, number>()
const unitCache = new Map<string, number>()
/** `milli`: milli-units (cpu), else whole units (memory, pods). Bad quantities count as 0. */
export const quantityOf = (v: unknown, milli: boolean): number => {
  if (v === undefined || v === null) return 0
  const s = String(v)
  const cache = milli ? milliCache : unitCache
  const hit = cache.get(s)
  if (hit !== undefined) return hit
  const q = parseQuantity(s)
  const n = Either.isRight(q) ? (milli ? q.right.milliValue() : q.right.value()) : 0
  if (cache.size < 10_000) cache.set(s, n)
  return n
}

const rec = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {})
const arr = (v: unknown): ReadonlyArray<unknown> => (Array.isArray(v) ? v : [])
const strMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {}
  for (const [k, x] of Object.entries(rec(v))) out[k] = String(x)
  return out
}

const requirement = (v: unknown): Requirement => {
  const r = rec(v)
  return { key: String(r.key ?? ""), operator: String(r.operator ?? ""), values: arr(r.values).map(String) }
}
const term = (v: unknown): NodeSelectorTerm => {
  const t = rec(v)
  return { matchExpressions: arr(t.matchExpressions).map(requirement), matchFields: arr(t.matchFields).map(requirement) }
}

/** Summed container requests, as in `PodView` (a view is one). */
export interface Requests {
  readonly cpu: number
  readonly memory: number
  readonly nonZeroCpu: number
  readonly nonZeroMemory: number
}

/**
 * Requests by `containers` array. Stored objects are never mutated and pods share their containers array (every
 * seeded pod, every version after a status write or a binding), so each array is summed once.
 */
const requestsCache = new WeakMap<object, Requests>()

const containerRequests = (containers: unknown): Requests => {
  const list = arr(containers)
  const hit = requestsCache.get(list)
  if (hit !== undefined) return hit
  let cpu = 0
  let memory = 0
  let nonZeroCpu = 0
  let nonZeroMemory = 0
  for (const c of list) {
    const req = rec(rec(rec(c).resources).requests)
    const cc = quantityOf(req.cpu, true)
    const cm = quantityOf(req.memory, false)
    cpu += cc
    memory += cm
    nonZeroCpu += req.cpu === undefined ? DEFAULT_MILLI_CPU : cc
    nonZeroMemory += req.memory === undefined ? DEFAULT_MEMORY : cm
  }
  const requests = { cpu, memory, nonZeroCpu, nonZeroMemory }
  if (list.length > 0) requestsCache.set(list, requests)
  return requests
}

/** Shared by the views of pods without selectors or preferences (most): a view is never changed. */
const noSelector: Readonly<Record<string, string>> = {}
const noTerms: ReadonlyArray<never> = []

/** A pod's requests without the rest of its view (shared by pods sharing a containers array). */
export const podRequests = (pod: KObject): Requests => containerRequests(rec(pod.spec).containers)

const nodeNameIn = (spec: Record<string, unknown>): string => (typeof spec.nodeName === "string" ? spec.nodeName : "")

/** `spec.nodeName`, "" when unbound. */
export const nodeNameOf = (pod: KObject): string => nodeNameIn(rec(pod.spec))

export const podView = (pod: KObject): PodView => {
  const spec = rec(pod.spec)
  const { cpu, memory, nonZeroCpu, nonZeroMemory } = containerRequests(spec.containers)
  const nodeAffinity = rec(rec(spec.affinity).nodeAffinity)
  const required = nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution
  const preferred = arr(nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution)
  const tolerations = arr(spec.tolerations)
  return {
    namespace: pod.metadata.namespace ?? "default",
    name: pod.metadata.name ?? "",
    uid: pod.metadata.uid ?? "",
    priority: typeof spec.priority === "number" ? spec.priority : 0,
    schedulerName: typeof spec.schedulerName === "string" && spec.schedulerName !== "" ? spec.schedulerName : "default-scheduler",
    nodeName: nodeNameIn(spec),
    cpu,
    memory,
    nonZeroCpu,
    nonZeroMemory,
    nodeSelector: spec.nodeSelector === undefined ? noSelector : strMap(spec.nodeSelector),
    requiredTerms: isRecord(required) ? arr(required.nodeSelectorTerms).map(term) : undefined,
    preferredTerms:
      preferred.length === 0 ? noTerms : preferred.map((p) => ({ weight: Number(rec(p).weight ?? 0), term: term(rec(p).preference) })),
    // The pod's own array when it holds only records (stored objects are never changed).
    tolerations: (tolerations.every(isRecord) ? tolerations : tolerations.map(rec)) as ReadonlyArray<Toleration>
  }
}

/** `usage`: what is already accounted to the node (pods bound to it before it registered). */
export const nodeInfoOf = (node: KObject, usage: Readonly<Usage> = noUsage): NodeInfo => {
  const spec = rec(node.spec)
  const status = rec(node.status)
  const alloc = rec(isRecord(status.allocatable) ? status.allocatable : status.capacity)
  return {
    name: node.metadata.name ?? "",
    labels: node.metadata.labels ?? {},
    taints: arr(spec.taints).map((t) => {
      const r = rec(t)
      return { key: String(r.key ?? ""), value: String(r.value ?? ""), effect: String(r.effect ?? "") }
    }),
    unschedulable: spec.unschedulable === true,
    allocCpu: quantityOf(alloc.cpu, true),
    allocMemory: quantityOf(alloc.memory, false),
    allocPods: quantityOf(alloc.pods, false),
    reqCpu: usage.reqCpu,
    reqMemory: usage.reqMemory,
    nonZeroCpu: usage.nonZeroCpu,
    nonZeroMemory: usage.nonZeroMemory,
    pods: usage.pods
  }
}

/** Status writes share the labels object of the node they patch: a serialization only when it was replaced. */
const sameLabels = (a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean =>
  a === b || JSON.stringify(a) === JSON.stringify(b)

const sameTaints = (a: ReadonlyArray<Taint>, b: ReadonlyArray<Taint>): boolean =>
  a.length === b.length && a.every((t, i) => t.key === b[i]!.key && t.value === b[i]!.value && t.effect === b[i]!.effect)

/**
 * Refreshes a node's static fields from a new object, keeping what the cache accounted to it. Returns whether
 * anything a filter or score reads changed (upstream moves pods only on such node updates).
 */
export const refreshNodeInfo = (info: NodeInfo, node: KObject): boolean => {
  const fresh = nodeInfoOf(node)
  const changed =
    info.unschedulable !== fresh.unschedulable ||
    info.allocCpu !== fresh.allocCpu ||
    info.allocMemory !== fresh.allocMemory ||
    info.allocPods !== fresh.allocPods ||
    !sameLabels(info.labels, fresh.labels) ||
    !sameTaints(info.taints, fresh.taints)
  info.labels = fresh.labels
  info.taints = fresh.taints
  info.unschedulable = fresh.unschedulable
  info.allocCpu = fresh.allocCpu
  info.allocMemory = fresh.allocMemory
  info.allocPods = fresh.allocPods
  return changed
}

export const addPodToNode = (info: Usage, pod: Requests, sign: 1 | -1 = 1): void => {
  info.reqCpu += sign * pod.cpu
  info.reqMemory += sign * pod.memory
  info.nonZeroCpu += sign * pod.nonZeroCpu
  info.nonZeroMemory += sign * pod.nonZeroMemory
  info.pods += sign
}

// ---- filters (reference §6.2, in the default plugin order) ---------------------------------------------

export const Reasons = {
  unschedulable: "node(s) were unschedulable",
  nodeName: "node(s) didn't match the requested node name",
  affinity: "node(s) didn't match Pod's node affinity/selector",
  tooManyPods: "Too many pods",
  insufficient: (r: string) => `Insufficient ${r}`,
  insufficientCpu: "Insufficient cpu",
  insufficientMemory: "Insufficient memory",
  taint: (t: Taint) => `node(s) had untolerated taint {${t.key}: ${t.value ?? ""}}`
} as const


const matchRequirement = (r: Requirement, value: string | undefined): boolean => {
  switch (r.operator) {
    case "In":
      return value !== undefined && r.values.includes(value)
    case "NotIn":
      return value === undefined || !r.values.includes(value)
    case "Exists":
      return value !== undefined
    case "DoesNotExist":
      return value === undefined
    case "Gt":
    case "Lt": {
      if (value === undefined || r.values.length !== 1) return false
      const a = Number.parseInt(value, 10)
      const b = Number.parseInt(r.values[0]!, 10)
      if (Number.isNaN(a) || Number.isNaN(b)) return false
      return r.operator === "Gt" ? a > b : a < b
    }
    default:
      return false
  }
}

export const matchTerm = (t: NodeSelectorTerm, node: NodeInfo): boolean => {
  // An empty term matches nothing (upstream nodeaffinity).
  if (t.matchExpressions.length === 0 && t.matchFields.length === 0) return false
  return (
    t.matchExpressions.every((r) => matchRequirement(r, node.labels[r.key])) &&
    t.matchFields.every((r) => r.key === "metadata.name" && matchRequirement(r, node.name))
  )
}

/** The reasons a node does not fit, from the first failing plugin (upstream stops at the first). */
export const filterNode = (pod: PodView, node: NodeInfo): ReadonlyArray<string> => {
  // NodeUnschedulable
  if (node.unschedulable && !toleratesAny(pod.tolerations, { key: TaintKeys.unschedulable, value: "", effect: "NoSchedule" }))
    return [Reasons.unschedulable]
  // NodeName
  if (pod.nodeName !== "" && pod.nodeName !== node.name) return [Reasons.nodeName]
  // TaintToleration: the first untolerated NoSchedule/NoExecute taint
  for (const t of node.taints) {
    if ((t.effect === "NoSchedule" || t.effect === "NoExecute") && !toleratesAny(pod.tolerations, t)) return [Reasons.taint(t)]
  }
  // NodeAffinity: nodeSelector AND (any required term)
  for (const k in pod.nodeSelector) if (node.labels[k] !== pod.nodeSelector[k]) return [Reasons.affinity]
  if (pod.requiredTerms !== undefined && !pod.requiredTerms.some((t) => matchTerm(t, node))) return [Reasons.affinity]
  // NodeResourcesFit
  const pods = node.pods + 1 > node.allocPods
  const cpu = pod.cpu > 0 && node.allocCpu < pod.cpu + node.reqCpu
  const memory = pod.memory > 0 && node.allocMemory < pod.memory + node.reqMemory
  if (!pods && !cpu && !memory) return Fits
  const out: string[] = []
  if (pods) out.push(Reasons.tooManyPods)
  if (cpu) out.push(Reasons.insufficientCpu)
  if (memory) out.push(Reasons.insufficientMemory)
  return out
}

/** The answer for a node that fits (shared: the hot path allocates nothing). */
const Fits: ReadonlyArray<string> = []

/** Reasons no preemption could resolve (UnschedulableAndUnresolvable upstream). */
export const unresolvable = (reason: string): boolean =>
  reason === Reasons.unschedulable || reason === Reasons.nodeName || reason === Reasons.affinity || reason.startsWith("node(s) had untolerated taint")

// ---- scores (0–100 each; weights of the default profile) -------------------------------------------------

export const Weights = { TaintToleration: 3, NodeAffinity: 2, NodeResourcesFit: 1, NodeResourcesBalancedAllocation: 1 } as const

const MaxNodeScore = 100

/** NodeResourcesFit LeastAllocated (cpu 1, memory 1) on non-zero requests including the pod. */
export const leastAllocated = (pod: PodView, node: NodeInfo): number => {
  const one = (alloc: number, req: number) => (alloc === 0 || req > alloc ? 0 : Math.floor(((alloc - req) * MaxNodeScore) / alloc))
  return Math.floor(
    (one(node.allocCpu, node.nonZeroCpu + pod.nonZeroCpu) + one(node.allocMemory, node.nonZeroMemory + pod.nonZeroMemory)) / 2
  )
}

/** NodeResourcesBalancedAllocation: (1 − std of the cpu and memory fractions) × 100, on requests. */
export const balancedAllocation = (pod: PodView, node: NodeInfo): number => {
  const frac = (alloc: number, req: number) => (alloc === 0 ? 0 : Math.min(1, req / alloc))
  const c = frac(node.allocCpu, node.reqCpu + pod.cpu)
  const m = frac(node.allocMemory, node.reqMemory + pod.memory)
  const std = Math.abs(c - m) / 2
  return Math.floor((1 - std) * MaxNodeScore)
}

/** TaintToleration raw score: PreferNoSchedule taints the pod does not tolerate (normalized reversed). */
export const intolerablePreferNoSchedule = (pod: PodView, node: NodeInfo): number => {
  let n = 0
  for (const t of node.taints) if (t.effect === "PreferNoSchedule" && !toleratesAny(pod.tolerations, t)) n++
  return n
}

/** NodeAffinity raw score: the weights of the matching preferred terms (normalized to the max). */
export const preferredAffinity = (pod: PodView, node: NodeInfo): number => {
  let s = 0
  for (const p of pod.preferredTerms) if (matchTerm(p.term, node)) s += p.weight
  return s
}

/** Weighted totals for the feasible nodes, in their order (upstream prioritizeNodes with DefaultNormalizeScore). */
export const scoreNodes = (pod: PodView, nodes: ReadonlyArray<NodeInfo>): Array<number> => {
  const n = nodes.length
  const taint = new Array<number>(n)
  const aff = new Array<number>(n)
  let maxTaint = 0
  let maxAff = 0
  for (let i = 0; i < n; i++) {
    taint[i] = intolerablePreferNoSchedule(pod, nodes[i]!)
    aff[i] = pod.preferredTerms.length === 0 ? 0 : preferredAffinity(pod, nodes[i]!)
    if (taint[i]! > maxTaint) maxTaint = taint[i]!
    if (aff[i]! > maxAff) maxAff = aff[i]!
  }
  const out = new Array<number>(n)
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!
    const t = maxTaint === 0 ? MaxNodeScore : MaxNodeScore - Math.floor((taint[i]! * MaxNodeScore) / maxTaint)
    const a = maxAff === 0 ? 0 : Math.floor((aff[i]! * MaxNodeScore) / maxAff)
    out[i] =
      Weights.TaintToleration * t +
      Weights.NodeAffinity * a +
      Weights.NodeResourcesFit * leastAllocated(pod, node) +
      Weights.NodeResourcesBalancedAllocation * balancedAllocation(pod, node)
  }
  return out
}

// ---- how many nodes, and the failure text ------------------------------------------------------------------

/** `numFeasibleNodesToFind` (reference §6.2); `percentage` 0 = adaptive. */
export const numFeasibleNodesToFind = (numNodes: number, percentage = 0): number => {
  if (numNodes < 100 || percentage >= 100) return numNodes
  let pct = percentage
  if (pct === 0) {
    pct = 50 - Math.trunc(numNodes / 125)
    if (pct < 5) pct = 5
  }
  const n = Math.trunc((numNodes * pct) / 100)
  return n < 100 ? 100 : n
}

export const noNodesMessage = "no nodes available to schedule pods"

/** `"<count> <reason>"` items, sorted as strings and joined (upstream `sortReasonsHistogram`). */
const histogram = (reasons: Iterable<string>): string => {
  const counts = new Map<string, number>()
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1)
  return [...counts].map(([r, c]) => `${c} ${r}`).sort().join(", ")
}

/**
 * The FailedScheduling text: the FitError over every node's reasons, then DefaultPreemption's message. Choice:
 * preemption itself is not simulated; a node failing only on resources reports `No preemption victims found for
 * incoming pod` (exact when no pod of lower priority runs there), the others `Preemption is not helpful for
 * scheduling`.
 */
export const fitErrorMessage = (numNodes: number, nodeReasons: ReadonlyArray<ReadonlyArray<string>>): string => {
  const all: string[] = []
  const preemption: string[] = []
  for (const rs of nodeReasons) {
    all.push(...rs)
    preemption.push(rs.some(unresolvable) ? "Preemption is not helpful for scheduling" : "No preemption victims found for incoming pod")
  }
  const fit = `0/${numNodes} nodes are available: ${histogram(all)}.`
  return `${fit} preemption: 0/${numNodes} nodes are available: ${histogram(preemption)}..`
}

/** Backoff after `attempts` failures: initial × 2^(attempts − 1), capped (reference §6.1). */
export const backoffDuration = (attempts: number, initialMs = 1000, maxMs = 10_000): number => {
  let d = initialMs
  for (let i = 1; i < attempts; i++) {
    d *= 2
    if (d >= maxMs) return maxMs
  }
  return Math.min(d, maxMs)
}

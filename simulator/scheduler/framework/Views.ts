/**
 * The scheduler's views of pods and nodes (upstream `framework/types.go` `NodeInfo`): summed requests with upstream's
 * non-zero defaults, node selector terms and tolerations read once, and what the cache accounts to each node. Pure: no
 * effects here.
 */
import { Either } from "effect"
import { isRecord, type KObject } from "../../../src/api/Object.js"
import { parseQuantity } from "../../../src/api/go/Quantity.js"
import type { Taint, Toleration } from "../../../src/api/kinds/Taints.js"

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

/**
 * The last plain score computed on a node (`PlainSelection.ts`): valid while `version` is the node's and the pod's
 * requests are these. Pods of one template score the same on a node until something is bound to it.
 */
export interface ScoreMemo {
  /** `NodeInfo.version` when computed; −1: none. */
  memoVersion: number
  memoCpu: number
  memoMemory: number
  memoNonZeroCpu: number
  memoNonZeroMemory: number
  memoScore: number
}

export interface NodeInfo extends Usage, ScoreMemo {
  readonly name: string
  /** Bumped whenever its usage or allocatable changes (`addPodToNode`, `refreshNodeInfo`). */
  version: number
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
    pods: usage.pods,
    version: 0,
    memoVersion: -1,
    memoCpu: 0,
    memoMemory: 0,
    memoNonZeroCpu: 0,
    memoNonZeroMemory: 0,
    memoScore: 0
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
  info.version++
  return changed
}

export const addPodToNode = (info: Usage, pod: Requests, sign: 1 | -1 = 1): void => {
  info.reqCpu += sign * pod.cpu
  info.reqMemory += sign * pod.memory
  info.nonZeroCpu += sign * pod.nonZeroCpu
  info.nonZeroMemory += sign * pod.nonZeroMemory
  info.pods += sign
}

/** `addPodToNode` on a registered node: its score memo goes stale. */
export const addPodToNodeInfo = (info: NodeInfo, pod: Requests, sign: 1 | -1 = 1): void => {
  addPodToNode(info, pod, sign)
  info.version++
}

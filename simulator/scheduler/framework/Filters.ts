/**
 * The default filter plugins in upstream's order (`schedule_one.go` `findNodesThatPassFilters`), the adaptive number of
 * feasible nodes to find and the FitError text built from the filters' reasons. Pure: no effects here.
 */
import { toleratesAny, type Taint } from "../../../src/api/kinds/Taints.js"
import { TaintKeys } from "../../../src/api/WellKnown.js"
import type { NodeInfo, NodeSelectorTerm, PodView, Requirement } from "./Views.js"

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

/** NodeResourcesFit passes: room for one more pod, and for its cpu and memory requests where it has any. */
export const fitsResources = (pod: PodView, node: NodeInfo): boolean =>
  !(node.pods + 1 > node.allocPods) &&
  !(pod.cpu > 0 && node.allocCpu < pod.cpu + node.reqCpu) &&
  !(pod.memory > 0 && node.allocMemory < pod.memory + node.reqMemory)

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

/** `numFeasibleNodesToFind` (`schedule_one.go`); `percentage` 0 = adaptive. */
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

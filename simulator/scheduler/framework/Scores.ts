/**
 * The default profile's score plugins (0–100 each) and their weights, normalized and summed as upstream's
 * prioritizeNodes does (`schedule_one.go`). Pure: no effects here.
 */
import { toleratesAny } from "../../../src/api/kinds/Taints.js"
import { matchTerm } from "./Filters.js"
import type { NodeInfo, PodView } from "./Views.js"

export const Weights = { TaintToleration: 3, NodeAffinity: 2, NodeResourcesFit: 1, NodeResourcesBalancedAllocation: 1 } as const

export const MaxNodeScore = 100

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

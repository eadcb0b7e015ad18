/**
 * The scheduling cycle for a pod without preferred node affinity (`Selection.ts` `selectNode`, same answer, same
 * draws), in one pass with nothing allocated per node: 150,000 pods each filter and score ~500 of 5,000 nodes in
 * `npm run bench -- scheduler` (docs/benchmarks.md), where the general cycle's per-node arrays and calls were most
 * of a pod's cost.
 *
 * Why it is the same: without preferred terms NodeAffinity scores 0 everywhere; TaintToleration scores 100 on every
 * feasible node as long as none has an untolerated PreferNoSchedule taint (the normalization's maximum is 0), so
 * a node's total is 300 + LeastAllocated + BalancedAllocation, known as soon as it passes the filters. A feasible node
 * with such a taint hands the cycle back to `selectNode` (answer undefined). Nodes that are neither tainted nor
 * unschedulable, for a pod without node name, selector or required terms, are filtered on resources alone (the only
 * filter that can fail there); every other node, and every node that does not fit, goes through `filterNode`.
 */
import { filterNode, fitsResources } from "./Filters.js"
import { balancedAllocation, intolerablePreferNoSchedule, leastAllocated, MaxNodeScore, Weights } from "./Scores.js"
import type { Selection, TieBreak } from "./Selection.js"
import type { NodeInfo, PodView } from "./Views.js"

/** TaintToleration's normalized score with no intolerable taint anywhere, weighted (NodeAffinity's 0 adds nothing). */
const untaintedScore = Weights.TaintToleration * MaxNodeScore

/** The feasible nodes with the best total so far; reused by every cycle (one fiber schedules). */
const ties: NodeInfo[] = []

const noKeys = (record: Readonly<Record<string, string>>): boolean => {
  for (const _ in record) return false
  return true
}

/** A feasible node's total when no feasible node has an intolerable PreferNoSchedule taint, memoized on the node. */
const plainScore = (pod: PodView, node: NodeInfo): number => {
  if (
    node.memoVersion === node.version &&
    node.memoCpu === pod.cpu &&
    node.memoMemory === pod.memory &&
    node.memoNonZeroCpu === pod.nonZeroCpu &&
    node.memoNonZeroMemory === pod.nonZeroMemory
  )
    return node.memoScore
  const s =
    untaintedScore +
    Weights.NodeResourcesFit * leastAllocated(pod, node) +
    Weights.NodeResourcesBalancedAllocation * balancedAllocation(pod, node)
  node.memoVersion = node.version
  node.memoCpu = pod.cpu
  node.memoMemory = pod.memory
  node.memoNonZeroCpu = pod.nonZeroCpu
  node.memoNonZeroMemory = pod.nonZeroMemory
  node.memoScore = s
  return s
}

/** `selectNode`'s answer, or undefined where this pass does not apply (then call `selectNode`). */
export const selectPlainNode = (
  pod: PodView,
  nodes: ReadonlyArray<NodeInfo>,
  start: number,
  want: number,
  random: TieBreak
): Selection | undefined => {
  if (pod.preferredTerms.length !== 0) return undefined
  const resourcesOnly = pod.nodeName === "" && pod.requiredTerms === undefined && noKeys(pod.nodeSelector)
  const n = nodes.length
  let reasons: Array<ReadonlyArray<string>> | undefined
  let processed = 0
  let feasible = 0
  let best = -1
  let tied = 0
  let i = start
  while (processed < n && feasible < want) {
    const node = nodes[i]!
    processed++
    if (++i === n) i = 0
    const plain = !node.unschedulable && node.taints.length === 0
    let fits: boolean
    if (resourcesOnly && plain) fits = fitsResources(pod, node)
    else {
      const r = filterNode(pod, node)
      fits = r.length === 0
      if (!fits) (reasons ??= []).push(r)
    }
    if (!fits) {
      if (resourcesOnly && plain) (reasons ??= []).push(filterNode(pod, node))
      continue
    }
    if (!plain && intolerablePreferNoSchedule(pod, node) > 0) return undefined
    feasible++
    const s = plainScore(pod, node)
    if (s > best) {
      best = s
      tied = 0
      ties[tied++] = node
    } else if (s === best) ties[tied++] = node
  }
  if (feasible === 0) return { processed, chosen: undefined, reasons: reasons ?? [] }
  const chosen = ties[tied === 1 ? 0 : random.intBetween(0, tied)]!
  return { processed, chosen, reasons: reasons ?? [] }
}

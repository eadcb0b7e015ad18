/**
 * One scheduling cycle's node choice (upstream `schedule_one.go` `schedulePod`): filter from a round-robin start
 * until `want` nodes fit (`findNodesThatPassFilters`), score them (`prioritizeNodes`), take the highest total with
 * ties broken uniformly at random (`selectHost`). Pure apart from the draw.
 */
import { filterNode } from "./Filters.js"
import { scoreNodes } from "./Scores.js"
import type { NodeInfo, PodView } from "./Views.js"

/** Where the cycle's draws come from (the scheduler's seeded source). */
export interface TieBreak {
  /** Uniform integer in [min, max). */
  intBetween(min: number, max: number): number
}

/** What a cycle found: the node chosen, or none and every filtered-out node's reasons (for the FitError). */
export interface Selection {
  /** Nodes filtered (the next cycle starts after them). */
  readonly processed: number
  readonly chosen: NodeInfo | undefined
  /** The reasons of the nodes that did not fit, in the order filtered; only read when none fit. */
  readonly reasons: ReadonlyArray<ReadonlyArray<string>>
}

/** The general cycle over `nodes` from index `start`. */
export const selectNode = (pod: PodView, nodes: ReadonlyArray<NodeInfo>, start: number, want: number, random: TieBreak): Selection => {
  const n = nodes.length
  const feasible: NodeInfo[] = []
  const reasons: Array<ReadonlyArray<string>> = []
  let processed = 0
  for (let i = 0; i < n && feasible.length < want; i++) {
    const node = nodes[(start + i) % n]!
    processed++
    const r = filterNode(pod, node)
    if (r.length === 0) feasible.push(node)
    else reasons.push(r)
  }
  if (feasible.length === 0) return { processed, chosen: undefined, reasons }
  let chosen = feasible[0]!
  if (feasible.length > 1) {
    // Highest total; ties uniformly at random. Upstream samples a reservoir (one draw per tie); one draw over the
    // collected ties gives the same distribution for a fraction of the draws.
    const scores = scoreNodes(pod, feasible)
    let best = -1
    const ties: number[] = []
    for (let i = 0; i < feasible.length; i++) {
      const s = scores[i]!
      if (s > best) {
        best = s
        ties.length = 0
        ties.push(i)
      } else if (s === best) ties.push(i)
    }
    chosen = feasible[ties.length === 1 ? ties[0]! : ties[random.intBetween(0, ties.length)]!]!
  }
  return { processed, chosen, reasons }
}

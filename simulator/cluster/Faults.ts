/**
 * The scenario's faults, all known in advance, applied before the simulation starts: a node stop or partition is
 * written into its node (`stoppedAt`, `partitions`), a registry fault into the image pulls, an API server pause
 * into the pause windows, an API server restart into them and into the restart instants. What was applied, with the nodes chosen, goes into the result.
 */
import type { SeededRandomService } from "../kernel/SeededRandom.js"
import type { ImagePulls } from "../nodeagent/images/ImagePulls.js"
import type { Interval, SimulatedNode } from "../nodeagent/SimulatedNode.js"
import { selectNodes } from "./ClusterSetup.js"
import type { ClusterFault } from "./ClusterSpec.js"

/** A fault as the result reports it: times from the start, the nodes a `count` chose. */
export interface AppliedFault {
  readonly type: string
  readonly at: number
  readonly for?: number
  readonly nodes?: ReadonlyArray<string>
  readonly registry?: string
}

export const applyFaults = (
  faults: ReadonlyArray<ClusterFault>,
  nodes: ReadonlyArray<SimulatedNode>,
  startMillis: number,
  random: SeededRandomService,
  imagePulls: ImagePulls | undefined
): { readonly pauses: ReadonlyArray<Interval>; readonly restarts: ReadonlyArray<number>; readonly applied: ReadonlyArray<AppliedFault> } => {
  const byName = new Map(nodes.map((n) => [n.name, n]))
  const pauses: Array<Interval> = []
  const restarts: Array<number> = []
  const applied: Array<AppliedFault> = []
  for (const fault of faults) {
    const at = startMillis + fault.at
    if (fault.type === "apiserver-pause" || fault.type === "apiserver-restart") {
      pauses.push({ from: at, to: at + fault.for })
      if (fault.type === "apiserver-restart") restarts.push(at)
      applied.push({ type: fault.type, at: fault.at, for: fault.for })
      continue
    }
    if (fault.type === "registry-outage" || fault.type === "expire-registry-credentials") {
      imagePulls?.applyFault(fault)
      applied.push(fault.type === "registry-outage" ? { type: fault.type, at: fault.at, for: fault.for, registry: fault.registry } : { type: fault.type, at: fault.at, registry: fault.registry })
      continue
    }
    const names = selectNodes(fault, nodes, random)
    for (const name of names) {
      const node = byName.get(name)
      if (!node) continue
      if (fault.type === "stop-nodes") node.stoppedAt = Math.min(node.stoppedAt, at)
      else node.partitions.push({ from: at, to: at + fault.for })
    }
    applied.push(fault.type === "partition" ? { type: fault.type, at: fault.at, for: fault.for, nodes: names } : { type: fault.type, at: fault.at, nodes: names })
  }
  return { pauses, restarts, applied }
}

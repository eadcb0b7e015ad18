/**
 * Which taints a node's conditions call for (upstream `pkg/controller/nodelifecycle`: `doNoScheduleTaintingPass`
 * and the NoExecute taints of `processTaintBaseEviction`). Pure.
 */
import { TaintKeys } from "../../../src/api/WellKnown.js"
import type { NodeCondition } from "../../nodeagent/NodeStatus.js"

/** The NoSchedule taints this controller owns: it adds and removes only these. */
export const managedNoScheduleKeys: ReadonlyArray<string> = [
  TaintKeys.notReady,
  TaintKeys.unreachable,
  TaintKeys.memoryPressure,
  TaintKeys.diskPressure,
  TaintKeys.pidPressure,
  TaintKeys.networkUnavailable,
  TaintKeys.unschedulable
]

/** NoSchedule taints mirroring conditions (`doNoScheduleTaintingPass`). */
export const noScheduleTaintKeys = (conditions: ReadonlyArray<NodeCondition>, unschedulable: boolean): Array<string> => {
  const keys: Array<string> = []
  for (const c of conditions) {
    if (c.type === "Ready") {
      if (c.status === "False") keys.push(TaintKeys.notReady)
      else if (c.status === "Unknown") keys.push(TaintKeys.unreachable)
    } else if (c.status === "True") {
      if (c.type === "MemoryPressure") keys.push(TaintKeys.memoryPressure)
      else if (c.type === "DiskPressure") keys.push(TaintKeys.diskPressure)
      else if (c.type === "PIDPressure") keys.push(TaintKeys.pidPressure)
      else if (c.type === "NetworkUnavailable") keys.push(TaintKeys.networkUnavailable)
    }
  }
  if (unschedulable) keys.push(TaintKeys.unschedulable)
  return keys
}

/** The NoExecute taint a Ready status calls for: False → not-ready, Unknown → unreachable, True → none. */
export const noExecuteTaintKeyFor = (readyStatus: string): string | undefined =>
  readyStatus === "False" ? TaintKeys.notReady : readyStatus === "Unknown" ? TaintKeys.unreachable : undefined

/** The other NoExecute taint of the pair: a node carries at most one of not-ready and unreachable. */
export const otherNoExecuteKey = (key: string): string => (key === TaintKeys.notReady ? TaintKeys.unreachable : TaintKeys.notReady)

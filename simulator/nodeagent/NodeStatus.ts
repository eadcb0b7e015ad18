/**
 * What the node agent reports about its node (`pkg/kubelet/nodestatus/setters.go`): capacity,
 * the four conditions with their reasons and messages, and the rule deciding whether a status is posted. Pure.
 */
import type { KObject } from "../../src/api/Object.js"

export type ConditionType = "MemoryPressure" | "DiskPressure" | "PIDPressure" | "Ready"
export type ConditionStatus = "True" | "False" | "Unknown"

export interface NodeCondition {
  readonly type: string
  readonly status: string
  readonly reason?: string
  readonly message?: string
  readonly lastHeartbeatTime?: string
  readonly lastTransitionTime?: string
}

/** Reason and message per condition and status, as the setters write them (`setters.go`). */
export const conditionTexts = {
  MemoryPressure: {
    True: { reason: "NodeAgentHasInsufficientMemory", message: "node agent has insufficient memory available", event: "NodeHasInsufficientMemory" },
    False: { reason: "NodeAgentHasSufficientMemory", message: "node agent has sufficient memory available", event: "NodeHasSufficientMemory" }
  },
  DiskPressure: {
    True: { reason: "NodeAgentHasDiskPressure", message: "node agent has disk pressure", event: "NodeHasDiskPressure" },
    False: { reason: "NodeAgentHasNoDiskPressure", message: "node agent has no disk pressure", event: "NodeHasNoDiskPressure" }
  },
  PIDPressure: {
    True: { reason: "NodeAgentHasInsufficientPID", message: "node agent has insufficient PID available", event: "NodeHasInsufficientPID" },
    False: { reason: "NodeAgentHasSufficientPID", message: "node agent has sufficient PID available", event: "NodeHasSufficientPID" }
  },
  Ready: {
    True: { reason: "NodeAgentReady", message: "node agent is posting ready status", event: "NodeReady" },
    False: { reason: "NodeAgentNotReady", message: "", event: "NodeNotReady" }
  }
} as const

/** Setter order: pressures first, Ready last. */
export const conditionOrder: ReadonlyArray<ConditionType> = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"]

/** What the agent observes; the simulated node has no usage model yet, so it is healthy unless told otherwise. */
export interface NodeHealth {
  readonly memoryPressure: boolean
  readonly diskPressure: boolean
  readonly pidPressure: boolean
  /** Undefined = ready; otherwise the NotReady message (runtime/network errors). */
  readonly notReadyMessage?: string | undefined
}

export const healthy: NodeHealth = { memoryPressure: false, diskPressure: false, pidPressure: false }

/** The conditions the agent wants on its node, without times. */
export const desiredConditions = (h: NodeHealth): ReadonlyArray<NodeCondition> => {
  const pressure = (type: "MemoryPressure" | "DiskPressure" | "PIDPressure", on: boolean): NodeCondition => {
    const t = conditionTexts[type][on ? "True" : "False"]
    return { type, status: on ? "True" : "False", reason: t.reason, message: t.message }
  }
  const ready: NodeCondition =
    h.notReadyMessage === undefined
      ? { type: "Ready", status: "True", reason: conditionTexts.Ready.True.reason, message: conditionTexts.Ready.True.message }
      : { type: "Ready", status: "False", reason: conditionTexts.Ready.False.reason, message: h.notReadyMessage }
  return [pressure("MemoryPressure", h.memoryPressure), pressure("DiskPressure", h.diskPressure), pressure("PIDPressure", h.pidPressure), ready]
}

/**
 * Applies the desired conditions onto the server's: heartbeat every time, transition time only when the status
 * changed (a new condition counts as a change from Unknown).
 */
export const mergeConditions = (
  current: ReadonlyArray<NodeCondition>,
  desired: ReadonlyArray<NodeCondition>,
  now: string
): Array<NodeCondition> =>
  desired.map((d) => {
    const c = current.find((x) => x.type === d.type)
    const transition = c !== undefined && c.status === d.status && c.lastTransitionTime !== undefined ? c.lastTransitionTime : now
    return { type: d.type, status: d.status, lastHeartbeatTime: now, lastTransitionTime: transition, reason: d.reason ?? "", message: d.message ?? "" }
  })

/**
 * `nodeStatusHasChanged`: the status differs ignoring every condition's lastHeartbeatTime (`kubelet_node_status.go`),
 * here on the parts the simulated agent sets: conditions (type, status, reason, message, transition) and capacity.
 */
export const statusChanged = (
  server: ReadonlyArray<NodeCondition>,
  desired: ReadonlyArray<NodeCondition>,
  serverCapacity: Readonly<Record<string, string>> | undefined,
  capacity: Readonly<Record<string, string>>
): boolean => {
  if (server.length !== desired.length) return true
  for (const d of desired) {
    const c = server.find((x) => x.type === d.type)
    if (c === undefined || c.status !== d.status || (c.reason ?? "") !== (d.reason ?? "") || (c.message ?? "") !== (d.message ?? "")) return true
  }
  if (serverCapacity === undefined) return true
  for (const k of Object.keys(capacity)) if (serverCapacity[k] !== capacity[k]) return true
  return false
}

/** PATCH iff changed or the report period passed (`tryUpdateNodeStatus`). */
export const shouldPost = (changed: boolean, now: number, lastReport: number, reportFrequencyMs: number): boolean =>
  changed || now - lastReport >= reportFrequencyMs

/** `podsPerCore > 0 ? min(cores × podsPerCore, maxPods) : maxPods` (`setters.go` `MachineInfo`). */
export const podCapacity = (cores: number, podsPerCore: number, maxPods: number): number =>
  podsPerCore > 0 ? Math.min(Math.floor(cores * podsPerCore), maxPods) : maxPods

export const conditionsOf = (node: KObject | undefined): ReadonlyArray<NodeCondition> => {
  const status = node?.status as { conditions?: ReadonlyArray<NodeCondition> } | undefined
  return status?.conditions ?? []
}

export const readyConditionOf = (node: KObject | undefined): NodeCondition | undefined =>
  conditionsOf(node).find((c) => c.type === "Ready")

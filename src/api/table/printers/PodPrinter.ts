/**
 * Pod rows as upstream prints them (`pkg/printers/internalversion/printers.go` `printPod`): READY counts ready
 * running containers, STATUS is the phase refined by the containers' waiting/terminated reasons, init progress,
 * `Terminating` and `Unknown` (unreachable node), RESTARTS adds the last restart's age.
 */
import type { KObject } from "../../Object.js"
import { ageColumn, column, nameColumn } from "../Columns.js"
import { timestampSince } from "../HumanDuration.js"
import { arr, num, rec, str, type Printer, type RowCondition } from "../Printer.js"

const nodeUnreachablePodReason = "NodeLost"

const completed = (reason: string, message: string): ReadonlyArray<RowCondition> => [{ type: "Completed", status: "True", reason, message }]
const podSuccessConditions = completed("Succeeded", "The pod has completed successfully.")
const podFailedConditions = completed("Failed", "The pod failed.")

const isRestartableInit = (container: Record<string, unknown> | undefined) => container !== undefined && container.restartPolicy === "Always"

const finishedAt = (status: Record<string, unknown>): number | undefined => {
  const terminated = rec(rec(status.lastState).terminated)
  const t = Date.parse(str(terminated.finishedAt))
  return Number.isNaN(t) ? undefined : t
}

const terminatedReason = (terminated: Record<string, unknown>, prefix: string): string => {
  if (str(terminated.reason) !== "") return `${prefix}${str(terminated.reason)}`
  return num(terminated.signal) !== 0 ? `${prefix}Signal:${num(terminated.signal)}` : `${prefix}ExitCode:${num(terminated.exitCode)}`
}

const conditionTrue = (conditions: ReadonlyArray<unknown>, type: string) => conditions.some((c) => rec(c).type === type && rec(c).status === "True")

export const podPrinter: Printer = {
  columns: [
    nameColumn,
    column("Ready", "string", "The aggregate readiness state of this pod for accepting traffic."),
    column("Status", "string", "The aggregate status of the containers in this pod."),
    column("Restarts", "string", "The number of times the containers in this pod have been restarted and when the last container in this pod has restarted."),
    ageColumn,
    column("IP", "string", "podIP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.", { priority: 1 }),
    column("Node", "string", "NodeName is a request to schedule this pod onto a specific node. If it is non-empty, the scheduler simply schedules this pod onto that node, assuming that it fits resource requirements.", { priority: 1 }),
    column("Nominated Node", "string", "nominatedNodeName is set only when this pod preempts other pods on the node, but it cannot be scheduled right away as preemption victims receive their graceful termination periods. This field does not guarantee that the pod will be scheduled on this node. Scheduler may decide to place the pod elsewhere if other nodes become available sooner. Scheduler may also decide to give the resources on this node to a higher priority pod that is created after preemption. As a result, this field may be different than PodSpec.nodeName when the pod is scheduled.", { priority: 1 }),
    column("Readiness Gates", "string", "If specified, all readiness gates will be evaluated for pod readiness. A pod is ready when all its containers are ready AND all conditions specified in the readiness gates have status equal to \"True\" More info: https://git.k8s.io/enhancements/keps/sig-network/580-pod-readiness-gates", { priority: 1 })
  ],
  row: (pod: KObject, now: number) => {
    const spec = rec(pod.spec)
    const status = rec(pod.status)
    const containers = arr(spec.containers)
    const initContainers = arr(spec.initContainers).map(rec)
    const conditions = arr(status.conditions)
    let restarts = 0
    let restartableInitRestarts = 0
    let totalContainers = containers.length
    let readyContainers = 0
    let lastRestart: number | undefined
    let lastRestartableInitRestart: number | undefined
    const phase = str(status.phase)
    let reason = str(status.reason) || phase
    for (const c of conditions) if (rec(c).type === "PodScheduled" && rec(c).reason === "SchedulingGated") reason = "SchedulingGated"

    const initByName = new Map(initContainers.map((c) => [str(c.name), c]))
    for (const c of initContainers) if (isRestartableInit(c)) totalContainers++

    let initializing = false
    const initStatuses = arr(status.initContainerStatuses).map(rec)
    for (let i = 0; i < initStatuses.length; i++) {
      const container = initStatuses[i]!
      const state = rec(container.state)
      restarts += num(container.restartCount)
      const finished = finishedAt(container)
      if (finished !== undefined && (lastRestart === undefined || lastRestart < finished)) lastRestart = finished
      const restartable = isRestartableInit(initByName.get(str(container.name)))
      if (restartable) {
        restartableInitRestarts += num(container.restartCount)
        if (finished !== undefined && (lastRestartableInitRestart === undefined || lastRestartableInitRestart < finished)) lastRestartableInitRestart = finished
      }
      const terminated = state.terminated === undefined ? undefined : rec(state.terminated)
      const waiting = state.waiting === undefined ? undefined : rec(state.waiting)
      if (terminated && num(terminated.exitCode) === 0) continue
      if (restartable && container.started === true) {
        if (container.ready === true) readyContainers++
        continue
      }
      if (terminated) reason = terminatedReason(terminated, "Init:")
      else if (waiting && str(waiting.reason) !== "" && waiting.reason !== "PodInitializing") reason = `Init:${str(waiting.reason)}`
      else reason = `Init:${i}/${initContainers.length}`
      initializing = true
      break
    }

    if (!initializing || conditionTrue(conditions, "Initialized")) {
      restarts = restartableInitRestarts
      lastRestart = lastRestartableInitRestart
      let hasRunning = false
      const statuses = arr(status.containerStatuses).map(rec)
      for (let i = statuses.length - 1; i >= 0; i--) {
        const container = statuses[i]!
        const state = rec(container.state)
        restarts += num(container.restartCount)
        const finished = finishedAt(container)
        if (finished !== undefined && (lastRestart === undefined || lastRestart < finished)) lastRestart = finished
        const waiting = rec(state.waiting)
        const terminated = state.terminated === undefined ? undefined : rec(state.terminated)
        if (str(waiting.reason) !== "") reason = str(waiting.reason)
        else if (terminated) reason = terminatedReason(terminated, "")
        else if (container.ready === true && state.running !== undefined) {
          hasRunning = true
          readyContainers++
        }
      }
      if (reason === "Completed" && hasRunning) reason = conditionTrue(conditions, "Ready") ? "Running" : "NotReady"
    }

    if (pod.metadata.deletionTimestamp && status.reason === nodeUnreachablePodReason) reason = "Unknown"
    else if (pod.metadata.deletionTimestamp && phase !== "Succeeded" && phase !== "Failed") reason = "Terminating"

    const restartsCell = restarts !== 0 && lastRestart !== undefined ? `${restarts} (${timestampSince(new Date(lastRestart).toISOString(), now)} ago)` : String(restarts)
    const podIPs = arr(status.podIPs)
    const podIP = (podIPs.length > 0 ? str(rec(podIPs[0]).ip) : "") || "<none>"
    const gates = arr(spec.readinessGates)
    let readinessGates = "<none>"
    if (gates.length > 0) {
      let trueConditions = 0
      for (const gate of gates) {
        const found = conditions.find((c) => rec(c).type === rec(gate).conditionType)
        if (found && rec(found).status === "True") trueConditions++
      }
      readinessGates = `${trueConditions}/${gates.length}`
    }
    const cells = [
      pod.metadata.name ?? "",
      `${readyContainers}/${totalContainers}`,
      reason,
      restartsCell,
      timestampSince(pod.metadata.creationTimestamp, now),
      podIP,
      str(spec.nodeName) || "<none>",
      str(status.nominatedNodeName) || "<none>",
      readinessGates
    ]
    return phase === "Succeeded" ? { cells, conditions: podSuccessConditions } : phase === "Failed" ? { cells, conditions: podFailedConditions } : { cells }
  }
}

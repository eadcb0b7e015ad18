import { describe, expect, it } from "@effect/vitest"
import { desiredConditions, healthy, mergeConditions, podCapacity, shouldPost, statusChanged } from "../../simulator/nodeagent/NodeStatus.js"

describe("node status", () => {
  it("conditions in setter order with upstream's reasons and messages", () => {
    expect(desiredConditions(healthy).map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["MemoryPressure", "False", "NodeAgentHasSufficientMemory", "node agent has sufficient memory available"],
      ["DiskPressure", "False", "NodeAgentHasNoDiskPressure", "node agent has no disk pressure"],
      ["PIDPressure", "False", "NodeAgentHasSufficientPID", "node agent has sufficient PID available"],
      ["Ready", "True", "NodeAgentReady", "node agent is posting ready status"]
    ])
    const pressured = desiredConditions({ memoryPressure: true, diskPressure: true, pidPressure: true, notReadyMessage: "container runtime is down" })
    expect(pressured.map((c) => [c.status, c.reason, c.message])).toEqual([
      ["True", "NodeAgentHasInsufficientMemory", "node agent has insufficient memory available"],
      ["True", "NodeAgentHasDiskPressure", "node agent has disk pressure"],
      ["True", "NodeAgentHasInsufficientPID", "node agent has insufficient PID available"],
      ["False", "NodeAgentNotReady", "container runtime is down"]
    ])
  })

  it("heartbeat every time, transition only on a status change", () => {
    const first = mergeConditions([], desiredConditions(healthy), "2026-01-01T00:00:00Z")
    const again = mergeConditions(first, desiredConditions(healthy), "2026-01-01T00:00:10Z")
    expect(again.every((c) => c.lastHeartbeatTime === "2026-01-01T00:00:10Z" && c.lastTransitionTime === "2026-01-01T00:00:00Z")).toBe(true)
    const unknown = again.map((c) => (c.type === "Ready" ? { ...c, status: "Unknown" } : c))
    const healed = mergeConditions(unknown, desiredConditions(healthy), "2026-01-01T00:01:00Z")
    expect(healed.find((c) => c.type === "Ready")!.lastTransitionTime).toBe("2026-01-01T00:01:00Z")
  })

  it("changed ignores heartbeats; posts on change or after the report frequency", () => {
    const capacity = { cpu: "4", memory: "16Gi", pods: "110" }
    const first = mergeConditions([], desiredConditions(healthy), "2026-01-01T00:00:00Z")
    const later = mergeConditions(first, desiredConditions(healthy), "2026-01-01T00:00:10Z")
    expect(statusChanged(later, desiredConditions(healthy), capacity, capacity)).toBe(false)
    expect(statusChanged(later.map((c) => (c.type === "Ready" ? { ...c, status: "Unknown" } : c)), desiredConditions(healthy), capacity, capacity)).toBe(true)
    expect(statusChanged(later, desiredConditions(healthy), { ...capacity, pods: "100" }, capacity)).toBe(true)
    expect(shouldPost(false, 299_999, 0, 300_000)).toBe(false)
    expect(shouldPost(false, 300_000, 0, 300_000)).toBe(true)
    expect(shouldPost(true, 1, 0, 300_000)).toBe(true)
  })

  it("pod capacity = min(cores × podsPerCore, maxPods) when podsPerCore > 0", () => {
    expect(podCapacity(4, 0, 110)).toBe(110)
    expect(podCapacity(4, 10, 110)).toBe(40)
    expect(podCapacity(32, 10, 110)).toBe(110)
  })
})

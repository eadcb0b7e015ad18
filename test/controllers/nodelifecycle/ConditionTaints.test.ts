/** The taints node conditions call for (upstream `doNoScheduleTaintingPass`, `processTaintBaseEviction`). */
import { describe, expect, it } from "@effect/vitest"
import { TaintKeys } from "../../../src/api/WellKnown.js"
import { managedNoScheduleKeys, noExecuteTaintKeyFor, noScheduleTaintKeys, otherNoExecuteKey } from "../../../simulator/controllers/nodelifecycle/ConditionTaints.js"

describe("taints from conditions", () => {
  it("NoSchedule mirrors Ready False / Unknown and the pressures", () => {
    expect(noScheduleTaintKeys([{ type: "Ready", status: "Unknown" }], false)).toEqual(["node.platform.io/unreachable"])
    expect(noScheduleTaintKeys([{ type: "Ready", status: "False" }, { type: "MemoryPressure", status: "True" }], true)).toEqual([
      "node.platform.io/not-ready",
      "node.platform.io/memory-pressure",
      "node.platform.io/unschedulable"
    ])
    expect(noScheduleTaintKeys([{ type: "Ready", status: "True" }, { type: "DiskPressure", status: "False" }], false)).toEqual([])
    expect(noScheduleTaintKeys([{ type: "PIDPressure", status: "True" }, { type: "NetworkUnavailable", status: "True" }], false)).toEqual([
      "node.platform.io/pid-pressure",
      "node.platform.io/network-unavailable"
    ])
  })

  it("every key it sets is one it manages", () => {
    const all = noScheduleTaintKeys(
      ["MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable"].map((type) => ({ type, status: "True" })).concat([{ type: "Ready", status: "False" }]),
      true
    )
    expect(all.every((k) => managedNoScheduleKeys.includes(k))).toBe(true)
    expect(managedNoScheduleKeys).toContain(TaintKeys.unreachable)
  })

  it("NoExecute: False → not-ready, Unknown → unreachable, True → none; the pair swaps", () => {
    expect(noExecuteTaintKeyFor("False")).toBe("node.platform.io/not-ready")
    expect(noExecuteTaintKeyFor("Unknown")).toBe("node.platform.io/unreachable")
    expect(noExecuteTaintKeyFor("True")).toBeUndefined()
    expect(otherNoExecuteKey(TaintKeys.notReady)).toBe(TaintKeys.unreachable)
    expect(otherNoExecuteKey(TaintKeys.unreachable)).toBe(TaintKeys.notReady)
  })
})

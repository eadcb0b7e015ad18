import { describe, expect, it } from "@effect/vitest"
import {
  evictionDelayMs,
  noExecuteTaintKeyFor,
  noScheduleTaintKeys,
  tolerates,
  zoneRate,
  ZoneRateLimiter,
  zoneState
} from "../../simulator/controllers/NodeTaints.js"

const unreachable = { key: "node.platform.io/unreachable", effect: "NoExecute" }
const notReady = { key: "node.platform.io/not-ready", effect: "NoExecute" }

describe("taints from conditions", () => {
  it("NoSchedule mirrors Ready False / Unknown and the pressures", () => {
    expect(noScheduleTaintKeys([{ type: "Ready", status: "Unknown" }], false)).toEqual(["node.platform.io/unreachable"])
    expect(noScheduleTaintKeys([{ type: "Ready", status: "False" }, { type: "MemoryPressure", status: "True" }], true)).toEqual([
      "node.platform.io/not-ready",
      "node.platform.io/memory-pressure",
      "node.platform.io/unschedulable"
    ])
    expect(noScheduleTaintKeys([{ type: "Ready", status: "True" }, { type: "DiskPressure", status: "False" }], false)).toEqual([])
  })

  it("NoExecute: False → not-ready, Unknown → unreachable, True → none", () => {
    expect(noExecuteTaintKeyFor("False")).toBe("node.platform.io/not-ready")
    expect(noExecuteTaintKeyFor("Unknown")).toBe("node.platform.io/unreachable")
    expect(noExecuteTaintKeyFor("True")).toBeUndefined()
  })
})

describe("taint manager delays", () => {
  it("uses the smallest tolerationSeconds of the tolerations that match", () => {
    const tolerations = [
      { key: "node.platform.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { operator: "Exists", tolerationSeconds: 600 }
    ]
    expect(evictionDelayMs(tolerations, [unreachable])).toBe(300_000)
  })

  it("deletes at once without a matching toleration and never without tolerationSeconds", () => {
    expect(evictionDelayMs([{ key: "node.platform.io/unreachable", operator: "Exists", effect: "NoExecute" }], [notReady])).toBe(0)
    expect(evictionDelayMs([{ operator: "Exists" }], [unreachable])).toBeUndefined()
    expect(evictionDelayMs([{ key: "node.platform.io/unreachable", operator: "Exists", tolerationSeconds: -5 }], [unreachable])).toBe(0)
  })

  it("Equal needs the value, an empty effect matches every effect", () => {
    expect(tolerates({ key: "k", value: "v" }, { key: "k", value: "v", effect: "NoExecute" })).toBe(true)
    expect(tolerates({ key: "k", value: "w" }, { key: "k", value: "v", effect: "NoExecute" })).toBe(false)
    expect(tolerates({ key: "k", operator: "Exists", effect: "NoSchedule" }, { key: "k", effect: "NoExecute" })).toBe(false)
  })
})

describe("zones", () => {
  it("ComputeZoneState", () => {
    expect(zoneState(0, 3, 0.55)).toBe("FullDisruption")
    expect(zoneState(2, 3, 0.55)).toBe("PartialDisruption")
    expect(zoneState(10, 2, 0.55)).toBe("Normal")
    expect(zoneState(5, 3, 0.55)).toBe("Normal")
    expect(zoneState(0, 0, 0.55)).toBe("Normal")
  })

  it("rates per state and zone size", () => {
    const r = { evictionRate: 0.1, secondaryEvictionRate: 0.01, largeClusterSizeThreshold: 50 }
    expect(zoneRate("Normal", 10, r)).toBe(0.1)
    expect(zoneRate("FullDisruption", 10, r)).toBe(0.1)
    expect(zoneRate("PartialDisruption", 51, r)).toBe(0.01)
    expect(zoneRate("PartialDisruption", 50, r)).toBe(0)
  })

  it("the limiter starts full, then lets one node through every 10 s at 0.1/s", () => {
    const l = new ZoneRateLimiter(0.1, 1)
    expect(l.tryAccept(0)).toBe(true)
    expect(l.tryAccept(100)).toBe(false)
    expect(l.nextTokenAt(100)).toBeCloseTo(10_000, 6)
    expect(l.tryAccept(9_999)).toBe(false)
    expect(l.tryAccept(10_000)).toBe(true)
    const stopped = new ZoneRateLimiter(0, 1)
    expect(stopped.tryAccept(0)).toBe(false)
    expect(stopped.nextTokenAt(0)).toBe(Infinity)
  })
})

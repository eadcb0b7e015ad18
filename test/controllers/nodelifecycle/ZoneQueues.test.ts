/** Zone states, their tainting rates and the per-zone limiter (upstream `ComputeZoneState`, `setLimiterInZone`). */
import { describe, expect, it } from "@effect/vitest"
import { printableZone, zoneKeyOf, zoneRate, zoneState } from "../../../simulator/controllers/nodelifecycle/ZoneQueues.js"
import { ZoneRateLimiter } from "../../../simulator/controllers/nodelifecycle/ZoneRateLimiter.js"

describe("zones", () => {
  it("ComputeZoneState", () => {
    expect(zoneState(0, 3, 0.55)).toBe("FullDisruption")
    expect(zoneState(2, 3, 0.55)).toBe("PartialDisruption")
    expect(zoneState(10, 2, 0.55)).toBe("Normal")
    expect(zoneState(5, 3, 0.55)).toBe("Normal")
    expect(zoneState(0, 0, 0.55)).toBe("Normal")
  })

  it("rates per state and zone size: --node-eviction-rate, --secondary-node-eviction-rate above --large-cluster-size-threshold", () => {
    const r = { evictionRate: 0.1, secondaryEvictionRate: 0.01, largeClusterSizeThreshold: 50 }
    expect(zoneRate("Normal", 10, r)).toBe(0.1)
    expect(zoneRate("FullDisruption", 10, r)).toBe(0.1)
    expect(zoneRate("PartialDisruption", 51, r)).toBe(0.01)
    expect(zoneRate("PartialDisruption", 50, r)).toBe(0)
  })

  it("a zone key is region and zone; printed as region/zone", () => {
    const key = zoneKeyOf({ metadata: { name: "n", labels: { "topology.platform.io/region": "r1", "topology.platform.io/zone": "a" } } })
    expect(printableZone(key)).toBe("r1/a")
    expect(printableZone(zoneKeyOf({ metadata: { name: "n" } }))).toBe("/")
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

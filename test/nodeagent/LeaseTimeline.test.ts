import { describe, expect, it } from "@effect/vitest"
import { LeaseTimeline, timelineIntervalMs } from "../../simulator/nodeagent/LeaseTimeline.js"

describe("LeaseTimeline", () => {
  it("counts writes and failures per interval from the run's origin, with each interval's renew latency", () => {
    const origin = 1_000_000
    const t = new LeaseTimeline(origin, 60_000)
    expect(t.intervalMs).toBe(10_000)
    t.write(origin + 500, 2)
    t.write(origin + 9_999, 4)
    t.failure(origin + 25_000)
    t.write(origin + 31_000, 1_000)
    const r = t.result(40_000)
    expect(r.writes).toEqual([2, 0, 0, 1])
    expect(r.failures).toEqual([0, 0, 1, 0])
    // two significant digits: a value comes back within 1 % (the bucket's highest equivalent value)
    const near = (v: number | null, to: number) => v !== null && v >= to && v <= to * 1.01
    expect(r.renewP50.map((v) => (v === null ? null : Math.round(v)))).toEqual([2, null, null, 1004])
    expect([near(r.renewP50[0]!, 2), near(r.renewP99[0]!, 4), near(r.renewP99[3]!, 1000)]).toEqual([true, true, true])
    expect(r.renewP99[1]).toBeNull()
  })

  it("covers the time reached even when its last intervals had no writes", () => {
    const t = new LeaseTimeline(0, 60_000)
    t.write(100, 1)
    expect(t.result(60_000).writes).toEqual([1, 0, 0, 0, 0, 0])
  })

  it("at most 240 intervals, never shorter than the 10 s renew interval", () => {
    expect([90_000, 2_400_000, 2_400_001, 3_600_000, 86_400_000].map(timelineIntervalMs)).toEqual([10_000, 10_000, 30_000, 30_000, 600_000])
  })
})

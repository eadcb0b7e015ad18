import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { parse } from "yaml"
import { runScenarioSections } from "../../simulator/scheduler/ScenarioSections.js"

const load = (name: string) => parse(readFileSync(new URL(`../../scenarios/${name}`, import.meta.url), "utf8")) as Record<string, unknown>

describe("scenario files", () => {
  it("leader-failover.yaml: failover measured, every pod bound", () => {
    const r = runScenarioSections(load("leader-failover.yaml")).scheduler!
    expect(r.binds).toBe(610)
    expect(r.events.byReason.FailedScheduling).toBeGreaterThanOrEqual(2)
    expect(r.leaseTransitions).toBe(1)
    expect(r.failover!.killedAtMs).toBe(60_000)
    expect(r.failover!.leaderLostToNewLeaderMs!).toBeLessThanOrEqual(19_400)
    expect(r.failover!.totalMs!).toBeLessThanOrEqual(19_400 + 1000)
  })
  it("memory-pressure.yaml: evictions in ranking order, condition timeline", () => {
    const r = runScenarioSections(load("memory-pressure.yaml")).eviction!
    expect(r.evictions.map((e) => [e.atMs, e.pod])).toEqual([
      [390_000, "default/leaky-cache"],
      // Passes run 1 s after an eviction, then every 10 s: 391, 401, … 721 s.
      [721_000, "default/batch-job"]
    ])
    expect(r.conditions).toEqual([
      { atMs: 360_000, conditions: ["MemoryPressure"] },
      // Cleared at the first pass ≥ evictionPressureTransitionPeriod (5m) after the last breach (390 s, 721 s).
      { atMs: 691_000, conditions: [] },
      { atMs: 721_000, conditions: ["MemoryPressure"] },
      { atMs: 1_022_000, conditions: [] }
    ])
    expect(r.podPhases["platform-system/metrics-agent"]).not.toBe("Failed")
    expect(r.events.Evicted).toBe(r.evictions.length)
  })
})

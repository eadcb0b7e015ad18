import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { runSimulation } from "../../simulator/cluster/ClusterRun.js"
import type { EvictionScenarioResult } from "../../simulator/nodeagent/eviction/EvictionScenario.js"
import type { SchedulerScenarioResult } from "../../simulator/scheduler/SchedulerScenario.js"
import { parseScenario } from "../../app/scenario/load.js"
import { simulationOf } from "../../app/scenario/Simulated.js"

/** A shipped scenario file, decoded as `clustersim run` decodes it, run in its one simulation. */
const simulate = (name: string) =>
  Effect.gen(function* () {
    const file = fileURLToPath(new URL(`../../scenarios/${name}`, import.meta.url))
    const loaded = parseScenario(readFileSync(file, "utf8"), file)
    if (Either.isLeft(loaded)) return yield* Effect.die(loaded.left)
    const s = loaded.right.scenario
    return yield* runSimulation(simulationOf(s, s.seed ?? 1, "."))
  })

describe("scenario files", () => {
  it.live("leader-failover.yaml: failover measured, every pod bound", () =>
    Effect.gen(function* () {
    const r = (yield* simulate("leader-failover.yaml")).sections.scheduler as SchedulerScenarioResult
    expect(r.binds).toBe(610)
    expect(r.events.byReason.FailedScheduling).toBeGreaterThanOrEqual(2)
    expect(r.leaseTransitions).toBe(1)
    expect(r.failover!.killedAtMs).toBe(60_000)
    expect(r.failover!.leaderLostToNewLeaderMs!).toBeLessThanOrEqual(19_400)
    expect(r.failover!.totalMs!).toBeLessThanOrEqual(19_400 + 1000)
  }))
  it.live("memory-pressure.yaml: evictions in ranking order, condition timeline", () =>
    Effect.gen(function* () {
    const r = (yield* simulate("memory-pressure.yaml")).sections.eviction as EvictionScenarioResult
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
  }))
})

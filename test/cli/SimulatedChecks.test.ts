/**
 * The virtual-time outcome rows (app/cli/drivers/VirtualTimeDriver.ts `simulatedChecks`, docs/scenarios.md "Honest
 * outcomes"): a simulated run whose agents' requests were refused, whose section did not finish, or whose scheduler
 * created or bound nothing does not pass; a run without failures gets no row. And the warning for a fault past the end.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { readFileSync } from "node:fs"
import { pastTheEnd, simulatedChecks } from "../../app/cli/drivers/VirtualTimeDriver.js"
import { parseScenario } from "../../app/scenario/load.js"
import { parseSetOverrides } from "../../app/scenario/SetOverrides.js"
import { simulationOf } from "../../app/scenario/Simulated.js"
import { renderSections } from "../../reports/summary.js"
import { runSimulation } from "../../simulator/cluster/ClusterRun.js"

const BASE = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: base }
duration: 1m
cluster: { nodes: 4, podsPerNode: 1 }
phases: []
`

type Scenario = Parameters<typeof simulationOf>[0]

/**
 * The rows of a scenario's simulation (text or a shipped file), with `--set` overrides; `tamper` changes the checked
 * scenario afterwards, for what validation refuses up front (these rows are the defence behind it: what the server
 * refuses at run time).
 */
const rowsOf = (text: string, file: string, sets: ReadonlyArray<string> = [], tamper: (s: Scenario) => Scenario = (s) => s) => {
  const parsed = parseScenario(text, file, ".", { sets: Either.getOrThrow(parseSetOverrides(sets)) })
  if (Either.isLeft(parsed)) throw new Error(parsed.left.message)
  const result = Effect.runSync(runSimulation({ ...simulationOf(tamper(parsed.right.scenario), 1, "."), hostTurns: false }))
  return simulatedChecks(result).map((r) => ({ threshold: r.threshold, group: r.group, passed: r.passed, observed: r.observed }))
}

describe("virtual-time outcome rows", () => {
  it("none for a run whose requests all succeeded", () => {
    expect(rowsOf(BASE, "base.yaml")).toEqual([])
  })

  it("node agents whose registration is refused (422: an invalid node name, an invalid zone label) fail the run", () => {
    const names = rowsOf(BASE, "base.yaml", [], (s) => ({ ...s, cluster: { ...s.cluster!, namePrefix: "Node_" } }))
    expect(names).toHaveLength(1)
    expect(names[0]).toMatchObject({ threshold: "outcome:node-agent-requests", passed: false })
    expect(names[0]!.observed).toBeGreaterThan(0)
    const zones = rowsOf(BASE, "base.yaml", [], (s) => ({ ...s, cluster: { ...s.cluster!, zones: ["zone a"] } }))
    expect(zones.map((r) => [r.threshold, r.passed])).toEqual([["outcome:node-agent-requests", false]])
    expect(zones[0]!.observed).toBeGreaterThan(0)
  })

  it("an unreachable server is the fault's effect, not a refused request: a partition adds no row", () => {
    expect(rowsOf(BASE, "base.yaml", ["faults=[{type: partition, at: 10s, for: 30s, count: 2}]"])).toEqual([])
  })

  it("a section that did not finish fails the run", () => {
    const text = readFileSync("scenarios/memory-pressure.yaml", "utf8")
    const badNode = (s: Scenario): Scenario => ({ ...s, eviction: { ...s.eviction!, node: { ...s.eviction!.node, name: "Bad_Node" } } })
    expect(rowsOf(text, "scenarios/memory-pressure.yaml", ["duration=1m"], badNode)).toEqual([
      { threshold: "outcome:section-finished", group: { name: "eviction" }, passed: false, observed: 0 }
    ])
  })

  it("a scheduler whose pods were never created, or that bound none, fails the run", () => {
    const text = readFileSync("scenarios/leader-failover.yaml", "utf8")
    expect(rowsOf(text, "scenarios/leader-failover.yaml")).toEqual([])
    const badPrefix = (s: Scenario): Scenario => ({ ...s, scheduler: { ...s.scheduler!, batches: s.scheduler!.batches.map((b, i) => (i === 0 ? { ...b, namePrefix: "Pod_" } : b)) } })
    const notCreated = rowsOf(text, "scenarios/leader-failover.yaml", [], badPrefix)
    expect(notCreated.map((r) => [r.threshold, r.passed])).toEqual([["outcome:scheduler-requests", false]])
    expect(notCreated[0]!.observed).toBeGreaterThan(0)
    expect(rowsOf(text, "scenarios/leader-failover.yaml", ["scheduler.replicas=1", "scheduler.killLeaderAt=0s"])).toEqual([
      { threshold: "outcome:scheduler-binds", group: {}, passed: false, observed: 0 }
    ])
  })
})

describe("a fault past the run's end", () => {
  it("gets a warning line; one before the end none", () => {
    expect(pastTheEnd([{ type: "stop-nodes", at: 60_000, nodes: ["node-1"] }, { type: "stop-nodes", at: 5_000, nodes: ["node-2"] }], 10_000)).toEqual([
      "clustersim: warning: faults[0] (stop-nodes at 1m00s) does not happen: the run ends at 10s\n"
    ])
  })
})

describe("the scheduler's killLeaderAt", () => {
  const text = readFileSync("scenarios/leader-failover.yaml", "utf8")
  const sectionOf = (sets: ReadonlyArray<string>) => {
    const parsed = parseScenario(text, "scenarios/leader-failover.yaml", ".", { sets: Either.getOrThrow(parseSetOverrides(sets)) })
    if (Either.isLeft(parsed)) throw new Error(parsed.left.message)
    return Effect.runSync(runSimulation({ ...simulationOf(parsed.right.scenario, 1, "."), hostTurns: false })).sections.scheduler as { failover?: unknown; leaseTransitions?: number }
  }

  it("at the section's end does not happen, as a fault at the run's end", () => {
    expect(sectionOf(["scheduler.killLeaderAt=3m"]).failover).toBeUndefined()
    expect(sectionOf(["scheduler.killLeaderAt=2m59s"]).failover).toMatchObject({ killedAtMs: 179_000 })
  })

  it("a kill before any replica led says so instead of a leader killed and a new one", () => {
    const lines = renderSections({
      scheduler: { podsCreated: 10, binds: 10, podsBound: 10, leaseTransitions: 0, failover: { killedAtMs: 0, beforeAnyLeader: true, leaderLostToNewLeaderMs: 3, newLeaderToFirstBindMs: 0 } }
    })
    expect(lines).toContain("  failover: a replica killed at 0s, before any replica led (no leader lost), first leader after 3ms, its first bind at once")
  })
})

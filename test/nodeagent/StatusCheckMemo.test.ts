/**
 * The status check's decisions from small integers (simulator/nodeagent/StatusCheckMemo.ts) are the plain rules':
 * `reportDue` is `shouldPost` for any last report, instant and frequency, and a run of checks through
 * `StatusReporter` — Node writes, health changes, reports falling due — posts exactly when the general rule
 * (compare the Node object and health with those last found unchanged, then `shouldPost`) says, at the same times.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { WriteResult } from "../../src/api/Requests.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { defaultParameters, ServiceTimeModel } from "../../simulator/apiserver/ServiceTime.js"
import { NodeAgentMetrics } from "../../simulator/nodeagent/AgentEnvironment.js"
import { makeAgentState, type AgentState } from "../../simulator/nodeagent/AgentState.js"
import { desiredConditions, healthy, mergeConditions, shouldPost, statusChanged, type NodeCondition, type NodeHealth } from "../../simulator/nodeagent/NodeStatus.js"
import { Kind, ShardContext } from "../../simulator/nodeagent/ShardContext.js"
import { makeNode } from "../../simulator/nodeagent/SimulatedNode.js"
import { reportDue, reported, reportGuard, setCurrent } from "../../simulator/nodeagent/StatusCheckMemo.js"
import { StatusReporter } from "../../simulator/nodeagent/StatusReporter.js"
import { agentSettings } from "./settings.js"

const noJitter = { seed: 0, next: () => 0, between: () => 0, int: () => 0, split: () => noJitter } as never
const epoch = Date.UTC(2026, 0, 1)
const agent = (): AgentState => makeAgentState(makeNode({ name: "node-0", zone: "z", region: "r", cpu: "4", memory: "16Gi", pods: 110, startAt: 0 }), agentSettings, [])

describe("status check memo", () => {
  it("reportDue answers shouldPost for any last report, instant and frequency", () => {
    const lasts = [-Infinity, 0, 1_000, 1_234.5, epoch, epoch + 0.004, epoch + 299_999.996, epoch + 1_000_000.5, 2 ** 41 - 0.25, 2 ** 53]
    const frequencies = [0, 1, 999, 1_000, 1_001, 10_000, 300_000, 300_000.5, 1e12, Infinity, Number.NaN]
    const offsets = [-2_000, -1_001, -1_000, -999, -1, -0.5, -0.004, 0, 0.004, 0.25, 1, 999, 1_000, 5_000]
    let compared = 0
    let guarded = 0
    for (const last of lasts)
      for (const frequency of frequencies) {
        const a = agent()
        reported(a, last, frequency)
        if (a.reportNotBefore > 0) guarded++
        const due = last + frequency
        const instants = [0, 1_000, epoch, ...offsets.map((d) => due + d), ...offsets.map((d) => last + d)].filter(Number.isFinite)
        for (const t of instants) {
          expect([last, frequency, t, reportDue(a, t, frequency)]).toEqual([last, frequency, t, shouldPost(false, t, a.lastReport, frequency)])
          compared++
        }
      }
    // the guard is in use (not always 0), and a small integer for this century's times
    expect(guarded).toBeGreaterThan(40)
    expect(compared).toBeGreaterThan(1_000)
    expect(reportGuard(epoch + 0.004, 300_000)).toBe(Math.floor((epoch + 300_000) / 1_000) - 1)
    expect(reportGuard(-Infinity, 300_000)).toBe(0)
  })

  it("a run of status checks posts when the general rule does, at the same times", () => {
    const patches: Array<number> = []
    const client: Partial<ApiClientService> = {
      patch: () => Effect.sync((): WriteResult => (patches.push(1), { code: 200, object: { metadata: { name: "node-0" } }, warnings: [] }))
    }
    const model = new ServiceTimeModel(defaultParameters)
    const ctx = new ShardContext({ client: client as ApiClientService, serviceTime: model, settings: agentSettings, metrics: new NodeAgentMetrics(), pauses: [], resolutionMs: 1_000 }, noJitter)
    const reporter = new StatusReporter(ctx, () => {})
    const a = agent()
    const frequency = agentSettings.nodeStatusReportFrequencyMs
    const pressured: NodeHealth = { ...healthy, memoryPressure: true }
    const nodeFor = (h: NodeHealth): KObject => ({
      metadata: { name: "node-0" },
      status: { capacity: a.capacity, conditions: mergeConditions([], desiredConditions(h), "2026-01-01T00:00:00Z") }
    })
    // the general rule's own memory: the Node object and health last found unchanged
    let checked: KObject | undefined
    let checkedHealth: NodeHealth | undefined
    let random = 7
    const draw = (n: number): number => ((random = (Math.imul(random, 1103515245) + 12345) >>> 0), random % n)

    setCurrent(a, nodeFor(healthy))
    reported(a, epoch, frequency)
    let t = epoch + 10_000
    const decisions: Array<string> = []
    for (let step = 0; step < 2_000; step++) {
      const roll = draw(20)
      if (roll < 4) setCurrent(a, nodeFor(draw(2) === 0 ? healthy : pressured)) // a write, with or without a change
      else if (roll < 6) a.health = draw(2) === 0 ? healthy : { ...pressured } // a change, or equal values anew
      else if (roll < 7) setCurrent(a, a.current) // the same object delivered again
      // the general rule, on the state the check will see
      const current = a.current!
      let changed = false
      if (current !== checked || a.health !== checkedHealth) {
        const status = current.status as { conditions: ReadonlyArray<NodeCondition>; capacity: Record<string, string> }
        changed = statusChanged(status.conditions, desiredConditions(a.health), status.capacity, a.capacity)
        checked = changed ? undefined : current
        checkedHealth = changed ? undefined : a.health
      }
      const general = shouldPost(changed, t, a.lastReport, frequency)
      const before = patches.length
      const request = reporter.check(a, t)
      if (request !== undefined) Effect.runSync(request)
      const popped = ctx.due.popDue(Infinity)
      expect(popped).toBe(a)
      const next = ctx.due.time
      expect(ctx.due.tag).toBe(Kind.Status)
      expect(ctx.due.popDue(Infinity)).toBeUndefined()
      decisions.push(`${t} ${general} ${patches.length - before} ${a.lastReport} ${next}`)
      expect([step, patches.length - before]).toEqual([step, general ? 1 : 0])
      // checks every period, now and then a long gap (a report falls due between two checks)
      t = draw(50) === 0 ? next + 290_000 + draw(20_000) : next
    }
    // both kinds of decision were taken, often
    const posted = decisions.filter((d) => d.split(" ")[1] === "true").length
    expect(posted).toBeGreaterThan(200)
    expect(decisions.length - posted).toBeGreaterThan(500)
    expect(ctx.env.metrics.statusPatches).toBe(posted)
  })
})

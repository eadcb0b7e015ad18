/**
 * The node status check's timing (StatusReporter.ts): a check that posts counts its next period from when the model
 * answers its PATCH — known when the PATCH is booked, also when the answer itself comes after the check returned (the
 * server paused at the shard's instant answers with an effect, run by the shard's fiber).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { WriteResult } from "../../src/api/Requests.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { defaultParameters, ServiceTimeModel } from "../../simulator/apiserver/ServiceTime.js"
import { NodeAgentMetrics } from "../../simulator/nodeagent/AgentEnvironment.js"
import { makeAgentState } from "../../simulator/nodeagent/AgentState.js"
import { Kind, ShardContext } from "../../simulator/nodeagent/ShardContext.js"
import { makeNode } from "../../simulator/nodeagent/SimulatedNode.js"
import { StatusReporter } from "../../simulator/nodeagent/StatusReporter.js"
import { agentSettings } from "./settings.js"

/** No jitter: a period is exactly its interval. */
const noJitter = { seed: 0, next: () => 0, between: () => 0, int: () => 0, split: () => noJitter } as never

describe("node status check", () => {
  it("counts its next period from the PATCH's modelled answer when that answer comes after the check", () => {
    const node: KObject = { metadata: { name: "node-0" }, status: { conditions: [] } }
    const patched: Array<number> = []
    // no immediate view: the PATCH is answered by an effect, run after `check` returned
    const client: Partial<ApiClientService> = {
      patch: () => Effect.sync((): WriteResult => (patched.push(1), { code: 200, object: node, warnings: [] }))
    }
    const model = new ServiceTimeModel(defaultParameters)
    const ctx = new ShardContext({ client: client as ApiClientService, serviceTime: model, settings: agentSettings, metrics: new NodeAgentMetrics(), pauses: [], resolutionMs: 1_000 }, noJitter)
    const reporter = new StatusReporter(ctx, () => {})
    const a = makeAgentState(makeNode({ name: "node-0", zone: "z", region: "r", cpu: "4", memory: "16Gi", pods: 110, startAt: 0 }), agentSettings, [])
    a.current = node

    const request = reporter.check(a, 1_000)
    // the GET (rv 0, from the watch cache) answers at once; the PATCH is booked after it, its answer still to come
    const read = 1_000 + model.serviceMs("read", 1, 1_600)
    const written = read + model.serviceMs("mutating", 0, 1_600)
    expect(request).toBeDefined()
    expect(patched).toEqual([])
    expect(written - read).toBeGreaterThan(1)
    expect(ctx.due.popDue(Infinity)).toBe(a)
    expect({ time: ctx.due.time, kind: ctx.due.tag }).toEqual({ time: Math.round(written + agentSettings.nodeStatusUpdateFrequencyMs), kind: Kind.Status })

    Effect.runSync(request!)
    expect(patched).toEqual([1])
    expect(a.lastReport).toBe(read)
    expect(ctx.env.metrics.statusPatches).toBe(1)
  })
})

/**
 * The lease renewer keeps a renewal's own values (its body, when it was due, its modelled end) in the agent's state
 * and answers through functions made once per renewer (`ShardContext.send` hands them the agent). In real time the
 * answers come later and in any order: each must land on its own agent, with its own due time.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { WriteResult } from "../../src/api/Requests.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { microTime } from "../../simulator/apiserver/SystemMeta.js"
import { ServiceTimeModel } from "../../simulator/apiserver/ServiceTime.js"
import { NodeAgentMetrics, type NodeAgentEnvironment } from "../../simulator/nodeagent/AgentEnvironment.js"
import { makeAgentState, type AgentState } from "../../simulator/nodeagent/AgentState.js"
import { LeaseRenewer } from "../../simulator/nodeagent/LeaseRenewer.js"
import { Kind, ShardContext } from "../../simulator/nodeagent/ShardContext.js"
import { makeNode } from "../../simulator/nodeagent/SimulatedNode.js"
import { agentSettings } from "./settings.js"


/** No jitter: a renewal is due exactly one interval (10 s) after the last one's answer. */
const noJitter = { seed: 0, next: () => 0, between: () => 0, int: () => 0, split: () => noJitter } as never

describe("LeaseRenewer", () => {
  it("attributes answers that come later, out of order, to the renewal of their own agent", () => {
    let clock = 0
    const sent: Array<KObject> = []
    const client = {
      update: (_resource, obj) => {
        sent.push(obj)
        // Answered when run (later), with the lease as stored: the renewal's own body at a new resourceVersion.
        return Effect.sync((): WriteResult => ({ code: 200, object: { ...obj, metadata: { ...obj.metadata, resourceVersion: `rv-${clock}` } }, warnings: [] }))
      }
    } as Partial<ApiClientService> as ApiClientService
    const launched: Array<Effect.Effect<void>> = []
    const env: NodeAgentEnvironment = {
      client,
      serviceTime: new ServiceTimeModel(),
      settings: agentSettings,
      metrics: new NodeAgentMetrics(),
      pauses: [],
      resolutionMs: 1_000,
      live: { now: () => clock, launch: (request) => Effect.sync(() => void launched.push(request)), total: undefined }
    }
    const ctx = new ShardContext(env, noJitter)
    const renewer = new LeaseRenewer(ctx, () => {})
    const agent = (name: string): AgentState => {
      const a = makeAgentState(makeNode({ name, zone: "z", region: "r", cpu: "4", memory: "16Gi", pods: 110, startAt: 0 }), agentSettings, [])
      a.leaseMeta = { name, namespace: "platform-node-lease", resourceVersion: "1" }
      a.leaseSpec = { holderIdentity: name, leaseDurationSeconds: 40 }
      return a
    }
    const [a, b] = [agent("node-a"), agent("node-b")]

    // Both renewals sent before either answer comes.
    const requestA = renewer.renew(a, 1_000)
    const requestB = renewer.renew(b, 1_500)
    expect(sent.map((l) => [l.metadata.name, (l.spec as { renewTime?: string }).renewTime])).toEqual([
      ["node-a", microTime(1_000)],
      ["node-b", microTime(1_500)]
    ])
    clock = 4_000
    Effect.runSync(requestB!)
    clock = 7_000
    Effect.runSync(requestA!)

    expect(a.leaseMeta?.resourceVersion).toBe("rv-7000")
    expect(b.leaseMeta?.resourceVersion).toBe("rv-4000")
    expect(env.metrics.leaseWrites).toBe(2)
    // Latency from each renewal's own due time to its answer: 2.5 s for node-b, 6 s for node-a.
    expect([env.metrics.leaseLatency.minNonZeroValue, env.metrics.leaseLatency.maxValue].map((us) => Math.round(us / 1000))).toEqual([2_500, 6_000])
    // The next renewals: one interval (10 s, a quarter of the 40 s lease) after each answer, in order.
    const next: Array<[string, number]> = []
    for (let e = ctx.due.popDue(Infinity); e !== undefined; e = ctx.due.popDue(Infinity)) {
      expect(ctx.due.tag).toBe(Kind.Lease)
      next.push([(e as AgentState).node.name, ctx.due.time])
    }
    expect(next).toEqual([
      ["node-b", 14_000],
      ["node-a", 17_000]
    ])
  })
})

/**
 * A lease renewal's latency counts from when it was due (`LeaseRenewer.written`): a renewal sent when due counts from
 * the instant `send` hands back, one sent after ensure-lease's GET from the due time the agent kept — not from the
 * GET's answer, when it was sent. Both through the same answers, in real time (answers come later).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { WriteResult } from "../../src/api/Requests.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { ServiceTimeModel } from "../../simulator/apiserver/ServiceTime.js"
import { NodeAgentMetrics, type NodeAgentEnvironment } from "../../simulator/nodeagent/AgentEnvironment.js"
import { makeAgentState } from "../../simulator/nodeagent/AgentState.js"
import { LeaseRenewer } from "../../simulator/nodeagent/LeaseRenewer.js"
import { ShardContext } from "../../simulator/nodeagent/ShardContext.js"
import { makeNode } from "../../simulator/nodeagent/SimulatedNode.js"
import { agentSettings } from "./settings.js"

const noJitter = { seed: 0, next: () => 0, between: () => 0, int: () => 0, split: () => noJitter } as never

describe("a lease renewal's latency", () => {
  it("counts from the due time, whether the renewal was sent when due or after ensure-lease's GET", () => {
    let clock = 0
    const stored: KObject = { metadata: { name: "node-a", namespace: "platform-node-lease", resourceVersion: "1" }, spec: { holderIdentity: "node-a", leaseDurationSeconds: 40 } }
    const client = {
      get: () => Effect.sync(() => stored),
      update: (_resource, obj) => Effect.sync((): WriteResult => ({ code: 200, object: { ...obj, metadata: { ...obj.metadata, resourceVersion: `rv-${clock}` } }, warnings: [] }))
    } as Partial<ApiClientService> as ApiClientService
    const env: NodeAgentEnvironment = {
      client,
      serviceTime: new ServiceTimeModel(),
      settings: agentSettings,
      metrics: new NodeAgentMetrics(),
      pauses: [],
      resolutionMs: 1_000,
      live: { now: () => clock, launch: (request) => request, total: undefined }
    }
    const renewer = new LeaseRenewer(new ShardContext(env, noJitter), () => {})
    const a = makeAgentState(makeNode({ name: "node-a", zone: "z", region: "r", cpu: "4", memory: "16Gi", pods: 110, startAt: 0 }), agentSettings, [])
    const latencies = () => [env.metrics.leaseLatency.minNonZeroValue, env.metrics.leaseLatency.maxValue].map((us) => Math.round(us / 1000))

    // No lease known: ensure-lease GETs it when due (1 s), its answer comes at 4 s, the update then answers at 4 s.
    const ensure = renewer.renew(a, 1_000)
    clock = 4_000
    Effect.runSync(ensure!)
    expect(a.leaseMeta?.resourceVersion).toBe("rv-4000")
    expect(env.metrics.leaseWrites).toBe(1)
    expect(latencies()).toEqual([3_000, 3_000])

    // Known now: the next renewal is sent when due (14 s) and answered at 15.5 s.
    const update = renewer.renew(a, 14_000)
    clock = 15_500
    Effect.runSync(update!)
    expect(a.leaseMeta?.resourceVersion).toBe("rv-15500")
    expect(env.metrics.leaseWrites).toBe(2)
    expect(latencies()).toEqual([1_500, 3_000])
  })
})

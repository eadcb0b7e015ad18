/**
 * Agents registering in the same second with the same health and capacity send one status object (Registration.ts),
 * which the server then decodes and compares once (`LastCall.ts`, the kinds' shared zero values in ManagedFields.ts).
 * Each node is stored exactly as when every agent registers alone (one shard each, no status shared): its status,
 * labels and managed fields — over agents of two capacities, one under memory pressure, and ones registering a second
 * later. And the server stores what it stores for copies: node creates sharing their status give the same answers,
 * stored nodes and store changes as creates of fresh copies.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { WriteResult } from "../../src/api/Requests.js"
import { ConfigMaps, Nodes } from "../../src/api/Resources.js"
import { ApiServer, ApiServerImpl, defaultConfig, type ApiServerImpl as Server } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { ServiceTimeModel } from "../../simulator/apiserver/ServiceTime.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import { NodeAgentMetrics } from "../../simulator/nodeagent/AgentEnvironment.js"
import { NodeAgentShard } from "../../simulator/nodeagent/NodeAgentShard.js"
import { makeNode } from "../../simulator/nodeagent/SimulatedNode.js"
import { agentSettings } from "./settings.js"

const nodes = Array.from({ length: 8 }, (_, i) =>
  makeNode({ name: `node-${i}`, zone: `zone-${i % 2}`, region: "region-1", cpu: i % 3 === 2 ? "8" : "4", memory: "16Gi", pods: 110, startAt: i < 6 ? 1_000 : 2_000 })
)

/** Registers the nodes, in one shard or one shard each; node-4 is under memory pressure. The stored nodes. */
const register = (oneShard: boolean): { nodes: ReadonlyArray<KObject>; server: Server; sent: Map<string, unknown> } => {
  const sim = Simulation.make({ seed: 3, startMillis: 0 })
  let server: Server | undefined
  // the status each node's registration sent, by node
  const sent = new Map<string, unknown>()
  sim.fork(
    Effect.gen(function* () {
      const s = (server = yield* ApiServer)
      const base = inProcessClient(s)
      const client = {
        ...base,
        at: (now: number) => {
          const view = base.at(now)
          return view && { ...view, create: ((resource, obj, opts) => {
            if (resource === Nodes) sent.set((obj as KObject).metadata.name!, (obj as KObject).status)
            return view.create(resource, obj, opts)
          }) as typeof view.create }
        }
      }
      const env = { client, serviceTime: new ServiceTimeModel(), settings: agentSettings, metrics: new NodeAgentMetrics(), pauses: [], resolutionMs: 1_000 }
      const groups = oneShard ? [nodes] : nodes.map((n) => [n])
      for (const [i, group] of groups.entries()) {
        const shard = new NodeAgentShard(group, env, sim.random.split(`shard-${i}`))
        if (group.some((n) => n.name === "node-4")) shard.setPressure("node-4", new Set(["MemoryPressure"]))
        yield* Effect.forkDaemon(shard.run)
      }
      return yield* Effect.never
    }).pipe(Effect.provide(ApiServer.layer({ seed: 3 })))
  )
  sim.runUntil(3_000)
  sim.interruptAll()
  return { nodes: nodes.map((n) => server!.store.lookup(Nodes, undefined, n.name)!.obj), server: server!, sent }
}

/** What does not depend on the order the server took the creates in (uids, resourceVersions). */
const ownParts = (node: KObject) => JSON.stringify({ labels: node.metadata.labels, managedFields: node.metadata.managedFields, spec: node.spec, status: node.status })

describe("a registration's status", () => {
  it("is stored as each agent's own would be", () => {
    const shared = register(true)
    const alone = register(false)
    expect(shared.nodes.map(ownParts)).toEqual(alone.nodes.map(ownParts))
    // the agents that register together with the same capacity and health sent one status; the others their own
    const sentBy = (i: number) => shared.sent.get(`node-${i}`)
    expect(sentBy(1)).toBe(sentBy(0))
    expect(sentBy(2)).not.toBe(sentBy(0)) // 8 CPUs
    // one status remembered: node-2's came between
    expect(sentBy(3)).not.toBe(sentBy(0))
    expect(JSON.stringify(sentBy(3))).toBe(JSON.stringify(sentBy(0)))
    expect(sentBy(4)).not.toBe(sentBy(0)) // under memory pressure
    expect(sentBy(6)).not.toBe(sentBy(0)) // a second later
    expect(sentBy(7)).toBe(sentBy(6))
    expect(alone.sent.get("node-1")).not.toBe(alone.sent.get("node-0"))
    const [n0, n1, n2, , n4] = shared.nodes
    expect(JSON.stringify(n1!.status)).toBe(JSON.stringify(n0!.status))
    expect((n4!.status as { conditions: ReadonlyArray<{ type: string; status: string }> }).conditions.find((c) => c.type === "MemoryPressure")?.status).toBe("True")
    expect((n2!.status as { capacity: Record<string, string> }).capacity.cpu).toBe("8")
    // a second later: the time in the conditions moved on
    expect(JSON.stringify(shared.nodes[6]!.status)).not.toBe(JSON.stringify(n0!.status))
  })

  it("is stored, answered and sent as fresh copies are", () => {
    const start = Date.UTC(2026, 0, 1)
    const script = (share: boolean) => {
      const s = new ApiServerImpl(defaultConfig, start)
      const changes: Array<string> = []
      s.store.subscribe((c) => changes.push(`${c.type} ${c.revision} ${JSON.stringify(c.object)}`))
      const answers: Array<string> = []
      // another kind's create first: each kind is compared with its own zero value
      s.createAt(ConfigMaps, { value: { metadata: { name: "first" }, data: { k: "v" } } }, { namespace: "default" }, start)
      const status = { capacity: { cpu: "4", pods: "110" }, conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "" }], nodeInfo: { architecture: "amd64" } }
      for (let i = 0; i < 6; i++) {
        const body = { metadata: { name: `n${i}`, labels: { host: `n${i}` } }, spec: { providerID: `sim://n${i}` }, status: share ? status : structuredClone(status) }
        const made = s.createAt(Nodes, { value: body }, i === 4 ? { fieldManager: "other" } : {}, start + i)
        answers.push(Either.isLeft(made) ? `error ${JSON.stringify(made.left)}` : JSON.stringify((made.right as WriteResult).object))
        // another kind's create in between (its own zero value)
        if (i === 2) s.createAt(ConfigMaps, { value: { metadata: { name: "cm" }, data: { k: "v" } } }, { namespace: "default" }, start + i)
      }
      return { changes, answers }
    }
    const shared = script(true)
    const copied = script(false)
    expect(shared.answers).toEqual(copied.answers)
    expect(shared.changes).toEqual(copied.changes)
    expect(shared.answers[0]).toContain('"status":{"capacity":{"cpu":"4","pods":"110"}')
    // a create owns what it set below the kind's zero value, where spec and status exist: not spec itself
    expect((JSON.parse(shared.answers[0]!) as KObject).metadata.managedFields?.map((e) => (e as { fieldsV1?: unknown }).fieldsV1)).toEqual([
      { "f:metadata": { "f:labels": { ".": {}, "f:host": {} } }, "f:spec": { "f:providerID": {} } }
    ])
  })
})

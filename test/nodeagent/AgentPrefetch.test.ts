/**
 * Reading ahead in a shard's due queue (simulator/nodeagent/AgentPrefetch.ts) only reads: whatever the next events are
 * — an agent with no lease yet, a status check, a pod's event (an agent inside a `PodStart`), an agent whose renewal
 * options noted no entry or one — the queue pops the same items at the same times, and the agents' states are unchanged.
 */
import { describe, expect, it } from "@effect/vitest"
import { Leases } from "../../src/api/Resources.js"
import { Store } from "../../simulator/apiserver/Store.js"
import { NotingWriteOptions } from "../../simulator/apiserver/Write.js"
import { DueQueue } from "../../simulator/kernel/DueQueue.js"
import { prefetchAhead } from "../../simulator/nodeagent/AgentPrefetch.js"
import { makeAgentState, type AgentState } from "../../simulator/nodeagent/AgentState.js"
import { Kind, type Due } from "../../simulator/nodeagent/ShardContext.js"
import { makeNode } from "../../simulator/nodeagent/SimulatedNode.js"
import { agentSettings } from "./settings.js"

const agent = (i: number): AgentState =>
  makeAgentState(makeNode({ name: `node-${i}`, zone: "z", region: "r", cpu: "4", memory: "16Gi", pods: 110, startAt: 0 }), agentSettings, [])

describe("AgentPrefetch", () => {
  it("changes nothing the shard's loop pops or its agents hold", () => {
    const agents = [0, 1, 2, 3, 4, 5].map(agent)
    agents[1]!.leaseMeta = { name: "node-1", namespace: "platform-node-lease" }
    agents[1]!.renewalOptions = new NotingWriteOptions("platform-node-lease")
    agents[2]!.renewalOptions = new NotingWriteOptions("platform-node-lease")
    // agent 3's options noted its lease's entry in a store (no renewal record yet)
    const store = new Store()
    store.putFresh(Leases, "platform-node-lease/node-3", { metadata: { name: "node-3", namespace: "platform-node-lease" }, spec: {} }, 0)
    const noting = new NotingWriteOptions("platform-node-lease")
    expect(noting.lookup(store, Leases, "platform-node-lease", "node-3")).toBeDefined()
    agents[3]!.renewalOptions = noting
    const items: Array<[Due, Kind]> = [
      [agents[0]!, Kind.Lease],
      [agents[1]!, Kind.Lease],
      [agents[2]!, Kind.Lease],
      [agents[3]!, Kind.Lease],
      [agents[3]!, Kind.Status],
      [{ agent: agents[4]!, pod: "ns/p" }, Kind.PodStart],
      [agents[5]!, Kind.Register],
      [agents[0]!, Kind.PostStatus]
    ]
    const run = (readAhead: boolean) => {
      const q = new DueQueue<Due>(1000)
      items.forEach(([item, kind], i) => q.push(item, 1000 + 10 * i, kind))
      const popped: Array<[Due, number, number]> = []
      for (let e = q.popDue(2000); e !== undefined; e = q.popDue(2000)) {
        if (readAhead) prefetchAhead(q)
        popped.push([e, q.time, q.tag])
      }
      return popped
    }
    const fields = () => agents.map((a) => Object.entries(a))
    const before = fields()
    const popped = run(true)
    expect(popped).toEqual(run(false))
    expect(popped.length).toBe(items.length)
    // the same values in the same objects, field by field
    fields().forEach((entries, i) =>
      entries.forEach(([k, v], j) => {
        expect(k).toBe(before[i]![j]![0])
        expect(v).toBe(before[i]![j]![1])
      })
    )
    expect(fields().map((e) => e.length)).toEqual(before.map((e) => e.length))
  })
})

import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { clientLoad, type ClientLoadCounters } from "../../bench/cluster/clientLoad.js"
import { runSimulatedCluster } from "../../simulator/cluster/ClusterRun.js"

describe("clientLoad", () => {
  it("books each node's pod reflector as that node (system, a flow per node), the LISTs and GETs as the bench's user", () => {
    const nodes = ["node-0", "node-1", "node-2"]
    const counters: ClientLoadCounters = { nodeWatchEvents: 0, informerEvents: 0, lists: 0, listedItems: 0, gets: 0, errors: 0, failures: {}, syncs: 0 }
    const workload = clientLoad(
      { nodes, informers: 1, sharedInformers: true, listEveryMs: 60_000, listPageSize: 500, getsPerSecond: 1, podAt: () => ["default", "node-0-pod-0"] },
      counters
    )
    const result = Effect.runSync(
      runSimulatedCluster({ spec: { nodes: nodes.length, podsPerNode: 2 }, faults: [], seed: 3, durationMs: 2_500, workload })
    )
    expect(counters.errors).toBe(0)
    expect(counters.syncs).toBe(nodes.length + 1)
    expect(counters.lists).toBe(1)
    expect(counters.gets).toBeGreaterThan(0)
    const levels = result.serverModel!.priorityLevels as Record<string, { dispatched: number }>
    // the bench's user: the informer's LIST and WATCH, one page of the paged LIST and the GETs — not the reflectors'
    // LISTs and WATCHes (before, the 3 reflectors' 6 requests were global-default's too, in one flow)
    expect(levels["global-default"]!.dispatched).toBe(2 + counters.lists + counters.gets)
    expect(levels["system"]!.dispatched).toBeGreaterThanOrEqual(2 * nodes.length)
  })
})

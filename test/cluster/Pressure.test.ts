/** Memory pressure in a simulated cluster: a leaking pod is evicted by its node's eviction manager, on the virtual clock. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Nodes, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { runSimulatedCluster } from "../../simulator/cluster/ClusterRun.js"
import type { ClusterSpec } from "../../simulator/cluster/ClusterSpec.js"

describe("memory pressure", () => {
  let node: KObject | undefined
  let pod: KObject | undefined
  let late: KObject | undefined
  let lateWithRequests: KObject | undefined
  const bound = (name: string, resources?: object) => ({
    metadata: { name },
    spec: { nodeName: "node-1", containers: [{ name: "app", image: "app", ...(resources ? { resources } : {}) }] },
    status: { phase: "Pending" }
  })
  const observe = Effect.gen(function* () {
    const client = yield* ApiClient
    yield* Effect.sleep(150_000)
    // Bound while the node reports MemoryPressure: a BestEffort pod is refused, a Burstable one admitted.
    yield* Effect.orDie(client.create(Pods, bound("late"), { namespace: "default" }))
    yield* Effect.orDie(client.create(Pods, bound("late-burstable", { requests: { memory: "64Mi" } }), { namespace: "default" }))
    yield* Effect.sleep(10_000)
    node = yield* Effect.orDie(client.get(Nodes, "node-1"))
    pod = yield* Effect.orDie(client.get(Pods, "node-1-pod-1", { namespace: "default" }))
    late = yield* Effect.orDie(client.get(Pods, "late", { namespace: "default" }))
    lateWithRequests = yield* Effect.orDie(client.get(Pods, "late-burstable", { namespace: "default" }))
  })
  // 2Gi node, 512Mi system, two pods at 64Mi and one leaking 10Mi/s from 100Mi: memory.available reaches the
  // default hard threshold (100Mi) after ~121 s.
  const spec: ClusterSpec = {
    nodes: 2,
    podsPerNode: 3,
    shape: { memory: "2Gi" },
    memoryPressure: [{ nodes: ["node-1"], pod: 1, base: "100Mi", perSecond: "10Mi" }]
  }
  const result = Effect.runSync(runSimulatedCluster({ spec, faults: [], seed: 3, durationMs: 180_000, workload: observe }))

  it("evicts the leaking pod on the first 10 s pass after the threshold is crossed", () => {
    expect(result.evictions).toHaveLength(1)
    const e = result.evictions[0]!
    expect(e.pod).toContain("node-1-pod-1")
    expect(e.signal).toBe("memory.available")
    expect(e.atMs).toBeGreaterThanOrEqual(120_000)
    expect(e.atMs).toBeLessThan(132_000)
  })

  it("the pod is Failed/Evicted and the node agent posts MemoryPressure=True", () => {
    const status = pod!.status as { phase: string; reason: string; message: string }
    expect([status.phase, status.reason]).toEqual(["Failed", "Evicted"])
    expect(status.message).toMatch(/^The node was low on resource: memory\./)
    const conditions = (node!.status as { conditions: Array<Record<string, string>> }).conditions
    const pressure = conditions.find((c) => c.type === "MemoryPressure")!
    expect([pressure.status, pressure.reason, pressure.message]).toEqual([
      "True",
      "NodeAgentHasInsufficientMemory",
      "node agent has insufficient memory available"
    ])
    // the lifecycle controller taints the node by its condition (TaintNodesByCondition)
    expect(result.taints.filter((t) => t.node === "node-1").map((t) => [t.op, t.key, t.effect])).toContainEqual([
      "add",
      "node.platform.io/memory-pressure",
      "NoSchedule"
    ])
    // node-0 has no usage model: untouched
    const node0 = result.readyTimeline["node-0"]!
    expect(node0).toHaveLength(1)
  })
  it("refuses BestEffort pods bound under memory pressure and admits the others (eviction manager `Admit`)", () => {
    const refused = late!.status as { phase: string; reason: string; message: string }
    expect(refused).toMatchObject({ phase: "Failed", reason: "Evicted", message: "The node had condition: [MemoryPressure]. " })
    expect((lateWithRequests!.status as { phase: string }).phase).toBe("Running")
  })
})

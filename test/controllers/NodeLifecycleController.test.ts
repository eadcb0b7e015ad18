/**
 * The controller on its own, reading through the `ApiClient` (LIST every period), on the virtual clock: two nodes
 * that post nothing after registering go Unknown after the 40 s grace, are tainted, and lose their pods 300 s later.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { microTime, rfc3339 } from "../../simulator/apiserver/SystemMeta.js"
import { makeLifecycleLog, runNodeLifecycleController } from "../../simulator/controllers/NodeLifecycleController.js"
import { EventRecorder } from "../../simulator/events/EventRecorder.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import { desiredConditions, healthy, mergeConditions } from "../../simulator/nodeagent/NodeStatus.js"

const node = (name: string, zone: string): KObject => ({
  metadata: { name, labels: { "topology.platform.io/zone": zone } },
  status: { conditions: mergeConditions([], desiredConditions(healthy), rfc3339(0)) }
})

describe("NodeLifecycleController (LIST path)", () => {
  it("Unknown after grace, NoSchedule then NoExecute (rate-limited per zone), pods deleted after tolerationSeconds", () => {
    const sim = Simulation.make({ seed: 3 })
    const log = makeLifecycleLog()
    let final: ReadonlyArray<KObject> = []
    let podsLeft = -1
    const layers = ApiClient.layerInProcess.pipe(Layer.provideMerge(ApiServer.layer({ seed: 3 })))
    const program = Effect.gen(function* () {
      const client = yield* ApiClient
      for (const name of ["n1", "n2", "n3"]) {
        yield* Effect.orDie(client.create(Nodes, node(name, "z")))
        yield* Effect.orDie(
          client.create(
            Leases,
            { metadata: { name, namespace: "platform-node-lease" }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(0) } },
            { namespace: "platform-node-lease" }
          )
        )
        yield* Effect.orDie(
          client.create(
            Pods,
            {
              metadata: { name: `${name}-p`, namespace: "default" },
              spec: {
                nodeName: name,
                containers: [{ name: "c", image: "i" }],
                tolerations: [{ key: "node.platform.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }]
              }
            },
            { namespace: "default" }
          )
        )
      }
      // n3 keeps renewing its lease; n1 and n2 go silent
      yield* Effect.forkDaemon(
        Effect.forever(
          Effect.sleep(10_000).pipe(
            Effect.zipRight(
              Effect.gen(function* () {
                const lease = yield* Effect.orDie(client.get(Leases, "n3", { namespace: "platform-node-lease" }))
                const now = yield* Effect.clockWith((c) => c.currentTimeMillis)
                yield* Effect.orDie(client.update(Leases, { ...lease, spec: { ...(lease.spec as object), renewTime: microTime(now) } }, { namespace: "platform-node-lease" }))
              })
            )
          )
        )
      )
      yield* Effect.forkDaemon(
        runNodeLifecycleController(undefined, log).pipe(
          Effect.provide(EventRecorder.layer({ reportingController: "node-controller", reportingInstance: "node-controller" }))
        )
      )
      yield* Effect.sleep(400_000)
      final = (yield* Effect.orDie(client.list(Nodes))).items
      podsLeft = (yield* Effect.orDie(client.list(Pods, { namespace: "default" }))).items.length
    }).pipe(Effect.provide(layers))
    const exit = sim.run(program, { maxDuration: "10 minutes" })
    expect(exit?._tag).toBe("Success")

    const byName = new Map(final.map((n) => [n.metadata.name!, n]))
    const ready = (name: string) => (byName.get(name)!.status as { conditions: Array<Record<string, string>> }).conditions.find((c) => c.type === "Ready")!
    expect([ready("n1").status, ready("n1").reason, ready("n1").message]).toEqual(["Unknown", "NodeStatusUnknown", "Node agent stopped posting node status."])
    expect(ready("n2").status).toBe("Unknown")
    expect(ready("n3").status).toBe("True")
    const taints = (name: string) => ((byName.get(name)!.spec as { taints?: Array<{ key: string; effect: string }> } | undefined)?.taints ?? []).map((t) => `${t.key}:${t.effect}`)
    expect(taints("n1")).toEqual(["node.platform.io/unreachable:NoSchedule", "node.platform.io/unreachable:NoExecute"])
    expect(taints("n3")).toEqual([])
    // first probe at t = 0; Unknown at the first pass after 40 s (45 s); NoExecute on the next pass (50 s) for one
    // node, 10 s later for the other (0.1 nodes/s, burst 1, same zone)
    const notReady = log.events.filter((e) => e.reason === "NodeNotReady" && e.object.startsWith("Node/"))
    expect(notReady.map((e) => [e.t, e.object])).toEqual([
      [45_000, "Node/n1"],
      [45_000, "Node/n2"]
    ])
    const deletions = log.events.filter((e) => e.reason === "TaintManagerEviction").map((e) => [e.t, e.note])
    expect(deletions).toEqual([
      [350_000, "Marking for deletion Pod default/n1-p"],
      [360_000, "Marking for deletion Pod default/n2-p"]
    ])
    expect(podsLeft).toBe(1)
  })
})

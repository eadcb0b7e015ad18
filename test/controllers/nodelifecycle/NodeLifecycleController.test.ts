/**
 * The controller on its own, reading through the `ApiClient` (LIST every period), on the virtual clock: two nodes
 * that post nothing after registering go Unknown after the 40 s grace, are tainted, and lose their pods 300 s later.
 * Then the incremental pass, which visits only the nodes that may need it, on both kinds of source: what it must not
 * miss (expiring probes, zone counts through deletions, nodes not quiet, writes during a pass).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Leases, Nodes, Pods } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { microTime, rfc3339 } from "../../../simulator/apiserver/SystemMeta.js"
import { ClusterObserver } from "../../../simulator/cluster/ClusterObserver.js"
import { makeLifecycleLog, type LifecycleLog } from "../../../simulator/controllers/nodelifecycle/LifecycleSettings.js"
import { runNodeLifecycleController } from "../../../simulator/controllers/nodelifecycle/NodeLifecycleController.js"
import { EventRecorder } from "../../../simulator/events/EventRecorder.js"
import { ServiceTime } from "../../../simulator/apiserver/ServiceTime.js"
import * as Simulation from "../../../simulator/kernel/Simulation.js"
import { desiredConditions, healthy, mergeConditions, type NodeCondition } from "../../../simulator/nodeagent/NodeStatus.js"
import * as InProcessClient from "../../../simulator/apiserver/InProcessClient.js"

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
    const layers = InProcessClient.layer.pipe(Layer.provideMerge(ApiServer.layer({ seed: 3 })))
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

/**
 * The incremental pass, on both sources: LIST through the `ApiClient`, and a `ClusterObserver` cache (as a cluster run
 * passes it). A background fiber renews the leases of the `alive` nodes at 7 s, 17 s, …; passes run at 0 s, 5 s, ….
 */
describe.each(["LIST", "NodeSource"] as const)("NodeLifecycleController incremental pass (%s)", (mode) => {
  const leaseNamespace = "platform-node-lease"
  type Client = ApiClient["Type"]

  const world = (client: Client, alive: Set<string>) => {
    const now = Effect.clockWith((c) => c.currentTimeMillis)
    const renew = (name: string) =>
      Effect.gen(function* () {
        const lease = yield* Effect.orDie(client.get(Leases, name, { namespace: leaseNamespace }))
        const renewTime = microTime(yield* now)
        yield* Effect.orDie(client.update(Leases, { ...lease, spec: { ...(lease.spec as object), renewTime } }, { namespace: leaseNamespace }))
      })
    return {
      /** Registers a node (Ready True unless `ready` is false) and its lease, renewed from now on. */
      create: (name: string, zone: string, ready = true) =>
        Effect.gen(function* () {
          const t = yield* now
          const created = node(name, zone)
          yield* Effect.orDie(client.create(Nodes, ready ? { ...created, status: { conditions: mergeConditions([], desiredConditions(healthy), rfc3339(t)) } } : { metadata: created.metadata }))
          const lease = { metadata: { name, namespace: leaseNamespace }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(t) } }
          yield* Effect.orDie(client.create(Leases, lease, { namespace: leaseNamespace }))
          alive.add(name)
        }),
      /** Posts Ready True with a fresh heartbeat, as an agent coming back does, and renews its lease from now on. */
      revive: (name: string) =>
        Effect.gen(function* () {
          const current = yield* Effect.orDie(client.get(Nodes, name))
          const conditions = (current.status as { conditions?: ReadonlyArray<NodeCondition> } | undefined)?.conditions ?? []
          const status = { conditions: mergeConditions(conditions, desiredConditions(healthy), rfc3339(yield* now)) }
          yield* Effect.orDie(client.update(Nodes, { ...current, status }, { subresource: "status" }))
          yield* renew(name)
          alive.add(name)
        }),
      stop: (name: string) => Effect.sync(() => alive.delete(name)),
      cordon: (name: string) =>
        Effect.gen(function* () {
          const current = yield* Effect.orDie(client.get(Nodes, name))
          yield* Effect.orDie(client.update(Nodes, { ...current, spec: { ...(current.spec as object), unschedulable: true } }))
        }),
      remove: (name: string) => Effect.zipRight(Effect.sync(() => alive.delete(name)), Effect.orDie(client.delete(Nodes, name))),
      renewAlive: Effect.gen(function* () {
        yield* Effect.sleep(7_000)
        for (;;) {
          for (const name of [...alive]) yield* renew(name)
          yield* Effect.sleep(10_000)
        }
      })
    }
  }

  /** Runs `script` (at virtual times from 0) against the controller until `untilMs`; returns its log and the taint changes. */
  const run = (script: (w: ReturnType<typeof world>) => Effect.Effect<void>, untilMs: number, writeMs = 0) => {
    const sim = Simulation.make({ seed: 5 })
    const log = makeLifecycleLog()
    // with `writeMs`, every write takes that long (and a read 1 ms): a pass that writes takes time
    const client = writeMs > 0 ? ServiceTime.layerClient.pipe(Layer.provide(InProcessClient.layer), Layer.provide(ServiceTime.layer({ readBaseMs: 1, writeBaseMs: writeMs }))) : InProcessClient.layer
    const layers = client.pipe(Layer.provideMerge(ApiServer.layer({ seed: 5 })))
    const program = Effect.gen(function* () {
      const client = yield* ApiClient
      const observer = new ClusterObserver(0)
      observer.attach((yield* ApiServer).store)
      const source = observer.nodeSource()
      const w = world(client, new Set())
      yield* Effect.forkDaemon(w.renewAlive)
      yield* Effect.forkDaemon(
        runNodeLifecycleController(undefined, log, mode === "LIST" ? undefined : source).pipe(
          Effect.provide(EventRecorder.layer({ reportingController: "node-controller", reportingInstance: "node-controller" }))
        )
      )
      yield* script(w)
      yield* Effect.sleep(untilMs - (yield* Effect.clockWith((c) => c.currentTimeMillis)))
      return observer.taints
    }).pipe(Effect.provide(layers))
    const exit = sim.run(program, { maxDuration: "1 hour" })
    if (exit?._tag !== "Success") throw new Error(`run did not succeed: ${exit?._tag}`)
    return { log, taints: exit.value }
  }
  const at = (t: number, action: Effect.Effect<unknown>) =>
    Effect.gen(function* () {
      yield* Effect.sleep(t - (yield* Effect.clockWith((c) => c.currentTimeMillis)))
      yield* action
    })
  const nodeEvents = (log: LifecycleLog, reason: string) => log.events.filter((e) => e.reason === reason && e.object.startsWith("Node/")).map((e) => [e.t, e.object])

  it("a node whose lease stops goes Unknown at the first pass past probe + grace, its Node never written", () => {
    const { log } = run(
      (w) =>
        Effect.gen(function* () {
          yield* w.create("quiet", "z")
          yield* w.create("steady", "z")
          // registered without Ready (60 s startup grace); posts Ready at 12 s, so the grace is 40 s from the probe at 15 s
          yield* w.create("late", "z", false)
          yield* w.stop("late")
          yield* at(12_000, w.revive("late"))
          yield* w.stop("late")
          // last renewal at 97 s, seen by the pass at 100 s: Unknown at the first pass after 140 s
          yield* at(98_000, w.stop("quiet"))
        }),
      200_000
    )
    expect(nodeEvents(log, "NodeNotReady")).toEqual([
      [60_000, "Node/late"],
      [145_000, "Node/quiet"]
    ])
  })

  it("zone states follow the counts through node deletions and re-creations", () => {
    const a = ["a1", "a2", "a3"]
    const { log } = run(
      (w) =>
        Effect.gen(function* () {
          for (const name of [...a, "a4"]) yield* w.create(name, "a")
          for (const name of ["b1", "b2", "b3"]) yield* w.create(name, "b")
          // a1–a3 stop after renewing at 27 s: Unknown at 75 s, 3 of 4 not ready
          yield* at(30_000, Effect.forEach(a, w.stop))
          // the one ready node of zone a goes: 0 of 3 ready
          yield* at(91_000, w.remove("a4"))
          yield* at(121_000, Effect.forEach(a, w.revive))
          // renewed at 127 s: Unknown at 175 s
          yield* at(131_000, Effect.forEach(a, w.stop))
          // zone a empty: no state; then one Ready node in it
          yield* at(181_000, Effect.forEach(a, w.remove))
          yield* at(191_000, w.create("a5", "a"))
        }),
      230_000
    )
    expect(log.zoneStates.map((z) => [z.t, z.zone, z.state])).toEqual([
      [75_000, "/a", "PartialDisruption"],
      [95_000, "/a", "FullDisruption"],
      [125_000, "/a", "Normal"],
      [175_000, "/a", "FullDisruption"],
      [195_000, "/a", "Normal"]
    ])
    expect(nodeEvents(log, "RemovingNode")).toEqual([
      [95_000, "Node/a4"],
      [185_000, "Node/a1"],
      [185_000, "Node/a2"],
      [185_000, "Node/a3"]
    ])
    expect(nodeEvents(log, "NodeNotReady").map(([t]) => t)).toEqual([75_000, 75_000, 75_000, 175_000, 175_000, 175_000])
  })

  it("all zones fully disrupted: NoExecute taints go; once a node is back the others are tainted again at the next pass", () => {
    const { log, taints } = run(
      (w) =>
        Effect.gen(function* () {
          for (const name of ["a1", "a2"]) yield* w.create(name, "a")
          for (const name of ["b1", "b2"]) yield* w.create(name, "b")
          // zone a: Unknown at 75 s, fully disrupted, NoExecute one node per 10 s
          yield* at(30_000, Effect.forEach(["a1", "a2"], w.stop))
          // zone b too at 145 s: all zones fully disrupted
          yield* at(100_000, Effect.forEach(["b1", "b2"], w.stop))
          yield* at(171_000, w.revive("a1"))
        }),
      230_000
    )
    expect(log.zoneStates.map((z) => [z.t, z.zone, z.state])).toEqual([
      [75_000, "/a", "FullDisruption"],
      [145_000, "/b", "FullDisruption"],
      [175_000, "/a", "Normal"]
    ])
    const noExecute = taints.filter((x) => x.effect === "NoExecute").map((x) => [x.t, x.node, x.op])
    expect(noExecute).toEqual([
      [80_000, "a1", "add"],
      [90_000, "a2", "add"],
      [145_000, "a1", "remove"],
      [145_000, "a2", "remove"],
      // the pass at 175 s ends the full disruption; the next one queues the nodes still not ready (zone b: 1 per 10 s)
      [180_000, "a2", "add"],
      [180_000, "b1", "add"],
      [190_000, "b2", "add"]
    ])
  })

  it("a node written during a pass ahead of it: a pass over the cache takes it, as iterating the live cache would", () => {
    const { taints } = run(
      (w) =>
        Effect.gen(function* () {
          // x never renews: it goes Unknown at 45 s (LIST) or 50 s (cache, which sees its lease written at 1 s), and
          // that pass writes it for 2 s; y, after x in the order, is cordoned at 50.5 s
          yield* w.create("x", "z")
          yield* w.stop("x")
          yield* w.create("y", "z")
          yield* at(50_500, w.cordon("y"))
        }),
      100_000,
      1_000
    )
    const unschedulable = taints.filter((x) => x.node === "y" && x.key === "node.platform.io/unschedulable").map((x) => x.t)
    // the cache's pass at 50 s reaches y after its writes of x; a LIST's pass at 50 s listed y before the cordon
    expect(unschedulable).toEqual(mode === "NodeSource" ? [52_001.031] : [55_002.3])
  })
})

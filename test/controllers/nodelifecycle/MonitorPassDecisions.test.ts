/**
 * The monitor pass decides exactly as it did before its probe alarms went into time buckets and its lease step looked
 * records up in batches (`ProbeAlarms`, `MonitorPass`): a small cluster with faults — nodes dying, partitioned and
 * back, under memory pressure, deleted and created again, their leases deleted, a zone fully disrupted, passes that
 * take time while leases are written — gives the events, zone states, taint changes and Node objects it gave then
 * (their digests taken on main at 1f0de95), on both kinds of source.
 */
import { createHash } from "node:crypto"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Leases, Nodes } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import * as InProcessClient from "../../../simulator/apiserver/InProcessClient.js"
import { ServiceTime } from "../../../simulator/apiserver/ServiceTime.js"
import { microTime, rfc3339 } from "../../../simulator/apiserver/SystemMeta.js"
import { ClusterObserver } from "../../../simulator/cluster/ClusterObserver.js"
import { makeLifecycleLog } from "../../../simulator/controllers/nodelifecycle/LifecycleSettings.js"
import { runNodeLifecycleController } from "../../../simulator/controllers/nodelifecycle/NodeLifecycleController.js"
import { EventRecorder } from "../../../simulator/events/EventRecorder.js"
import * as Simulation from "../../../simulator/kernel/Simulation.js"
import { desiredConditions, healthy, mergeConditions, type NodeCondition, type NodeHealth } from "../../../simulator/nodeagent/NodeStatus.js"

const leaseNamespace = "platform-node-lease"
type Client = ApiClient["Type"]

/** Nodes that renew their lease every 10 s and post their status every 30 s while alive, as node agents do. */
const world = (client: Client) => {
  const now = Effect.clockWith((c) => c.currentTimeMillis)
  const alive = new Set<string>()
  const health = new Map<string, NodeHealth>()
  const renew = (name: string) =>
    Effect.gen(function* () {
      const lease = yield* Effect.either(client.get(Leases, name, { namespace: leaseNamespace }))
      const renewTime = microTime(yield* now)
      if (lease._tag === "Left") {
        const created = { metadata: { name, namespace: leaseNamespace }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime } }
        yield* Effect.ignore(client.create(Leases, created, { namespace: leaseNamespace }))
      } else yield* Effect.ignore(client.update(Leases, { ...lease.right, spec: { ...(lease.right.spec as object), renewTime } }, { namespace: leaseNamespace }))
    })
  const post = (name: string) =>
    Effect.gen(function* () {
      const current = yield* Effect.either(client.get(Nodes, name))
      if (current._tag === "Left") return
      const conditions = (current.right.status as { conditions?: ReadonlyArray<NodeCondition> } | undefined)?.conditions ?? []
      const status = { conditions: mergeConditions(conditions, desiredConditions(health.get(name) ?? healthy), rfc3339(yield* now)) }
      yield* Effect.ignore(client.update(Nodes, { ...current.right, status }, { subresource: "status" }))
    })
  return {
    create: (name: string, zone: string) =>
      Effect.gen(function* () {
        const t = yield* now
        const node: KObject = {
          metadata: { name, labels: { "topology.platform.io/zone": zone } },
          status: { conditions: mergeConditions([], desiredConditions(healthy), rfc3339(t)) }
        }
        yield* Effect.orDie(client.create(Nodes, node))
        yield* renew(name)
        alive.add(name)
      }),
    stop: (name: string) => Effect.sync(() => alive.delete(name)),
    revive: (name: string) => Effect.zipRight(Effect.sync(() => alive.add(name)), Effect.zipRight(post(name), renew(name))),
    pressure: (name: string, on: boolean) => Effect.zipRight(Effect.sync(() => health.set(name, { ...healthy, memoryPressure: on })), post(name)),
    removeNode: (name: string) => Effect.zipRight(Effect.sync(() => alive.delete(name)), Effect.ignore(client.delete(Nodes, name))),
    removeLease: (name: string) => Effect.ignore(client.delete(Leases, name, { namespace: leaseNamespace })),
    loop: Effect.gen(function* () {
      for (let tick = 0; ; tick++) {
        yield* Effect.sleep(tick === 0 ? 3_500 : 10_000)
        for (const name of [...alive]) {
          yield* renew(name)
          if (tick % 3 === 0) yield* post(name)
        }
      }
    })
  }
}

const at = (t: number, action: Effect.Effect<unknown>) =>
  Effect.gen(function* () {
    yield* Effect.sleep(t - (yield* Effect.clockWith((c) => c.currentTimeMillis)))
    yield* action
  })

const script = (w: ReturnType<typeof world>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 12; i++) yield* w.create(`n${i}`, `zone-${i % 3}`)
    yield* at(20_000, w.stop("n1")) // dies
    yield* at(31_000, w.stop("n4")) // partitioned …
    yield* at(41_000, w.pressure("n7", true))
    // its lease deleted right after a renewal (before the pass that would take it), and it dies: the renewal was no probe
    yield* at(54_000, Effect.zipRight(w.removeLease("n2"), w.stop("n2")))
    yield* at(58_000, w.removeLease("n8")) // deleted between passes, created again by its next renewal
    yield* at(64_000, w.removeNode("n5"))
    yield* at(95_000, w.revive("n4")) // … and back
    yield* at(101_000, w.create("n5", "zone-2")) // created again
    yield* at(130_000, w.pressure("n7", false))
    // a whole zone dies: full disruption of zone-0, then back
    yield* at(150_000, Effect.all(["n0", "n3", "n6", "n9"].map(w.stop)))
    yield* at(260_000, Effect.all(["n0", "n3", "n6", "n9"].map(w.revive)))
  })

/** The run's log, taint changes and final Nodes, the controller reading a cache (`NodeSource`) or LISTing. */
const run = (cached: boolean, writeMs: number) => {
  const sim = Simulation.make({ seed: 9 })
  const log = makeLifecycleLog()
  const client =
    writeMs > 0
      ? ServiceTime.layerClient.pipe(Layer.provide(InProcessClient.layer), Layer.provide(ServiceTime.layer({ readBaseMs: 1, writeBaseMs: writeMs })))
      : InProcessClient.layer
  const program = Effect.gen(function* () {
    const client = yield* ApiClient
    const observer = new ClusterObserver(0)
    observer.attach((yield* ApiServer).store)
    const source = observer.nodeSource()
    const w = world(client)
    yield* Effect.forkDaemon(w.loop)
    yield* Effect.forkDaemon(
      runNodeLifecycleController(undefined, log, cached ? source : undefined).pipe(
        Effect.provide(EventRecorder.layer({ reportingController: "node-controller", reportingInstance: "node-controller" }))
      )
    )
    yield* script(w)
    yield* Effect.sleep(400_000 - (yield* Effect.clockWith((c) => c.currentTimeMillis)))
    const nodes = yield* Effect.orDie(client.list(Nodes))
    return { taints: observer.taints, nodes: nodes.items }
  }).pipe(Effect.provide(client.pipe(Layer.provideMerge(ApiServer.layer({ seed: 9 })))))
  const exit = sim.run(program, { maxDuration: "1 hour" })
  if (exit?._tag !== "Success") throw new Error(`run did not succeed: ${exit?._tag}`)
  return { events: log.events, zoneStates: log.zoneStates, ...exit.value }
}

const digest = (value: unknown) => createHash("sha256").update(JSON.stringify(value)).digest("hex")

/** Digests of `run` on main at 1f0de95 (before the change), per source and write time. */
const before: Record<string, Record<string, string>> = {
  "true 0": {
    events: "570b0df43403016162c01b2257ff1d69bbbdc9635c7c8a49ed0c95a8b6c35a9d",
    zoneStates: "096c45fdacdb7f4a93a260da40410d035cd196b254fecf4a05389cd8d36414e2",
    taints: "12abe036d1d1b2233305c060684bb0727dc500c9140eab3c37c7264893598d98",
    nodes: "1b632f3fe7d48dd9d656b8140f4cda4ee9822e9efddeedfa28bc98a6b21639a1"
  },
  "true 3": {
    events: "a85ee9a7e92e2950d141602ee4a795f82154bafbb516c4c9647af11895b830be",
    zoneStates: "7958b5e334c7a18464d17269ea366d4945cd7a144fdbb166b0a7b52abc82e931",
    taints: "67e1d2a2f7392f0fcba57608719d5f48c85983fd82aea43127e7fa22b291f3fe",
    nodes: "5bbd588629645415f2e8e1853d81f75bfb2abedfd2f4f238f4da17083d899f47"
  },
  "false 0": {
    events: "07830937c430317bfa18139409988ecdb970e3ec95a9ed3a18f9f67f0bc57969",
    zoneStates: "096c45fdacdb7f4a93a260da40410d035cd196b254fecf4a05389cd8d36414e2",
    taints: "12abe036d1d1b2233305c060684bb0727dc500c9140eab3c37c7264893598d98",
    nodes: "1b632f3fe7d48dd9d656b8140f4cda4ee9822e9efddeedfa28bc98a6b21639a1"
  },
  "false 3": {
    events: "16a756b81af966df1445419a87f6f80893a3f2f7fa09c3b2cc56a448839a62ed",
    zoneStates: "862e020e8433e4384263dfa5d099ad19cf026e369934e37b1852cc0c90628760",
    taints: "2f5de8c63047e1050f4df3a09a0b029af8cc5cf6d9d72659cd1bc9a130830407",
    nodes: "3d11a5f4ec27dd279906a115c8e22419990dc37f73806e90b5b9f85152f86dd7"
  }
}

describe("MonitorPass decisions", () => {
  it.each([
    [true, 0],
    [true, 3],
    [false, 0],
    [false, 3]
  ])("as before, with faults (NodeSource %s, writes taking %i ms)", (cached, writeMs) => {
    const result = run(cached, writeMs)
    // the faults did happen: nodes went NotReady and came back, were removed, a zone fully disrupted, pressure tainted
    expect(new Set(result.events.map((e) => e.reason))).toEqual(new Set(["RegisteredNode", "NodeNotReady", "RemovingNode"]))
    expect(result.zoneStates.map((z) => z.state)).toContain("FullDisruption")
    expect(result.taints.map((t) => t.key)).toContain("node.platform.io/memory-pressure")
    const digests = { events: digest(result.events), zoneStates: digest(result.zoneStates), taints: digest(result.taints), nodes: digest(result.nodes) }
    expect(digests).toEqual(before[`${cached} ${writeMs}`])
  })
})

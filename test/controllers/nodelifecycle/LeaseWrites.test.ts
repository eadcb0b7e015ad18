/**
 * The monitor pass taking node lease writes as they happen (`LeaseWrites`, `NodeSource.subscribeLeases`) decides
 * exactly as the pass reading them back at its start (`NodeSource.leases()`): the same small cluster with faults —
 * nodes dying, partitioned and back, under memory pressure, deleted and created again, their leases deleted and
 * created again, passes that take time while leases are written — run both ways gives the same events, zone states,
 * taints and Node objects, at the same times.
 */
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
import { LeaseWrites, takeLease, type LeaseProbe } from "../../../simulator/controllers/nodelifecycle/LeaseWrites.js"
import { makeLifecycleLog } from "../../../simulator/controllers/nodelifecycle/LifecycleSettings.js"
import { runNodeLifecycleController } from "../../../simulator/controllers/nodelifecycle/NodeLifecycleController.js"
import type { NodeSource } from "../../../simulator/controllers/nodelifecycle/NodeSource.js"
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

/** The run's log, taint changes and final Nodes, the source handing lease writes as they happen or not. */
const run = (subscribe: boolean, writeMs: number) => {
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
    const source: NodeSource = {
      nodes: () => observer.nodes.values(),
      node: (name) => observer.nodes.get(name),
      changedNodes: () => observer.changedNodes(),
      leases: () => observer.changedLeases(),
      ...(subscribe ? { subscribeLeases: (sink) => observer.subscribeLeases(sink) } : {})
    }
    const w = world(client)
    yield* Effect.forkDaemon(w.loop)
    yield* Effect.forkDaemon(
      runNodeLifecycleController(undefined, log, source).pipe(
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

describe("MonitorPass with lease writes taken as they happen", () => {
  it.each([0, 3])("decides as the pass reading them back, with faults (writes taking %i ms)", (writeMs) => {
    const pulled = run(false, writeMs)
    const pushed = run(true, writeMs)
    // the faults did happen: nodes went NotReady and came back, tainted and untainted, a zone fully disrupted
    const reasons = new Set(pulled.events.map((e) => e.reason))
    expect([...reasons].sort()).toEqual(expect.arrayContaining(["NodeNotReady", "RegisteredNode", "RemovingNode"]))
    expect(pulled.zoneStates.map((z) => z.state)).toContain("FullDisruption")
    expect(pulled.taints.some((t) => t.key === "node.platform.io/memory-pressure" || t.key.endsWith("memory-pressure"))).toBe(true)
    expect(pushed.events).toEqual(pulled.events)
    expect(pushed.zoneStates).toEqual(pulled.zoneStates)
    expect(pushed.taints).toEqual(pulled.taints)
    expect(pushed.nodes).toEqual(pulled.nodes)
  })
})

/** A small seeded generator (the test's own). */
const lcg = (seed: number) => {
  let st = seed >>> 0
  return () => {
    st = (Math.imul(st, 1664525) + 1013904223) >>> 0
    return st / 2 ** 32
  }
}

type Record = LeaseProbe

const record = (first: KObject | undefined, now: number): Record => ({
  renew: (first?.spec as { renewTime?: string } | undefined)?.renewTime,
  leaseObject: first,
  probe: now,
  staged: false,
  renewed: false,
  renewBefore: undefined,
  leaseBefore: undefined
})

/**
 * The pass's lease step as it was (`MonitorPass` over `leases()`): every write since the previous pass, in order, to
 * the node's record if it has one, else to the leases records are created with. The general path.
 */
const applyAtPass = (records: Map<string, Record>, writes: Iterable<KObject>, now: number): Map<string, KObject> => {
  const first = new Map<string, KObject>()
  for (const l of writes) {
    const h = records.get(l.metadata.name!)
    if (h === undefined) first.set(l.metadata.name!, l)
    if (h !== undefined && takeLease(h, l)) h.probe = now
  }
  return first
}

const visible = (records: Map<string, Record>) =>
  [...records].map(([name, h]) => [name, h.renew, h.leaseObject, h.probe] as const).sort((a, b) => a[0].localeCompare(b[0]))

describe("LeaseWrites", () => {
  it.each([1, 2, 3, 4, 5, 6])("leaves every record, and the leases new records take, as the pass reading leases() would (seed %i)", (seed) => {
    const random = lcg(seed)
    const names = ["a", "b", "c", "d", "e", "f"]
    const fast = new Map<string, Record>()
    const writes = new LeaseWrites(fast)
    const general = new Map<string, Record>()
    // what `leases()` would hand the next pass (the observer drops a deleted lease's writes)
    let queued: Array<KObject> = []
    let now = 0
    let firstFast = new Map<string, KObject>()
    let firstGeneral = new Map<string, KObject>()
    let probes = 0
    for (let step = 0; step < 4_000; step++) {
      const name = names[Math.floor(random() * names.length)]!
      const r = random()
      if (r < 0.5) {
        // a write; now and then one that does not advance renewTime
        const renewTime = String(100_000 + now + (random() < 0.15 ? -Math.floor(random() * 20_000) : Math.floor(random() * 1_000)))
        const lease: KObject = { metadata: { name, namespace: leaseNamespace }, spec: random() < 0.05 ? {} : { renewTime } }
        writes.written(lease)
        queued.push(lease)
      } else if (r < 0.56) {
        writes.deleted(name)
        queued = queued.filter((l) => l.metadata.name !== name)
      } else if (r < 0.62) {
        // the pass drops a deleted node's record
        const h = fast.get(name)
        if (h !== undefined) {
          fast.delete(name)
          writes.dropped(name, h)
          general.delete(name)
        }
      } else if (r < 0.75) {
        // the pass visits a node without a record: it is made with the lease the pass's start found for it
        if (!fast.has(name)) {
          fast.set(name, record(firstFast.get(name), now))
          general.set(name, record(firstGeneral.get(name), now))
        }
      } else {
        // a pass starts
        now += 5_000
        firstFast = applyAtPass(fast, writes.take(now), now)
        firstGeneral = applyAtPass(general, queued, now)
        queued = []
        expect([...firstFast].sort()).toEqual([...firstGeneral].sort())
        expect(visible(fast)).toEqual(visible(general))
        probes += [...general.values()].filter((h) => h.probe === now).length
      }
    }
    expect(probes).toBeGreaterThan(100)
  })
})

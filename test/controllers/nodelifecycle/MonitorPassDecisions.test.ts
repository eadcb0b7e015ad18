/**
 * The monitor pass decides exactly as it did before its probe alarms went into time buckets and its lease step looked
 * records up in batches (`ProbeAlarms`, `MonitorPass`): a small cluster with faults — nodes dying, partitioned and
 * back, under memory pressure, deleted and created again, their leases deleted, a zone fully disrupted, passes that
 * take time while leases are written — gives the events, zone states, taint changes and Node objects it gave then
 * (their digests taken on main at 1f0de95), on both kinds of source. Likewise nodes kept Ready by their leases alone,
 * whose agents write renewTimes in other forms than the canonical one, compared as texts (digests taken at d7eb58d,
 * before the lease step went to columns: `RenewKey.ts`, `HealthColumns.ts`).
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

/** The renewTime a node's agent writes at `ms`. */
type RenewText = (name: string, ms: number) => string

/**
 * Nodes that renew their lease every 10 s and post their status every 30 s while alive, as node agents do (the nodes
 * `leaseOnly` only when created or revived: their leases alone keep them Ready).
 */
const world = (client: Client, renewText: RenewText = (_, ms) => microTime(ms), leaseOnly: ReadonlySet<string> = new Set()) => {
  const now = Effect.clockWith((c) => c.currentTimeMillis)
  const alive = new Set<string>()
  const health = new Map<string, NodeHealth>()
  const renew = (name: string) =>
    Effect.gen(function* () {
      const lease = yield* Effect.either(client.get(Leases, name, { namespace: leaseNamespace }))
      const renewTime = renewText(name, yield* now)
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
          if (tick % 3 === 0 && !leaseOnly.has(name)) yield* post(name)
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

/** `microTime(ms)` in another year, or with its instant's offset from UTC written as `+hh:00`. */
const inYear = (year: number, ms: number) => `${year}${microTime(ms).slice(4)}`
const withOffset = (hours: number, ms: number) => `${microTime(ms + hours * 3_600_000).slice(0, 26)}+0${hours}:00`

/**
 * RenewTimes in other forms than the canonical one, which the pass compares as texts (`RenewKey.ts`): some order as
 * their instants, some jump ahead of the canonical texts that follow them, so that the node's lease stops being a probe.
 */
const oddRenewText: RenewText = (name, ms) => {
  switch (name) {
    case "o1":
      return withOffset(1, ms)
    case "o2": // ahead for a minute, then canonical again: no probe until the canonical texts catch up
      return ms >= 60_000 && ms < 120_000 ? withOffset(1, ms) : microTime(ms)
    case "o3":
      return inYear(2300, ms)
    case "o4": // a far year, then back
      return ms < 90_000 ? inYear(2300, ms) : microTime(ms)
    case "o5": // +00:00 and Z alternately
      return Math.floor(ms / 10_000) % 2 === 0 ? withOffset(0, ms) : microTime(ms)
    case "o6":
      return inYear(1600, ms)
    default:
      return microTime(ms)
  }
}

const oddNames = Array.from({ length: 8 }, (_, i) => `o${i}`)

const oddScript = (w: ReturnType<typeof world>) =>
  Effect.gen(function* () {
    for (const [i, name] of oddNames.entries()) yield* w.create(name, `zone-${i % 2}`)
    yield* at(150_000, w.removeNode("o3"))
    yield* at(175_000, w.create("o3", "zone-1")) // created again, its lease kept
    yield* at(200_000, w.removeLease("o5"))
    yield* at(215_000, w.revive("o2"))
  })

/** The run's log, taint changes and final Nodes, the controller reading a cache (`NodeSource`) or LISTing. */
const run = (cached: boolean, writeMs: number, odd = false) => {
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
    const w = odd ? world(client, oddRenewText, new Set(oddNames)) : world(client)
    yield* Effect.forkDaemon(w.loop)
    yield* Effect.forkDaemon(
      runNodeLifecycleController(undefined, log, cached ? source : undefined).pipe(
        Effect.provide(EventRecorder.layer({ reportingController: "node-controller", reportingInstance: "node-controller" }))
      )
    )
    yield* (odd ? oddScript(w) : script(w))
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

/** Digests of `run` with odd renewTimes at d7eb58d (before the lease step went to columns), per source and write time. */
const beforeOdd: Record<string, Record<string, string>> = {
  "true 0": {
    events: "923c478c4138f25560e63ffbd9fc2a558f1a6274713521582edf18275706673a",
    zoneStates: "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    taints: "acc395e633eede886d5ff03cef4f5310f7a0eb5ff0ffd85d9b66043def9b11f0",
    nodes: "547e2179980b1fa86444101c2ca18fcfa951794023ae905c74c8f18e11d887c6"
  },
  "true 3": {
    events: "f97433a2dff2da16ccc3645f223f9c73e499633543e4267d67adb09c0d007656",
    zoneStates: "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    taints: "e6314d2ac7cf3b7edd50734c7091247e0cfd2e72f7e94142b7efcf9a41301e71",
    nodes: "857a80ff2257e8b554b93a0d4384841cb9c93064d772c961a64c98c74ad5e5a3"
  },
  "false 0": {
    events: "923c478c4138f25560e63ffbd9fc2a558f1a6274713521582edf18275706673a",
    zoneStates: "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    taints: "acc395e633eede886d5ff03cef4f5310f7a0eb5ff0ffd85d9b66043def9b11f0",
    nodes: "547e2179980b1fa86444101c2ca18fcfa951794023ae905c74c8f18e11d887c6"
  },
  "false 3": {
    events: "956b879a8d4bed4ddc56fb9372b5f78efbc638943b973cee63a079af453cea10",
    zoneStates: "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945",
    taints: "2a655ea46301ff5c045d799a482944f2715b2aa9c8b0a5104920a44efa7cbeb5",
    nodes: "f0c60f69e70b4c0d92b40e20f43734941e308874a66df48a444ae822be04c1b7"
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

  it.each([
    [true, 0],
    [true, 3],
    [false, 0],
    [false, 3]
  ])("as before, with renewTimes in other forms (NodeSource %s, writes taking %i ms)", (cached, writeMs) => {
    const result = run(cached, writeMs, true)
    // the texts that jump ahead left their nodes without probes, which went NotReady (o2 again after its revival)
    expect(result.events.filter((e) => e.reason === "NodeNotReady").map((e) => e.object).sort()).toEqual(["Node/o2", "Node/o2", "Node/o4"])
    const digests = { events: digest(result.events), zoneStates: digest(result.zoneStates), taints: digest(result.taints), nodes: digest(result.nodes) }
    expect(digests).toEqual(beforeOdd[`${cached} ${writeMs}`])
  })
})

/**
 * The node lifecycle controller (reference §4, upstream `pkg/controller/nodelifecycle`, 1.26, taint manager on).
 *
 * Every monitor period (5 s) it lists nodes and node leases through the `ApiClient` and, per node:
 * - probeTimestamp = now whenever Ready's lastHeartbeatTime changed or the lease renewTime advanced;
 * - past probeTimestamp + grace (40 s; 60 s while Ready was never posted) the four conditions become Unknown,
 *   reason `NodeStatusUnknown`, message `Node agent stopped posting node status.` (absent ones
 *   `NodeStatusNeverUpdated` / `Node agent never posted node status.`);
 * - Ready True → not True: event `NodeNotReady`, its pods get Ready=False and a Warning `NodeNotReady` event;
 * - NoSchedule taints mirror the conditions; NoExecute taints follow the Ready status *observed at the start of
 *   the pass* (upstream passes `observedReadyCondition`), through the zone's rate-limited queue (burst 1);
 * - zones: Normal / PartialDisruption / FullDisruption with their rates; all zones fully disrupted → every
 *   NoExecute taint is removed and tainting stops;
 * - taint manager: pods on a node with NoExecute taints are deleted at taint time + their smallest
 *   tolerationSeconds (at once without a matching toleration, never without tolerationSeconds); cancelled when the
 *   taints go. Events `TaintManagerEviction` "Marking for deletion Pod <ns>/<name>" / "Cancelling deletion of Pod …".
 *
 * Choices: the controller polls every period (a LIST of nodes and leases, or a `NodeSource` cache) instead of
 * reacting to informer events; pods that land on an already tainted node are not picked up by the taint manager.
 *
 * A pass is incremental: most nodes are healthy and unchanged, and nothing is due for them until their probe expires.
 * It visits, in the source's order (events and writes are issued in that order), only the nodes that are new or were
 * written since their last visit, were not quiet then (tainted, not Ready, queued, …), or whose probe may have expired
 * (an alarm per node, set at or before probe + grace). The per-zone ready / not-ready counts are kept across passes,
 * each node counting as its last visit left it; deleted nodes are removed from them.
 */
import { Clock, Effect, Either } from "effect"
import { type KObject } from "../../src/api/Object.js"
import { extendable } from "../../src/api/internal/V8Shapes.js"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { nodeLeaseNamespace, regionLabel, zoneLabel } from "../../src/api/WellKnown.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { rfc3339 } from "../apiserver/SystemMeta.js"
import { EventRecorder, type ObjectRef } from "../events/EventRecorder.js"
import { EventHeap, type HeapEntry } from "../kernel/EventHeap.js"
import { TimerHeap, type Timer } from "../kernel/VirtualClock.js"
import type { NodeCondition } from "../nodeagent/NodeStatus.js"
import {
  evictionDelayMs,
  noExecuteTaintKeyFor,
  noScheduleTaintKeys,
  notReadyTaintKey,
  unreachableTaintKey,
  zoneRate,
  ZoneRateLimiter,
  zoneState,
  type Taint,
  type Toleration,
  type ZoneState
} from "./NodeTaints.js"

export interface NodeLifecycleSettings {
  readonly monitorPeriodMs: number
  readonly gracePeriodMs: number
  readonly startupGracePeriodMs: number
  readonly evictionRate: number
  readonly secondaryEvictionRate: number
  readonly largeClusterSizeThreshold: number
  readonly unhealthyZoneThreshold: number
}

/** Controller-manager defaults (reference §4). */
export const defaultNodeLifecycleSettings: NodeLifecycleSettings = {
  monitorPeriodMs: 5_000,
  gracePeriodMs: 40_000,
  startupGracePeriodMs: 60_000,
  evictionRate: 0.1,
  secondaryEvictionRate: 0.01,
  largeClusterSizeThreshold: 50,
  unhealthyZoneThreshold: 0.55
}

export const stoppedPostingMessage = "Node agent stopped posting node status."
export const neverPostedMessage = "Node agent never posted node status."
const conditionTypes = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"] as const

/** What the controller did, in virtual ms; the cluster run reports it. */
export interface LifecycleLog {
  readonly events: Array<{ readonly t: number; readonly reason: string; readonly object: string; readonly note: string }>
  readonly zoneStates: Array<{ readonly t: number; readonly zone: string; readonly state: ZoneState }>
}

export const makeLifecycleLog = (): LifecycleLog => ({ events: [], zoneStates: [] })

interface Health {
  zone: string | undefined
  /** The node and lease objects of the last visit; an identical object means nothing was written since. */
  nodeObject: KObject | undefined
  leaseObject: KObject | undefined
  /** Healthy, untainted, not queued at the last look. */
  quiet: boolean
  grace: number
  probe: number
  heartbeat: string | undefined
  renew: string | undefined
  lastReady: string | undefined
  /** Where the node counts in the zone tally: as its last visit left it. */
  counted: { readonly zone: string; readonly ready: boolean } | undefined
  readonly alarm: Alarm
}

/** A node's alarm in `ProbeAlarms`. */
interface Alarm extends HeapEntry {
  readonly name: string
}

interface Zone {
  state: ZoneState | undefined
  limiter: ZoneRateLimiter
  readonly queue: Array<string>
  readonly queued: Set<string>
}

const nodeRef = (node: KObject): ObjectRef => ({ kind: "Node", apiVersion: "v1", name: node.metadata.name!, uid: node.metadata.uid })
const podRef = (pod: KObject): ObjectRef => ({
  kind: "Pod",
  apiVersion: "v1",
  name: pod.metadata.name!,
  namespace: pod.metadata.namespace,
  uid: pod.metadata.uid
})

const conditionsOf = (node: KObject): ReadonlyArray<NodeCondition> =>
  ((node.status as { conditions?: ReadonlyArray<NodeCondition> } | undefined)?.conditions ?? [])
const taintsOf = (node: KObject): ReadonlyArray<Taint> => ((node.spec as { taints?: ReadonlyArray<Taint> } | undefined)?.taints ?? [])
const zoneOf = (node: KObject): string => {
  const labels = node.metadata.labels ?? {}
  return `${labels[regionLabel] ?? ""}:\u0000:${labels[zoneLabel] ?? ""}`
}
/** No taints, not unschedulable, no condition but Ready is True. */
const quiet = (node: KObject, conditions: ReadonlyArray<NodeCondition>): boolean => {
  const spec = node.spec as { taints?: ReadonlyArray<Taint>; unschedulable?: boolean } | undefined
  if (spec !== undefined && ((spec.taints !== undefined && spec.taints.length > 0) || spec.unschedulable === true)) return false
  for (const c of conditions) if (c.type !== "Ready" && c.status === "True") return false
  return true
}
const printableZone = (key: string): string => key.replace(":\u0000:", "/")
const podKey = (pod: KObject): string => `${pod.metadata.namespace}/${pod.metadata.name}`

/**
 * Finds the nodes whose probe may have expired without looking at every node. Each node has one alarm, set at or
 * before its deadline (probe + grace); a probe only moves forward, so an alarm rings early, never late. An alarm that
 * rings early is set again at the node's current deadline.
 */
class ProbeAlarms {
  private readonly heap = new EventHeap<Alarm>()

  /** Makes `alarm` ring at `deadline` at the latest. */
  set(alarm: Alarm, deadline: number): void {
    if (alarm.index >= 0) {
      if (alarm.time <= deadline) return
      this.heap.remove(alarm)
    }
    this.heap.push(alarm, deadline)
  }

  cancel(alarm: Alarm): void {
    this.heap.remove(alarm)
  }

  /** The nodes past their deadline at `now`; their alarms are left off until set again. */
  expired(now: number, deadlineOf: (name: string) => number | undefined): Set<string> {
    const expired = new Set<string>()
    for (let top = this.heap.peek(); top !== undefined && top.time < now; top = this.heap.peek()) {
      this.heap.pop()
      const deadline = deadlineOf(top.name)
      if (deadline === undefined) continue
      if (now > deadline) expired.add(top.name)
      else this.heap.push(top, deadline)
    }
    return expired
  }
}

/** Ready and not-ready nodes per zone, kept across passes. */
class ZoneTally {
  private readonly counts = new Map<string, { ready: number; notReady: number }>()

  add(zone: string, ready: boolean, delta: 1 | -1): void {
    let c = this.counts.get(zone)
    if (c === undefined) this.counts.set(zone, (c = { ready: 0, notReady: 0 }))
    if (ready) c.ready += delta
    else c.notReady += delta
  }

  size(zone: string): number {
    const c = this.counts.get(zone)
    return c === undefined ? 0 : c.ready + c.notReady
  }

  /** The zones that have nodes. */
  *zones(): Iterable<readonly [zone: string, ready: number, notReady: number]> {
    for (const [zone, c] of this.counts) if (c.ready + c.notReady > 0) yield [zone, c.ready, c.notReady]
  }
}

interface Queued extends HeapEntry {
  readonly name: string
}

/**
 * The order of a pass over a `NodeSource`: its cache's order (insertion order, so a node deleted and created again
 * moves to the end), mirrored from the reported changes. Like an iteration over the live cache, a pass also takes the
 * nodes written ahead of its cursor while it runs; those written behind it wait for the next pass.
 */
class SourceOrder {
  private readonly positions = new Map<string, number>()
  private nextPosition = 0
  /** This pass's nodes to visit, by position. */
  private readonly queue = new EventHeap<Queued>()
  private readonly queued = new Set<number>()
  private cursor = -1
  private nextPass = new Set<string>()
  /** Nodes deleted before this pass reached them (if created again, they are visited instead). */
  private readonly deleted = new Set<string>()

  /** Starts a pass over `names` and the nodes left for it by the previous pass. */
  begin(names: Iterable<string>): void {
    this.cursor = -1
    this.deleted.clear()
    const carried = this.nextPass
    this.nextPass = new Set()
    for (const name of carried) this.enqueue(name)
    for (const name of names) this.enqueue(name)
  }

  /** Takes the cache's order from a full iteration, and visits all of it (the first pass). */
  seed(names: Iterable<string>): void {
    for (const name of names) {
      this.positions.set(name, this.nextPosition++)
      this.enqueue(name)
    }
  }

  apply(changes: Iterable<NodeChange>): void {
    for (const { name, deleted } of changes) {
      const at = this.positions.get(name)
      if (!deleted) {
        if (at === undefined) this.positions.set(name, this.nextPosition++)
        this.enqueue(name)
      } else if (at !== undefined) {
        this.positions.delete(name)
        // behind the cursor it was counted in this pass: it goes in the next one
        if (at <= this.cursor) this.nextPass.add(name)
        else this.deleted.add(name)
      }
    }
  }

  /** The next node to visit, or undefined at the end of the pass. */
  next(): string | undefined {
    for (let top = this.queue.pop(); top !== undefined; top = this.queue.pop()) {
      this.queued.delete(top.time)
      this.cursor = top.time
      // else deleted, perhaps created again further on, since it was queued
      if (this.positions.get(top.name) === top.time) return top.name
    }
    return undefined
  }

  /** The nodes deleted before the pass reached them and not created again, at its end. */
  gone(): Iterable<string> {
    return [...this.deleted].filter((name) => !this.positions.has(name))
  }

  private enqueue(name: string): void {
    const at = this.positions.get(name)
    if (at === undefined) this.deleted.add(name)
    else if (at <= this.cursor) this.nextPass.add(name)
    else if (!this.queued.has(at)) {
      this.queued.add(at)
      this.queue.push({ name, time: at, seq: 0, index: -1 }, at)
    }
  }
}

/** A node written (created or updated) or deleted. */
export interface NodeChange {
  readonly name: string
  readonly deleted: boolean
}

/**
 * Where the monitor pass reads nodes and node leases: by default a LIST of each through the `ApiClient` every
 * period; a cluster run passes an informer-like cache fed by the server's change stream instead (5,000 nodes and
 * leases listed every 5 s cost ~10 % of a simulated hour). With a LIST, a pass finds the nodes written since the
 * previous one by comparing objects; with a cache, the cache reports them.
 */
export interface NodeSource {
  /** Every cached node, in insertion order (a node deleted and created again comes last). */
  readonly nodes: () => Iterable<KObject>
  readonly node: (name: string) => KObject | undefined
  /**
   * The node writes and deletions since the previous call, in write order (a node written twice may come twice). The
   * first pass visits every node; later ones visit the reported nodes besides those due anyway (not quiet, probe
   * expiring), and mirror the order of `nodes()` from the reports: none may be left out.
   */
  readonly changedNodes: () => Iterable<NodeChange>
  /**
   * The node leases written since the previous call, oldest first (a lease written twice may come twice; the last is
   * its latest version). An unchanged lease is no probe, so a pass needs no other.
   */
  readonly leases: () => Iterable<KObject>
}

/** Runs the controller forever on the context's `ApiClient`, `EventRecorder` and `Clock`. */
export const runNodeLifecycleController = (
  settings: NodeLifecycleSettings = defaultNodeLifecycleSettings,
  log: LifecycleLog = makeLifecycleLog(),
  source?: NodeSource
): Effect.Effect<never, never, ApiClient | EventRecorder> =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    const recorder = yield* EventRecorder
    const health = new Map<string, Health>()
    const zones = new Map<string, Zone>()
    const evictions = new TimerHeap()
    const scheduled = new Map<string, Map<string, { timer: Timer; pod: KObject }>>()
    const byTimer = new Map<Timer, { node: string; key: string; pod: KObject }>()
    let allFullyDisrupted = false

    const event = (_obj: KObject, ref: ObjectRef, type: "Normal" | "Warning", reason: string, note: string, t: number) =>
      Effect.gen(function* () {
        log.events.push({ t, reason, object: ref.namespace ? `${ref.kind}/${ref.namespace}/${ref.name}` : `${ref.kind}/${ref.name}`, note })
        yield* recorder.eventf(ref, undefined, type, reason, reason, note)
      })

    /** Applies `mutate` to the node and writes it; re-reads and retries on conflict (≤ 5 tries). */
    const updateNode = (first: KObject, mutate: (n: KObject) => KObject | undefined, subresource?: "status") =>
      Effect.gen(function* () {
        let node: KObject | undefined = first
        for (let i = 0; i < 5 && node !== undefined; i++) {
          const next = mutate(node)
          if (next === undefined) return node
          const written = yield* Effect.either(client.update(Nodes, next, subresource ? { subresource } : {}))
          if (written._tag === "Right") return written.right.object
          if (written.left.status.code !== 409) return undefined
          node = yield* Effect.orElseSucceed(client.get(Nodes, node.metadata.name!), () => undefined)
        }
        return undefined
      })

    const podsOn = (nodeName: string) =>
      Effect.map(
        Effect.orElseSucceed(client.list(Pods, { fieldSelector: `spec.nodeName=${nodeName}` }), () => ({ items: [] as ReadonlyArray<KObject> })),
        (l) => l.items
      )

    const setTaints = (node: KObject, add: ReadonlyArray<Taint>, removeKeys: ReadonlyArray<string>, effect: string) =>
      updateNode(node, (n) => {
        const current = taintsOf(n)
        const kept = current.filter((t) => !(t.effect === effect && removeKeys.includes(t.key)))
        const missing = add.filter((a) => !kept.some((t) => t.key === a.key && t.effect === a.effect))
        if (missing.length === 0 && kept.length === current.length) return undefined
        return { ...n, spec: { ...extendable, ...(n.spec as object), taints: [...kept, ...missing] } }
      })

    // ---- taint manager ------------------------------------------------------------------------------------

    const cancelEvictions = (nodeName: string, t: number) =>
      Effect.gen(function* () {
        const pending = scheduled.get(nodeName)
        if (!pending) return
        scheduled.delete(nodeName)
        for (const { timer, pod } of pending.values()) {
          evictions.remove(timer)
          byTimer.delete(timer)
          yield* event(pod, podRef(pod), "Normal", "TaintManagerEviction", `Cancelling deletion of Pod ${podKey(pod)}`, t)
        }
      })

    const scheduleEvictions = (node: KObject, t: number) =>
      Effect.gen(function* () {
        const name = node.metadata.name!
        const taints = taintsOf(node).filter((x) => x.effect === "NoExecute")
        if (taints.length === 0) return yield* cancelEvictions(name, t)
        const since = Math.min(...taints.map((x) => (x.timeAdded ? Date.parse(x.timeAdded) : t)))
        const pending = scheduled.get(name) ?? new Map<string, { timer: Timer; pod: KObject }>()
        scheduled.set(name, pending)
        for (const pod of yield* podsOn(name)) {
          if (pod.metadata.deletionTimestamp !== undefined) continue
          const key = podKey(pod)
          const old = pending.get(key)
          if (old) {
            evictions.remove(old.timer)
            byTimer.delete(old.timer)
          }
          const tolerations = ((pod.spec as { tolerations?: ReadonlyArray<Toleration> } | undefined)?.tolerations ?? [])
          const delay = evictionDelayMs(tolerations, taints)
          if (delay === undefined) {
            pending.delete(key)
            continue
          }
          const at = Math.max(t, since + delay)
          const timer = evictions.insert(at, () => {})
          pending.set(key, { timer, pod })
          byTimer.set(timer, { node: name, key, pod })
        }
      })

    const runDueEvictions = (now: number) =>
      Effect.gen(function* () {
        for (let top = evictions.peek(); top !== undefined && top.time <= now; top = evictions.peek()) {
          evictions.pop()
          const found = byTimer.get(top)
          if (!found) continue
          byTimer.delete(top)
          scheduled.get(found.node)?.delete(found.key)
          const pod = found.pod
          yield* event(pod, podRef(pod), "Normal", "TaintManagerEviction", `Marking for deletion Pod ${found.key}`, now)
          yield* Effect.ignore(client.delete(Pods, pod.metadata.name!, { namespace: pod.metadata.namespace }))
        }
      })

    // ---- NoExecute tainting ---------------------------------------------------------------------------------

    const zoneFor = (key: string): Zone => {
      let z = zones.get(key)
      if (!z) {
        z = { state: undefined, limiter: new ZoneRateLimiter(settings.evictionRate, 1), queue: [], queued: new Set() }
        zones.set(key, z)
      }
      return z
    }

    const taintNoExecute = (nodeName: string, now: number) =>
      Effect.gen(function* () {
        const node = yield* Effect.orElseSucceed(client.get(Nodes, nodeName), () => undefined)
        if (!node) return
        const ready = conditionsOf(node).find((c) => c.type === "Ready")
        const key = ready ? noExecuteTaintKeyFor(ready.status) : unreachableTaintKey
        if (key === undefined) return
        const other = key === notReadyTaintKey ? unreachableTaintKey : notReadyTaintKey
        const written = yield* setTaints(node, [{ key, effect: "NoExecute", timeAdded: rfc3339(now) }], [other], "NoExecute")
        if (written) yield* scheduleEvictions(written, now)
      })

    const drainZoneQueues = (now: number) =>
      Effect.gen(function* () {
        if (allFullyDisrupted) return
        for (const zone of [...zones.keys()].sort()) {
          const z = zones.get(zone)!
          while (z.queue.length > 0 && z.limiter.tryAccept(now)) {
            const name = z.queue.shift()!
            z.queued.delete(name)
            yield* taintNoExecute(name, now)
          }
        }
      })

    const processTaintBasedEviction = (node: KObject, observedReady: string, now: number) =>
      Effect.gen(function* () {
        const name = node.metadata.name!
        const z = zoneFor(zoneOf(node))
        const noExecute = taintsOf(node).filter((t) => t.effect === "NoExecute").map((t) => t.key)
        const key = noExecuteTaintKeyFor(observedReady)
        if (key === undefined) {
          // Ready: drop both NoExecute taints and anything queued
          if (z.queued.delete(name)) z.queue.splice(z.queue.indexOf(name), 1)
          if (noExecute.includes(notReadyTaintKey) || noExecute.includes(unreachableTaintKey)) {
            yield* setTaints(node, [], [notReadyTaintKey, unreachableTaintKey], "NoExecute")
            yield* cancelEvictions(name, now)
          }
          return
        }
        if (noExecute.includes(key)) return
        const other = key === notReadyTaintKey ? unreachableTaintKey : notReadyTaintKey
        if (noExecute.includes(other)) {
          // swap at once, outside the rate limiter
          const written = yield* setTaints(node, [{ key, effect: "NoExecute", timeAdded: rfc3339(now) }], [other], "NoExecute")
          if (written) yield* scheduleEvictions(written, now)
          return
        }
        if (!z.queued.has(name)) {
          z.queued.add(name)
          z.queue.push(name)
        }
      })

    // ---- monitor pass --------------------------------------------------------------------------------------

    const alarms = new ProbeAlarms()
    const tally = new ZoneTally()
    /** Nodes not quiet at their last visit: visited every pass. */
    const unsettled = new Set<string>()
    const order = new SourceOrder()
    let seeded = false

    const countAs = (h: Health, zone: string, ready: boolean): void => {
      if (h.counted?.zone === zone && h.counted.ready === ready) return
      if (h.counted !== undefined) tally.add(h.counted.zone, h.counted.ready, -1)
      h.counted = { zone, ready }
      tally.add(zone, ready, 1)
    }

    /** After a visit: a node not quiet is visited again next pass, a quiet one once its probe may have expired. */
    const settle = (name: string): void => {
      const h = health.get(name)!
      if (h.quiet) unsettled.delete(name)
      else unsettled.add(name)
      alarms.set(h.alarm, h.probe + h.grace)
    }

    const remove = (name: string, now: number): void => {
      const h = health.get(name)!
      health.delete(name)
      unsettled.delete(name)
      alarms.cancel(h.alarm)
      if (h.counted !== undefined) tally.add(h.counted.zone, h.counted.ready, -1)
      log.events.push({ t: now, reason: "RemovingNode", object: `Node/${name}`, note: `Node ${name} event: Removing Node ${name} from Controller` })
    }

    // The nodes a pass visits, as plain generators: a node that needs nothing costs no effect (and the effects of the
    // others stay as they were: how many run between two yields of the fiber is part of a run's schedule).

    /** Of a LIST, in its order: new, written since the last visit, or `due`. Known nodes not listed go to `gone`. */
    function* visitsOfList(items: ReadonlyArray<KObject>, due: (name: string) => boolean, gone: Set<string>): Generator<KObject, void, undefined> {
      for (const listed of items) {
        const name = listed.metadata.name!
        const h = health.get(name)
        if (h !== undefined && h.nodeObject === listed && !due(name)) continue
        yield listed
        settle(name)
      }
      if (items.length < health.size) {
        const listed = new Set(items.map((n) => n.metadata.name!))
        for (const name of health.keys()) if (!listed.has(name)) gone.add(name)
      }
    }

    /** Of a cache, in its order: the reported ones, and `due`. Deleted known nodes go to `gone`. */
    function* visitsOfSource(src: NodeSource, due: Iterable<string>, gone: Set<string>): Generator<KObject, void, undefined> {
      order.begin(due)
      if (seeded) order.apply(src.changedNodes())
      else {
        src.changedNodes() // all moot: this pass visits every node
        order.seed(Array.from(src.nodes(), (n) => n.metadata.name!))
        seeded = true
      }
      for (let name = order.next(); name !== undefined; name = order.next()) {
        const node = src.node(name)
        if (node === undefined) continue
        yield node
        settle(name)
        order.apply(src.changedNodes())
      }
      for (const name of order.gone()) if (health.has(name)) gone.add(name)
    }

    /**
     * Zone state changes in the order of each zone's first node, the order in which counting every node afresh would
     * meet the zones (only the log of two or more changes in one pass shows it).
     */
    const inOrderOfFirstNode = (changes: Array<readonly [zone: string, state: ZoneState]>, allNodes: Iterable<KObject>) => {
      if (changes.length < 2) return changes
      const rank = new Map<string, number>()
      for (const node of allNodes) {
        const zone = health.get(node.metadata.name!)?.counted?.zone
        if (zone !== undefined && !rank.has(zone)) rank.set(zone, rank.size)
      }
      const rankOf = (zone: string) => rank.get(zone) ?? rank.size
      return changes.sort((a, b) => rankOf(a[0]) - rankOf(b[0]))
    }

    const monitor = (now: number) =>
      Effect.gen(function* () {
        const listing = source ? undefined : yield* Effect.either(client.list(Nodes))
        const leases = source
          ? Either.right({ items: source.leases() })
          : yield* Effect.either(Effect.map(client.list(Leases, { namespace: nodeLeaseNamespace }), (l): { items: Iterable<KObject> } => l))
        if (listing?._tag === "Left") return
        const allNodes = (): Iterable<KObject> => (listing !== undefined ? listing.right.items : source!.nodes())
        // A renewed lease (renewTime advanced) is a probe, like a new Ready heartbeat.
        const firstLeases = new Map<string, KObject>()
        if (leases._tag === "Right") {
          for (const l of leases.right.items) {
            const h = health.get(l.metadata.name!)
            if (h === undefined) firstLeases.set(l.metadata.name!, l)
            if (h === undefined || h.leaseObject === l) continue
            h.leaseObject = l
            const renew = (l.spec as { renewTime?: string } | undefined)?.renewTime
            if (renew !== undefined && (h.renew === undefined || renew > h.renew)) {
              h.renew = renew
              h.probe = now
            }
          }
        }
        const overdue = alarms.expired(now, (name) => {
          const h = health.get(name)
          return h === undefined ? undefined : h.probe + h.grace
        })
        const gone = new Set<string>()
        const visits =
          listing !== undefined
            ? visitsOfList(listing.right.items, (name) => unsettled.has(name) || overdue.has(name), gone)
            : visitsOfSource(source!, [...unsettled, ...overdue], gone)
        for (const listed of visits) {
          let node: KObject = listed
          const name = node.metadata.name!
          let h = health.get(name)
          // Same object as at its last visit (nothing written since) and nothing to do then: its count stands.
          if (h !== undefined && h.nodeObject === listed && h.quiet && !(now > h.probe + h.grace)) continue
          const conditions = conditionsOf(node)
          const ready = conditions.find((c) => c.type === "Ready")
          if (h !== undefined) {
            h.nodeObject = listed
            h.quiet = false
            h.grace = ready === undefined ? settings.startupGracePeriodMs : settings.gracePeriodMs
          }
          if (!h) {
            const lease = firstLeases.get(name)
            h = {
              probe: now,
              heartbeat: ready?.lastHeartbeatTime,
              renew: (lease?.spec as { renewTime?: string } | undefined)?.renewTime,
              lastReady: ready?.status,
              zone: undefined,
              nodeObject: listed,
              leaseObject: lease,
              quiet: false,
              grace: ready === undefined ? settings.startupGracePeriodMs : settings.gracePeriodMs,
              counted: undefined,
              alarm: { name, time: 0, seq: 0, index: -1 }
            }
            health.set(name, h)
            yield* event(node, nodeRef(node), "Normal", "RegisteredNode", `Node ${name} event: Registered Node ${name} in Controller`, now)
          } else {
            if (ready?.lastHeartbeatTime !== h.heartbeat) {
              h.heartbeat = ready?.lastHeartbeatTime
              h.probe = now
            }
          }
          const observedReady = ready?.status ?? "Unknown"
          const grace = ready === undefined ? settings.startupGracePeriodMs : settings.gracePeriodMs
          const expired = now > h.probe + grace
          if (h.zone === undefined) h.zone = zoneOf(node)
          // The common case, a healthy node with nothing to do, stays out of effects: it is most of the work.
          if (!expired && observedReady === "True" && h.lastReady === "True" && quiet(node, conditions)) {
            const z = zones.get(h.zone)
            if (z === undefined || !z.queued.has(name)) {
              h.quiet = true
              countAs(h, h.zone, true)
              continue
            }
          }
          if (expired) {
            const stamp = rfc3339(now)
            const written = yield* updateNode(
              node,
              (n) => {
                const cs = [...conditionsOf(n)]
                let changed = false
                for (const type of conditionTypes) {
                  const i = cs.findIndex((c) => c.type === type)
                  if (i < 0) {
                    cs.push({ type, status: "Unknown", reason: "NodeStatusNeverUpdated", message: neverPostedMessage, lastHeartbeatTime: n.metadata.creationTimestamp ?? stamp, lastTransitionTime: stamp })
                    changed = true
                  } else if (cs[i]!.status !== "Unknown") {
                    cs[i] = { ...cs[i]!, status: "Unknown", reason: "NodeStatusUnknown", message: stoppedPostingMessage, lastTransitionTime: stamp }
                    changed = true
                  }
                }
                return changed ? { ...n, status: { ...(n.status as object), conditions: cs } } : undefined
              },
              "status"
            )
            if (written) {
              node = written
              h.heartbeat = conditionsOf(node).find((c) => c.type === "Ready")?.lastHeartbeatTime
            }
          }
          const currentReady = conditionsOf(node).find((c) => c.type === "Ready")?.status ?? "Unknown"
          // NoSchedule taints mirror the conditions (upstream: on every node update)
          const unschedulable = (node.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true
          const wanted = noScheduleTaintKeys(conditionsOf(node), unschedulable)
          const managed = [notReadyTaintKey, unreachableTaintKey, "node.platform.io/memory-pressure", "node.platform.io/disk-pressure", "node.platform.io/pid-pressure", "node.platform.io/network-unavailable", "node.platform.io/unschedulable"]
          const have = taintsOf(node).filter((t) => t.effect === "NoSchedule" && managed.includes(t.key)).map((t) => t.key)
          if (wanted.some((k) => !have.includes(k)) || have.some((k) => !wanted.includes(k))) {
            const written = yield* setTaints(node, wanted.map((key) => ({ key, effect: "NoSchedule", timeAdded: rfc3339(now) })), managed.filter((k) => !wanted.includes(k)), "NoSchedule")
            if (written) node = written
          }
          if (!allFullyDisrupted) yield* processTaintBasedEviction(node, observedReady, now)
          if (currentReady !== "True" && observedReady === "True") {
            yield* event(node, nodeRef(node), "Normal", "NodeNotReady", `Node ${name} status is now: NodeNotReady`, now)
            for (const pod of yield* podsOn(name)) {
              const status = (pod.status ?? {}) as { conditions?: ReadonlyArray<{ type: string; status: string }> }
              const conds = status.conditions ?? []
              if (!conds.some((c) => c.type === "Ready" && c.status !== "False")) continue
              const next = conds.map((c) => (c.type === "Ready" ? { ...c, status: "False", lastTransitionTime: rfc3339(now) } : c))
              yield* Effect.ignore(client.update(Pods, { ...pod, status: { ...status, conditions: next } }, { namespace: pod.metadata.namespace, subresource: "status" }))
              yield* event(pod, podRef(pod), "Warning", "NodeNotReady", "Node is not ready", now)
            }
          }
          h.lastReady = currentReady
          countAs(h, zoneOf(node), currentReady === "True")
        }
        if (gone.size > 0) for (const name of [...health.keys()]) if (gone.has(name)) remove(name, now)
        // ---- disruption handling
        const states: Array<readonly [zone: string, state: ZoneState]> = []
        for (const [zk, ready, notReady] of tally.zones()) states.push([zk, zoneState(ready, notReady, settings.unhealthyZoneThreshold)])
        const allFull = states.length > 0 && states.every(([, s]) => s === "FullDisruption")
        const changed = inOrderOfFirstNode(states.filter(([zk, s]) => zones.get(zk)?.state !== s), allNodes())
        if (allFull && !allFullyDisrupted) {
          allFullyDisrupted = true
          for (const listed of [...allNodes()]) {
            const node = yield* Effect.orElseSucceed(client.get(Nodes, listed.metadata.name!), () => undefined)
            if (node && taintsOf(node).some((t) => t.effect === "NoExecute")) {
              yield* setTaints(node, [], [notReadyTaintKey, unreachableTaintKey], "NoExecute")
              yield* cancelEvictions(listed.metadata.name!, now)
            }
          }
          for (const z of zones.values()) {
            z.queue.length = 0
            z.queued.clear()
          }
        } else if (!allFull && allFullyDisrupted) {
          allFullyDisrupted = false
          for (const h of health.values()) h.probe = now
        }
        for (const [zk, state] of changed) {
          const z = zoneFor(zk)
          if (z.state !== undefined || state !== "Normal") log.zoneStates.push({ t: now, zone: printableZone(zk), state })
          z.state = state
          const rate = zoneRate(state, tally.size(zk), settings)
          if (rate !== z.limiter.qps) z.limiter = new ZoneRateLimiter(rate, 1)
        }
      })

    // ---- main loop ------------------------------------------------------------------------------------------

    let nextMonitor = yield* Clock.currentTimeMillis
    for (;;) {
      let now = yield* Clock.currentTimeMillis
      if (now >= nextMonitor) {
        yield* monitor(now)
        nextMonitor += settings.monitorPeriodMs
        now = yield* Clock.currentTimeMillis
        if (nextMonitor <= now) nextMonitor = Math.ceil(now / settings.monitorPeriodMs) * settings.monitorPeriodMs
      }
      yield* drainZoneQueues(now)
      yield* runDueEvictions(now)
      now = yield* Clock.currentTimeMillis
      let wake = nextMonitor
      if (!allFullyDisrupted) {
        for (const z of zones.values()) {
          // the tainting pass runs every 100 ms
          if (z.queue.length > 0) wake = Math.min(wake, Math.ceil(z.limiter.nextTokenAt(now) / 100) * 100)
        }
      }
      const due = evictions.peek()
      if (due !== undefined) wake = Math.min(wake, Math.ceil(due.time))
      if (wake > now) yield* Effect.sleep(Math.ceil(wake - now))
    }
  })

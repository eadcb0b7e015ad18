/**
 * The monitor pass (upstream `monitorNodeHealth` / `tryUpdateNodeHealth`, 1.26), every monitor
 * period, per node:
 * - probeTimestamp = now whenever Ready's lastHeartbeatTime changed or the lease renewTime advanced;
 * - past probeTimestamp + grace (40 s; 60 s while Ready was never posted) the four conditions become Unknown,
 *   reason `NodeStatusUnknown`, message `Node agent stopped posting node status.` (absent ones
 *   `NodeStatusNeverUpdated` / `Node agent never posted node status.`);
 * - Ready True → not True: event `NodeNotReady`, its pods get Ready=False and a Warning `NodeNotReady` event;
 * - NoSchedule taints mirror the conditions; the NoExecute taint follows the Ready status *observed at the start of
 *   the pass* (upstream passes `observedReadyCondition`) through the zone queues;
 * - then `handleDisruption`: zone states from the per-zone counts, full disruption of every zone entered or left.
 *
 * A pass is incremental: most nodes are healthy and unchanged, and nothing is due for them until their probe expires.
 * It visits, in the source's order (events and writes are issued in that order), only the nodes that are new or were
 * written since their last visit, were not quiet then (tainted, not Ready, queued, …), or whose probe may have expired
 * (an alarm per node, set at or before probe + grace). The per-zone ready / not-ready counts are kept across passes,
 * each node counting as its last visit left it; deleted nodes are removed from them.
 */
import { Effect } from "effect"
import { taintsOf, type Taint } from "../../../src/api/kinds/Taints.js"
import type { KObject } from "../../../src/api/Object.js"
import { Leases, Nodes, Pods } from "../../../src/api/Resources.js"
import { nodeLeaseNamespace } from "../../../src/api/WellKnown.js"
import { rfc3339 } from "../../apiserver/SystemMeta.js"
import type { NodeCondition } from "../../nodeagent/NodeStatus.js"
import { managedNoScheduleKeys, noScheduleTaintKeys } from "./ConditionTaints.js"
import type { NodeLifecycleSettings } from "./LifecycleSettings.js"
import { HealthColumns } from "./HealthColumns.js"
import { NodeOrdinals } from "./NodeOrdinals.js"
import { SourceOrder, type NodeSource } from "./NodeSource.js"
import { nodeRef, podRef, type NodeUpdates } from "./NodeUpdates.js"
import { makeAlarm, ProbeAlarms, type Alarm } from "./ProbeAlarms.js"
import { noRenew, renewKeyOf } from "./RenewKey.js"
import { zoneKeyOf, zoneState, type ZoneQueues, type ZoneState } from "./ZoneQueues.js"
import { ZoneTally } from "./ZoneTally.js"

export const stoppedPostingMessage = "Node agent stopped posting node status."
export const neverPostedMessage = "Node agent never posted node status."
const conditionTypes = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"] as const

/**
 * What the pass knows of a node between visits (upstream `nodeHealthData`); its probe, grace and lease renewTime are
 * numbers in `HealthColumns` at `ordinal`.
 */
interface Health {
  readonly ordinal: number
  zone: string | undefined
  /** The node object of the last visit; an identical object means nothing was written since. */
  nodeObject: KObject | undefined
  /** Healthy, untainted, not queued at the last look. */
  quiet: boolean
  heartbeat: string | undefined
  lastReady: string | undefined
  /** Where the node counts in the zone tally: as its last visit left it. */
  counted: { readonly zone: string; readonly ready: boolean } | undefined
  readonly alarm: Alarm
}

const conditionsOf = (node: KObject): ReadonlyArray<NodeCondition> =>
  (node.status as { conditions?: ReadonlyArray<NodeCondition> } | undefined)?.conditions ?? []

/** No taints, not unschedulable, no condition but Ready is True. */
const quiet = (node: KObject, conditions: ReadonlyArray<NodeCondition>): boolean => {
  const spec = node.spec as { taints?: ReadonlyArray<Taint>; unschedulable?: boolean } | undefined
  if (spec !== undefined && ((spec.taints !== undefined && spec.taints.length > 0) || spec.unschedulable === true)) return false
  for (const c of conditions) if (c.type !== "Ready" && c.status === "True") return false
  return true
}

export class MonitorPass {
  private readonly health = new Map<string, Health>()
  private readonly columns = new HealthColumns()
  /** The source's, whose lease writes come by ordinal; a LIST's leases are numbered here. */
  private readonly ordinals: NodeOrdinals
  private readonly alarms = new ProbeAlarms()
  private readonly tally = new ZoneTally()
  /** Nodes not quiet at their last visit: visited every pass. */
  private readonly unsettled = new Set<string>()
  private readonly order = new SourceOrder()
  private seeded = false

  constructor(
    private readonly settings: NodeLifecycleSettings,
    private readonly updates: NodeUpdates,
    private readonly zones: ZoneQueues,
    /** Where nodes and leases are read; undefined: a LIST of each every pass. */
    private readonly source: NodeSource | undefined
  ) {
    this.ordinals = source?.ordinals ?? new NodeOrdinals()
  }

  run(now: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const { settings, updates, zones, source, health, columns, ordinals } = this
      const client = updates.client
      const listing = source ? undefined : yield* Effect.either(client.list(Nodes))
      const leases = source ? undefined : yield* Effect.either(client.list(Leases, { namespace: nodeLeaseNamespace }))
      if (listing?._tag === "Left") return
      const allNodes = (): Iterable<KObject> => (listing !== undefined ? listing.right.items : source!.nodes())
      // A renewed lease (renewTime advanced) is a probe, like a new Ready heartbeat. The last lease of a node not kept
      // yet gives its renewTime if the node is visited in this pass.
      const firstLeases = new Map<number, readonly [key: number, odd: unknown]>()
      const leaseWritten = (ordinal: number, key: number, odd: unknown): void => {
        if (columns.tracks(ordinal)) columns.leaseWritten(ordinal, key, odd, now)
        else firstLeases.set(ordinal, [key, odd])
      }
      if (source !== undefined) source.leaseWrites.drain(leaseWritten)
      else if (leases?._tag === "Right") {
        for (const l of leases.right.items) {
          const renew = (l.spec as { renewTime?: unknown } | undefined)?.renewTime
          leaseWritten(ordinals.of(l.metadata.name!), renewKeyOf(renew), renew)
        }
      }
      const overdue = this.alarms.expired(now, (alarm) => columns.deadline(alarm.ordinal))
      const gone = new Set<string>()
      const visits =
        listing !== undefined
          ? this.visitsOfList(listing.right.items, (name) => this.unsettled.has(name) || overdue.has(name), gone)
          : this.visitsOfSource(source!, [...this.unsettled, ...overdue], gone)
      for (const listed of visits) {
        let node: KObject = listed
        const name = node.metadata.name!
        let h = health.get(name)
        // Same object as at its last visit (nothing written since) and nothing to do then: its count stands.
        if (h !== undefined && h.nodeObject === listed && h.quiet && !(now > columns.deadline(h.ordinal)!)) continue
        const conditions = conditionsOf(node)
        const ready = conditions.find((c) => c.type === "Ready")
        const grace = ready === undefined ? settings.startupGracePeriodMs : settings.gracePeriodMs
        if (h !== undefined) {
          h.nodeObject = listed
          h.quiet = false
          columns.setGrace(h.ordinal, grace)
        }
        if (!h) {
          const ordinal = ordinals.of(name)
          const [renewKey, odd] = firstLeases.get(ordinal) ?? [noRenew, undefined]
          columns.track(ordinal, now, grace, renewKey, odd)
          h = {
            ordinal,
            heartbeat: ready?.lastHeartbeatTime,
            lastReady: ready?.status,
            zone: undefined,
            nodeObject: listed,
            quiet: false,
            counted: undefined,
            alarm: makeAlarm(name, ordinal)
          }
          health.set(name, h)
          yield* updates.event(nodeRef(node), "Normal", "RegisteredNode", `Node ${name} event: Registered Node ${name} in Controller`, now)
        } else {
          if (ready?.lastHeartbeatTime !== h.heartbeat) {
            h.heartbeat = ready?.lastHeartbeatTime
            columns.probed(h.ordinal, now)
          }
        }
        const observedReady = ready?.status ?? "Unknown"
        const expired = now > columns.probeOf(h.ordinal) + grace
        if (h.zone === undefined) h.zone = zoneKeyOf(node)
        // The common case, a healthy node with nothing to do, stays out of effects: it is most of the work.
        if (!expired && observedReady === "True" && h.lastReady === "True" && quiet(node, conditions)) {
          if (!zones.isQueued(h.zone, name)) {
            h.quiet = true
            this.countAs(h, h.zone, true)
            continue
          }
        }
        if (expired) {
          const written = yield* this.markUnknown(node, now)
          if (written) {
            node = written
            h.heartbeat = conditionsOf(node).find((c) => c.type === "Ready")?.lastHeartbeatTime
          }
        }
        const currentReady = conditionsOf(node).find((c) => c.type === "Ready")?.status ?? "Unknown"
        // NoSchedule taints mirror the conditions (upstream: on every node update)
        const unschedulable = (node.spec as { unschedulable?: boolean } | undefined)?.unschedulable === true
        const wanted = noScheduleTaintKeys(conditionsOf(node), unschedulable)
        const have = taintsOf(node).filter((t) => t.effect === "NoSchedule" && managedNoScheduleKeys.includes(t.key)).map((t) => t.key)
        if (wanted.some((k) => !have.includes(k)) || have.some((k) => !wanted.includes(k))) {
          const written = yield* updates.setTaints(
            node,
            wanted.map((key) => ({ key, effect: "NoSchedule", timeAdded: rfc3339(now) })),
            managedNoScheduleKeys.filter((k) => !wanted.includes(k)),
            "NoSchedule"
          )
          if (written) node = written
        }
        if (!zones.allFullyDisrupted) yield* zones.observe(node, observedReady, now)
        if (currentReady !== "True" && observedReady === "True") yield* this.markPodsNotReady(node, now)
        h.lastReady = currentReady
        this.countAs(h, zoneKeyOf(node), currentReady === "True")
      }
      if (gone.size > 0) for (const name of [...health.keys()]) if (gone.has(name)) this.remove(name, now)
      yield* this.handleDisruption(allNodes, now)
    })
  }

  /** The four conditions become Unknown (`tryUpdateNodeHealth` past the grace period). */
  private markUnknown(node: KObject, now: number): Effect.Effect<KObject | undefined> {
    const stamp = rfc3339(now)
    return this.updates.updateNode(
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
  }

  /** Ready went from True: event `NodeNotReady`, the node's pods Ready=False (`MarkPodsNotReady`). */
  private markPodsNotReady(node: KObject, now: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const updates = this.updates
      const name = node.metadata.name!
      yield* updates.event(nodeRef(node), "Normal", "NodeNotReady", `Node ${name} status is now: NodeNotReady`, now)
      for (const pod of yield* updates.podsOn(name)) {
        const status = (pod.status ?? {}) as { conditions?: ReadonlyArray<{ type: string; status: string }> }
        const conds = status.conditions ?? []
        if (!conds.some((c) => c.type === "Ready" && c.status !== "False")) continue
        const next = conds.map((c) => (c.type === "Ready" ? { ...c, status: "False", lastTransitionTime: rfc3339(now) } : c))
        yield* Effect.ignore(updates.client.update(Pods, { ...pod, status: { ...status, conditions: next } }, { namespace: pod.metadata.namespace, subresource: "status" }))
        yield* updates.event(podRef(pod), "Warning", "NodeNotReady", "Node is not ready", now)
      }
    })
  }

  /** `handleDisruption`: zone states from the counts; every zone fully disrupted entered or left. */
  private handleDisruption(allNodes: () => Iterable<KObject>, now: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const { zones, tally } = this
      const states: Array<readonly [zone: string, state: ZoneState]> = []
      for (const [zk, ready, notReady] of tally.zones()) states.push([zk, zoneState(ready, notReady, this.settings.unhealthyZoneThreshold)])
      const allFull = states.length > 0 && states.every(([, s]) => s === "FullDisruption")
      const changed = this.inOrderOfFirstNode(states.filter(([zk, s]) => zones.stateOf(zk) !== s), allNodes())
      if (allFull && !zones.allFullyDisrupted) {
        yield* zones.enterFullDisruption([...allNodes()], now)
      } else if (!allFull && zones.allFullyDisrupted) {
        zones.leaveFullDisruption()
        this.columns.probeAll(now)
      }
      for (const [zk, state] of changed) zones.setState(zk, state, tally.size(zk), now)
    })
  }

  private countAs(h: Health, zone: string, ready: boolean): void {
    if (h.counted?.zone === zone && h.counted.ready === ready) return
    if (h.counted !== undefined) this.tally.add(h.counted.zone, h.counted.ready, -1)
    h.counted = { zone, ready }
    this.tally.add(zone, ready, 1)
  }

  /** After a visit: a node not quiet is visited again next pass, a quiet one once its probe may have expired. */
  private settle(name: string): void {
    const h = this.health.get(name)!
    if (h.quiet) this.unsettled.delete(name)
    else this.unsettled.add(name)
    this.alarms.set(h.alarm, this.columns.deadline(h.ordinal)!)
  }

  private remove(name: string, now: number): void {
    const h = this.health.get(name)!
    this.health.delete(name)
    this.unsettled.delete(name)
    this.alarms.cancel(h.alarm)
    this.columns.untrack(h.ordinal)
    if (h.counted !== undefined) this.tally.add(h.counted.zone, h.counted.ready, -1)
    this.updates.log.events.push({ t: now, reason: "RemovingNode", object: `Node/${name}`, note: `Node ${name} event: Removing Node ${name} from Controller` })
  }

  // The nodes a pass visits, as plain generators: a node that needs nothing costs no effect (and the effects of the
  // others stay as they were: how many run between two yields of the fiber is part of a run's schedule).

  /** Of a LIST, in its order: new, written since the last visit, or `due`. Known nodes not listed go to `gone`. */
  private *visitsOfList(items: ReadonlyArray<KObject>, due: (name: string) => boolean, gone: Set<string>): Generator<KObject, void, undefined> {
    const health = this.health
    for (const listed of items) {
      const name = listed.metadata.name!
      const h = health.get(name)
      if (h !== undefined && h.nodeObject === listed && !due(name)) continue
      yield listed
      this.settle(name)
    }
    if (items.length < health.size) {
      const listed = new Set(items.map((n) => n.metadata.name!))
      for (const name of health.keys()) if (!listed.has(name)) gone.add(name)
    }
  }

  /** Of a cache, in its order: the reported ones, and `due`. Deleted known nodes go to `gone`. */
  private *visitsOfSource(src: NodeSource, due: Iterable<string>, gone: Set<string>): Generator<KObject, void, undefined> {
    const order = this.order
    order.begin(due)
    if (this.seeded) order.apply(src.changedNodes())
    else {
      src.changedNodes() // all moot: this pass visits every node
      order.seed(Array.from(src.nodes(), (n) => n.metadata.name!))
      this.seeded = true
    }
    for (let name = order.next(); name !== undefined; name = order.next()) {
      const node = src.node(name)
      if (node === undefined) continue
      yield node
      this.settle(name)
      order.apply(src.changedNodes())
    }
    for (const name of order.gone()) if (this.health.has(name)) gone.add(name)
  }

  /**
   * Zone state changes in the order of each zone's first node, the order in which counting every node afresh would
   * meet the zones (only the log of two or more changes in one pass shows it).
   */
  private inOrderOfFirstNode(changes: Array<readonly [zone: string, state: ZoneState]>, allNodes: Iterable<KObject>) {
    if (changes.length < 2) return changes
    const rank = new Map<string, number>()
    for (const node of allNodes) {
      const zone = this.health.get(node.metadata.name!)?.counted?.zone
      if (zone !== undefined && !rank.has(zone)) rank.set(zone, rank.size)
    }
    const rankOf = (zone: string) => rank.get(zone) ?? rank.size
    return changes.sort((a, b) => rankOf(a[0]) - rankOf(b[0]))
  }
}

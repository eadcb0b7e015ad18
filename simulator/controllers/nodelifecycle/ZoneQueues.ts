/**
 * Zones and their rate-limited NoExecute tainting (upstream `pkg/controller/nodelifecycle`: `ComputeZoneState`,
 * `setLimiterInZone`, `handleDisruption`, `processTaintBaseEviction`, `doNoExecuteTaintingPass`).
 *
 * A node whose Ready status (observed at the start of the pass) is not True waits in its zone's queue; the queue
 * lets nodes through at the zone's rate (burst 1): `--node-eviction-rate` while Normal, `--secondary-node-eviction-
 * rate` in PartialDisruption when the zone has more than `--large-cluster-size-threshold` nodes (else 0), and the
 * normal rate in FullDisruption. When every zone is fully disrupted, all NoExecute taints are removed and tainting
 * stops until one zone recovers.
 */
import { Effect } from "effect"
import { taintsOf } from "../../../src/api/kinds/Taints.js"
import type { KObject } from "../../../src/api/Object.js"
import { Nodes } from "../../../src/api/Resources.js"
import { regionLabel, TaintKeys, zoneLabel } from "../../../src/api/WellKnown.js"
import { rfc3339 } from "../../apiserver/SystemMeta.js"
import type { NodeCondition } from "../../nodeagent/NodeStatus.js"
import { noExecuteTaintKeyFor, otherNoExecuteKey } from "./ConditionTaints.js"
import type { ZoneState } from "./LifecycleSettings.js"
import type { NodeUpdates } from "./NodeUpdates.js"
import type { TaintManager } from "./TaintManager.js"
import { ZoneRateLimiter } from "./ZoneRateLimiter.js"

export type { ZoneState } from "./LifecycleSettings.js"

/** `ComputeZoneState`. */
export const zoneState = (ready: number, notReady: number, unhealthyZoneThreshold: number): ZoneState => {
  if (ready === 0 && notReady > 0) return "FullDisruption"
  if (notReady > 2 && notReady / (notReady + ready) >= unhealthyZoneThreshold) return "PartialDisruption"
  return "Normal"
}

export interface EvictionRates {
  readonly evictionRate: number
  readonly secondaryEvictionRate: number
  readonly largeClusterSizeThreshold: number
}

/** `setLimiterInZone`: nodes tainted per second in a zone of `size` nodes in `state`. */
export const zoneRate = (state: ZoneState, size: number, r: EvictionRates): number =>
  state === "PartialDisruption" ? (size > r.largeClusterSizeThreshold ? r.secondaryEvictionRate : 0) : r.evictionRate

/** `utilnode.GetZoneKey`: region and zone of a node, as one key. */
export const zoneKeyOf = (node: KObject): string => {
  const labels = node.metadata.labels ?? {}
  return `${labels[regionLabel] ?? ""}:\u0000:${labels[zoneLabel] ?? ""}`
}

/** A zone key as the log shows it: `region/zone`. */
export const printableZone = (key: string): string => key.replace(":\u0000:", "/")

/** The tainting pass runs every 100 ms (upstream `nodeEvictionPeriod`). */
const taintingPeriodMs = 100

interface Zone {
  state: ZoneState | undefined
  limiter: ZoneRateLimiter
  readonly queue: Array<string>
  readonly queued: Set<string>
}

const readyStatusOf = (node: KObject): string | undefined =>
  ((node.status as { conditions?: ReadonlyArray<NodeCondition> } | undefined)?.conditions ?? []).find((c) => c.type === "Ready")?.status

export class ZoneQueues {
  private readonly zones = new Map<string, Zone>()
  private fullyDisrupted = false

  constructor(
    private readonly rates: EvictionRates,
    private readonly updates: NodeUpdates,
    private readonly taintManager: TaintManager
  ) {}

  /** Every zone is fully disrupted: no NoExecute tainting. */
  get allFullyDisrupted(): boolean {
    return this.fullyDisrupted
  }

  stateOf(zone: string): ZoneState | undefined {
    return this.zones.get(zone)?.state
  }

  /** The node waits in its zone's queue. */
  isQueued(zone: string, name: string): boolean {
    return this.zones.get(zone)?.queued.has(name) === true
  }

  /** `processTaintBaseEviction`: queue, swap or drop the node's NoExecute taint for its observed Ready status. */
  observe(node: KObject, observedReady: string, now: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const name = node.metadata.name!
      const z = this.zoneFor(zoneKeyOf(node))
      const noExecute = taintsOf(node).filter((t) => t.effect === "NoExecute").map((t) => t.key)
      const key = noExecuteTaintKeyFor(observedReady)
      if (key === undefined) {
        // Ready: drop both NoExecute taints and anything queued
        if (z.queued.delete(name)) z.queue.splice(z.queue.indexOf(name), 1)
        if (noExecute.includes(TaintKeys.notReady) || noExecute.includes(TaintKeys.unreachable)) {
          yield* this.updates.setTaints(node, [], [TaintKeys.notReady, TaintKeys.unreachable], "NoExecute")
          yield* this.taintManager.cancel(name, now)
        }
        return
      }
      if (noExecute.includes(key)) return
      const other = otherNoExecuteKey(key)
      if (noExecute.includes(other)) {
        // swap at once, outside the rate limiter
        const written = yield* this.updates.setTaints(node, [{ key, effect: "NoExecute", timeAdded: rfc3339(now) }], [other], "NoExecute")
        if (written) yield* this.taintManager.schedule(written, now)
        return
      }
      if (!z.queued.has(name)) {
        z.queued.add(name)
        z.queue.push(name)
      }
    })
  }

  /** `doNoExecuteTaintingPass`: taints the queued nodes each zone's limiter lets through, zones in key order. */
  drain(now: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      if (this.fullyDisrupted) return
      for (const zone of [...this.zones.keys()].sort()) {
        const z = this.zones.get(zone)!
        while (z.queue.length > 0 && z.limiter.tryAccept(now)) {
          const name = z.queue.shift()!
          z.queued.delete(name)
          yield* this.taint(name, now)
        }
      }
    })
  }

  /** When a queue can next let a node through (on the tainting period), or `wake` if earlier. */
  nextDrain(now: number, wake: number): number {
    if (this.fullyDisrupted) return wake
    for (const z of this.zones.values()) {
      if (z.queue.length > 0) wake = Math.min(wake, Math.ceil(z.limiter.nextTokenAt(now) / taintingPeriodMs) * taintingPeriodMs)
    }
    return wake
  }

  /** Every zone went fully disrupted: every NoExecute taint goes, and the queues empty. */
  enterFullDisruption(nodes: ReadonlyArray<KObject>, now: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      this.fullyDisrupted = true
      for (const listed of nodes) {
        const node = yield* Effect.orElseSucceed(this.updates.client.get(Nodes, listed.metadata.name!), () => undefined)
        if (node && taintsOf(node).some((t) => t.effect === "NoExecute")) {
          yield* this.updates.setTaints(node, [], [TaintKeys.notReady, TaintKeys.unreachable], "NoExecute")
          yield* this.taintManager.cancel(listed.metadata.name!, now)
        }
      }
      for (const z of this.zones.values()) {
        z.queue.length = 0
        z.queued.clear()
      }
    })
  }

  leaveFullDisruption(): void {
    this.fullyDisrupted = false
  }

  /** A zone's new state: logged (except a new zone's Normal), and its limiter set to the state's rate. */
  setState(zone: string, state: ZoneState, size: number, now: number): void {
    const z = this.zoneFor(zone)
    if (z.state !== undefined || state !== "Normal") this.updates.log.zoneStates.push({ t: now, zone: printableZone(zone), state })
    z.state = state
    const rate = zoneRate(state, size, this.rates)
    if (rate !== z.limiter.qps) z.limiter = new ZoneRateLimiter(rate, 1)
  }

  private zoneFor(key: string): Zone {
    let z = this.zones.get(key)
    if (!z) {
      z = { state: undefined, limiter: new ZoneRateLimiter(this.rates.evictionRate, 1), queue: [], queued: new Set() }
      this.zones.set(key, z)
    }
    return z
  }

  /** Taints a node let through with the NoExecute taint of its current Ready status, and schedules its pods. */
  private taint(nodeName: string, now: number): Effect.Effect<void> {
    return Effect.gen(this, function* () {
      const node = yield* Effect.orElseSucceed(this.updates.client.get(Nodes, nodeName), () => undefined)
      if (!node) return
      const ready = readyStatusOf(node)
      const key = ready !== undefined ? noExecuteTaintKeyFor(ready) : TaintKeys.unreachable
      if (key === undefined) return
      const written = yield* this.updates.setTaints(node, [{ key, effect: "NoExecute", timeAdded: rfc3339(now) }], [otherNoExecuteKey(key)], "NoExecute")
      if (written) yield* this.taintManager.schedule(written, now)
    })
  }
}

/**
 * Pure rules of the node lifecycle controller (reference §4): which taints conditions call for, zone disruption
 * states and their eviction rates, toleration matching, and the per-zone token bucket.
 */
import type { NodeCondition } from "../nodeagent/NodeStatus.js"
import { notReadyTaintKey, unreachableTaintKey } from "../../src/api/kinds/TaintKeys.js"

export { notReadyTaintKey, unreachableTaintKey }

export type TaintEffect = "NoSchedule" | "PreferNoSchedule" | "NoExecute"

export interface Taint {
  readonly key: string
  readonly value?: string
  readonly effect: string
  readonly timeAdded?: string
}

export interface Toleration {
  readonly key?: string
  readonly operator?: string
  readonly value?: string
  readonly effect?: string
  readonly tolerationSeconds?: number
}

/** NoSchedule taints mirroring conditions (`doNoScheduleTaintingPass`). */
export const noScheduleTaintKeys = (conditions: ReadonlyArray<NodeCondition>, unschedulable: boolean): Array<string> => {
  const keys: Array<string> = []
  for (const c of conditions) {
    if (c.type === "Ready") {
      if (c.status === "False") keys.push(notReadyTaintKey)
      else if (c.status === "Unknown") keys.push(unreachableTaintKey)
    } else if (c.status === "True") {
      if (c.type === "MemoryPressure") keys.push("node.platform.io/memory-pressure")
      else if (c.type === "DiskPressure") keys.push("node.platform.io/disk-pressure")
      else if (c.type === "PIDPressure") keys.push("node.platform.io/pid-pressure")
      else if (c.type === "NetworkUnavailable") keys.push("node.platform.io/network-unavailable")
    }
  }
  if (unschedulable) keys.push("node.platform.io/unschedulable")
  return keys
}

/** The NoExecute taint a Ready status calls for: False → not-ready, Unknown → unreachable, True → none. */
export const noExecuteTaintKeyFor = (readyStatus: string): string | undefined =>
  readyStatus === "False" ? notReadyTaintKey : readyStatus === "Unknown" ? unreachableTaintKey : undefined

/** `Toleration.ToleratesTaint`. */
export const tolerates = (t: Toleration, taint: Taint): boolean => {
  if (t.effect !== undefined && t.effect !== "" && t.effect !== taint.effect) return false
  if (t.key !== undefined && t.key !== "" && t.key !== taint.key) return false
  const op = t.operator ?? "Equal"
  if (op === "Exists") return true
  return op === "Equal" && (t.value ?? "") === (taint.value ?? "")
}

/**
 * How long a pod may stay on a node with these NoExecute taints (taint manager): undefined = forever; 0 = at once
 * (some taint not tolerated); else the smallest tolerationSeconds of the tolerations used (ms).
 */
export const evictionDelayMs = (tolerations: ReadonlyArray<Toleration>, taints: ReadonlyArray<Taint>): number | undefined => {
  let min: number | undefined
  for (const taint of taints) {
    const used = tolerations.filter((t) => tolerates(t, taint))
    if (used.length === 0) return 0
    for (const t of used) {
      if (t.tolerationSeconds === undefined) continue
      const ms = Math.max(0, t.tolerationSeconds) * 1000
      min = min === undefined ? ms : Math.min(min, ms)
    }
  }
  return min
}

export type ZoneState = "Normal" | "PartialDisruption" | "FullDisruption"

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

/** client-go `TokenBucketRateLimiter.TryAccept` with burst 1…n; a fresh bucket is full; qps 0 never accepts. */
export class ZoneRateLimiter {
  private tokens: number
  private last: number | undefined
  constructor(
    readonly qps: number,
    readonly burst: number = 1
  ) {
    this.tokens = burst
  }
  tryAccept(now: number): boolean {
    if (this.qps <= 0) return false
    this.refill(now)
    if (this.tokens >= 1) {
      this.tokens -= 1
      return true
    }
    return false
  }
  /** When the next token will be there (ms); Infinity for qps 0. */
  nextTokenAt(now: number): number {
    if (this.qps <= 0) return Infinity
    this.refill(now)
    return this.tokens >= 1 ? now : now + ((1 - this.tokens) * 1000) / this.qps
  }
  private refill(now: number): void {
    if (this.last !== undefined) this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000)
    this.last = now
  }
}

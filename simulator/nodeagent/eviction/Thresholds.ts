/**
 * The eviction manager's pure core (upstream eviction `helpers.go`, `eviction_manager.go`): threshold quantities, which
 * thresholds are met (with minimum reclaim), the pressure conditions with `evictionPressureTransitionPeriod`, grace
 * periods, the order of reclaim, pod ranking, the `Evicted` message and admission under pressure.
 */
import { TaintKeys } from "../../../src/api/WellKnown.js"
import type { Signal, Threshold, ThresholdValue } from "../config/eviction.js"
import type { Observation, PodStats } from "./UsageModel.js"

export type Resource = "memory" | "ephemeral-storage" | "inodes" | "pids"
export type PressureCondition = "MemoryPressure" | "DiskPressure" | "PIDPressure"

export const resourceOf = (s: Signal): Resource =>
  s === "memory.available" || s === "allocatableMemory.available"
    ? "memory"
    : s === "pid.available"
      ? "pids"
      : s.endsWith("inodesFree")
        ? "inodes"
        : "ephemeral-storage"

export const conditionOf = (s: Signal): PressureCondition =>
  resourceOf(s) === "memory" ? "MemoryPressure" : resourceOf(s) === "pids" ? "PIDPressure" : "DiskPressure"

export const taintOf: Record<PressureCondition, string> = {
  MemoryPressure: TaintKeys.memoryPressure,
  DiskPressure: TaintKeys.diskPressure,
  PIDPressure: TaintKeys.pidPressure
}

/** A percentage gives int64(capacity × pct) (`GetThresholdQuantity`). */
export const quantityOf = (v: ThresholdValue, capacity: number): number =>
  v._tag === "Quantity" ? v.quantity.value() : Math.trunc(capacity * v.percentage)

const thresholdKey = (t: Threshold) => `${t.signal}/${t.gracePeriod}`

/** Met iff threshold > available; with `withMinReclaim`, iff threshold + minReclaim > available. */
export const isMet = (t: Threshold, obs: Observation, withMinReclaim: boolean): boolean => {
  const o = obs.signals[t.signal]
  if (!o) return false
  const q = quantityOf(t.value, o.capacity) + (withMinReclaim && t.minReclaim ? quantityOf(t.minReclaim, o.capacity) : 0)
  return q > o.available
}

export interface EvictionState {
  /** Thresholds met at the last pass (kept met until threshold + minReclaim is available again). */
  readonly met: ReadonlyArray<Threshold>
  readonly firstObservedAt: ReadonlyMap<string, number>
  /** Last time each condition's thresholds were met. */
  readonly lastObservedAt: ReadonlyMap<PressureCondition, number>
}

export const initialState: EvictionState = { met: [], firstObservedAt: new Map(), lastObservedAt: new Map() }

export interface PassResult {
  readonly state: EvictionState
  /** Conditions reported (met now, or within the transition period). */
  readonly conditions: ReadonlySet<PressureCondition>
  /** Thresholds past their grace period, memory first. */
  readonly toReclaim: ReadonlyArray<Threshold>
}

const quiet: PassResult = { state: initialState, conditions: new Set(), toReclaim: [] }

const signalOrder = (t: Threshold) => (resourceOf(t.signal) === "memory" ? 0 : 1)

/** One `synchronize` pass up to choosing whom to evict (`eviction_manager.go`). */
export const evaluate = (
  thresholds: ReadonlyArray<Threshold>,
  obs: Observation,
  prev: EvictionState,
  now: number,
  transitionPeriodMs: number
): PassResult => {
  // Quiet node (the common case): nothing met now or before, no condition pending → share one result.
  if (prev.met.length === 0 && prev.lastObservedAt.size === 0 && !thresholds.some((t) => isMet(t, obs, false))) return quiet
  const prevMet = new Set(prev.met.map(thresholdKey))
  const met = thresholds.filter((t) => isMet(t, obs, false) || (prevMet.has(thresholdKey(t)) && isMet(t, obs, true)))
  const firstObservedAt = new Map<string, number>()
  for (const t of met) firstObservedAt.set(thresholdKey(t), prev.firstObservedAt.get(thresholdKey(t)) ?? now)
  const lastObservedAt = new Map(prev.lastObservedAt)
  for (const t of met) lastObservedAt.set(conditionOf(t.signal), now)
  const conditions = new Set<PressureCondition>()
  for (const [c, at] of lastObservedAt) {
    if (now - at < transitionPeriodMs) conditions.add(c)
    else lastObservedAt.delete(c)
  }
  const toReclaim = met
    .filter((t) => now - firstObservedAt.get(thresholdKey(t))! >= t.gracePeriod)
    .sort((a, b) => signalOrder(a) - signalOrder(b))
  return { state: { met, firstObservedAt, lastObservedAt }, conditions, toReclaim }
}

export const isCritical = (s: PodStats) => s.pod.critical === true || s.pod.priority >= 2_000_000_000

const usageOf = (s: PodStats, r: Resource) => (r === "memory" ? s.memory : r === "ephemeral-storage" ? s.disk : r === "inodes" ? s.inodes : s.pids)
const requestOf = (s: PodStats, r: Resource, parse: (q: string) => number) =>
  r === "memory" ? (s.pod.memoryRequest ? parse(s.pod.memoryRequest) : 0) : r === "ephemeral-storage" && s.pod.ephemeralRequest ? parse(s.pod.ephemeralRequest) : 0

/**
 * Ranking (`rankMemoryPressure`, `rankDiskPressureFunc`): memory/disk — usage over request first, then lower priority,
 * then larger (usage − request); pids — lower priority, then more processes.
 */
export const rankPods = (pods: ReadonlyArray<PodStats>, r: Resource, parse: (q: string) => number): Array<PodStats> =>
  [...pods].sort((a, b) => {
    if (r === "pids") return a.pod.priority - b.pod.priority || b.pids - a.pids
    const ua = usageOf(a, r) - requestOf(a, r, parse)
    const ub = usageOf(b, r) - requestOf(b, r, parse)
    const ea = ua > 0 ? 0 : 1
    const eb = ub > 0 ? 0 : 1
    return ea - eb || a.pod.priority - b.pod.priority || ub - ua
  })

const binary = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"]
const decimal = ["k", "M", "G", "T", "P", "E"]

/** A Quantity's canonical text for an integer amount (BinarySI for bytes, DecimalSI for counts). */
export const formatQuantity = (n: number, format: "BinarySI" | "DecimalSI"): string => {
  const v = Math.trunc(n)
  if (v === 0) return "0"
  const base = format === "BinarySI" ? 1024 : 1000
  const suffixes = format === "BinarySI" ? binary : decimal
  let unit = ""
  let x = v
  for (const s of suffixes) {
    if (x % base !== 0) break
    x /= base
    unit = s
  }
  return `${x}${unit}`
}

const formatOf = (r: Resource) => (r === "memory" || r === "ephemeral-storage" ? "BinarySI" : "DecimalSI")

/** The pod event / status message (`evictionMessage`). */
export const evictionMessage = (
  r: Resource,
  thresholdQty: string,
  available: number,
  victim: PodStats,
  parse: (q: string) => number
): string => {
  let msg = `The node was low on resource: ${r}. Threshold quantity: ${thresholdQty}, available: ${formatQuantity(available, formatOf(r))}. `
  if (r === "memory" || r === "ephemeral-storage") {
    const req = r === "memory" ? victim.pod.memoryRequest : victim.pod.ephemeralRequest
    const usage = usageOf(victim, r)
    if (usage > requestOf(victim, r, parse))
      msg += `Container ${victim.pod.container} was using ${formatQuantity(usage, "BinarySI")}, request is ${req ?? "0"}, has larger consumption of ${r}. `
  }
  return msg
}

/** The threshold's quantity as the message prints it: as configured, or int64(capacity × pct). */
export const thresholdText = (t: Threshold, capacity: number): string =>
  t.value._tag === "Quantity" ? t.value.quantity.toString() : formatQuantity(quantityOf(t.value, capacity), formatOf(resourceOf(t.signal)))

export interface AdmitPod {
  readonly critical: boolean
  readonly bestEffort: boolean
  readonly toleratesMemoryPressure: boolean
}

/** Admission under pressure (`managerImpl.Admit`). */
export const admit = (
  pod: AdmitPod,
  conditions: ReadonlySet<PressureCondition>
): { readonly admit: true } | { readonly admit: false; readonly reason: "Evicted"; readonly message: string } => {
  if (conditions.size === 0 || pod.critical) return { admit: true }
  const list = [...conditions]
  if (list.length === 1 && list[0] === "MemoryPressure" && (!pod.bestEffort || pod.toleratesMemoryPressure)) return { admit: true }
  const order: PressureCondition[] = ["MemoryPressure", "DiskPressure", "PIDPressure"]
  return { admit: false, reason: "Evicted", message: `The node had condition: [${order.filter((c) => conditions.has(c)).join(" ")}]. ` }
}

/** The `Evicted` event's annotations (upstream eviction manager): offending containers, their usage, the resource. */
export const evictionAnnotations = (r: Resource, victim: PodStats, parse: (q: string) => number): Record<string, string> => {
  const out: Record<string, string> = { starved_resource: r }
  if (r === "memory" || r === "ephemeral-storage") {
    const usage = usageOf(victim, r)
    if (usage > requestOf(victim, r, parse)) {
      out.offending_containers = victim.pod.container
      out.offending_containers_usage = formatQuantity(usage, "BinarySI")
    } else {
      out.offending_containers = ""
      out.offending_containers_usage = ""
    }
  }
  return out
}

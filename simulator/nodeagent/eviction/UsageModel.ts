/**
 * A scenario-driven resource-usage model for one node and its pods: each quantity is a curve over virtual time
 * (a base value, a linear leak, steps at given times). `observe` turns it into the node agent's stats at an
 * instant: what each eviction signal sees (eviction `helpers.go` `makeSignalObservations`) and each pod's usage. Pure.
 */
export interface UsageCurve {
  /** Value at t = 0. */
  readonly base: number
  /** Growth per second (a leak). */
  readonly perSecond?: number
  /** From `atMs` on, the value jumps by `add` (a step). */
  readonly steps?: ReadonlyArray<{ readonly atMs: number; readonly add: number }>
  /** Upper bound (e.g. a container limit). */
  readonly max?: number
}

export const valueAt = (c: UsageCurve | undefined, t: number): number => {
  if (!c) return 0
  let v = c.base + ((c.perSecond ?? 0) * Math.max(0, t)) / 1000
  for (const s of c.steps ?? []) if (t >= s.atMs) v += s.add
  return Math.max(0, c.max === undefined ? v : Math.min(c.max, v))
}

export interface NodeCapacity {
  /** Bytes. */
  readonly memory: number
  /** Memory allocatable to pods (the pods cgroup), bytes; default = memory. */
  readonly allocatableMemory?: number
  readonly nodefsBytes: number
  readonly nodefsInodes: number
  readonly imagefsBytes: number
  readonly imagefsInodes: number
  readonly pids: number
}

export interface PodUsage {
  readonly namespace: string
  readonly name: string
  readonly container: string
  readonly priority: number
  /** Requests as written (quantity text) and in units. */
  readonly memoryRequest?: string
  readonly ephemeralRequest?: string
  readonly memory?: UsageCurve
  readonly disk?: UsageCurve
  readonly inodes?: UsageCurve
  readonly pids?: UsageCurve
  /** Critical pods are never evicted (priority ≥ 2e9 counts as critical too). */
  readonly critical?: boolean
}

export interface NodeUsageModel {
  readonly capacity: NodeCapacity
  /** Usage outside the pods (system daemons, images on imagefs, …). */
  readonly system: {
    readonly memory?: UsageCurve
    readonly nodefsBytes?: UsageCurve
    readonly nodefsInodes?: UsageCurve
    readonly imagefsBytes?: UsageCurve
    readonly imagefsInodes?: UsageCurve
    readonly pids?: UsageCurve
  }
  readonly pods: ReadonlyArray<PodUsage>
}

export interface PodStats {
  readonly pod: PodUsage
  readonly memory: number
  readonly disk: number
  readonly inodes: number
  readonly pids: number
}

export interface SignalObservation {
  readonly available: number
  readonly capacity: number
}

export interface Observation {
  readonly signals: Readonly<Record<string, SignalObservation>>
  readonly pods: ReadonlyArray<PodStats>
}

/** Stats at `t` ms since the model started; pods in `gone` (evicted) use nothing. */
export const observe = (m: NodeUsageModel, t: number, gone: ReadonlySet<string> = new Set()): Observation => {
  const pods: PodStats[] = []
  let podMemory = 0
  let podDisk = 0
  let podInodes = 0
  let podPids = 0
  for (const p of m.pods) {
    if (gone.size > 0 && gone.has(`${p.namespace}/${p.name}`)) continue
    const s: PodStats = { pod: p, memory: valueAt(p.memory, t), disk: valueAt(p.disk, t), inodes: valueAt(p.inodes, t), pids: valueAt(p.pids, t) }
    podMemory += s.memory
    podDisk += s.disk
    podInodes += s.inodes
    podPids += s.pids
    pods.push(s)
  }
  const c = m.capacity
  const sys = m.system
  const clamp = (capacity: number, used: number): SignalObservation => ({ capacity, available: Math.max(0, capacity - used) })
  return {
    pods,
    signals: {
      "memory.available": clamp(c.memory, valueAt(sys.memory, t) + podMemory),
      "allocatableMemory.available": clamp(c.allocatableMemory ?? c.memory, podMemory),
      "nodefs.available": clamp(c.nodefsBytes, valueAt(sys.nodefsBytes, t) + podDisk),
      "nodefs.inodesFree": clamp(c.nodefsInodes, valueAt(sys.nodefsInodes, t) + podInodes),
      "imagefs.available": clamp(c.imagefsBytes, valueAt(sys.imagefsBytes, t)),
      "imagefs.inodesFree": clamp(c.imagefsInodes, valueAt(sys.imagefsInodes, t)),
      "pid.available": clamp(c.pids, valueAt(sys.pids, t) + podPids)
    }
  }
}

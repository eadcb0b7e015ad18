/**
 * Simulated node agents, many per fiber. One long-lived fiber owns a shard of nodes and keeps every node's next
 * lease renewal, status tick and pod write in one due-time queue; it wakes at most once per `resolutionMs` of
 * virtual time and handles everything due in a plain loop. Each event keeps its own exact (whole-millisecond)
 * time: renewTime, latencies and the next due time are computed from it, not from the wake-up.
 * (Measured: ~6.5 µs per fiber wake-up, so one fiber per node would not reach 5,000 nodes × 1 hour in seconds.)
 *
 * Per node (reference §3.1, §3.2):
 * - registration: the Node object with capacity cpu / memory / pods and the four conditions;
 * - lease `platform-node-lease/<node>`: renewed every 0.25 × nodeLeaseDurationSeconds, sliding, jitter 0.04
 *   (next start = previous end + [interval, 1.04 × interval)); a failed update is retried at once up to 5 tries,
 *   then ensure-lease (GET; 404 → create) with backoff 200 ms, 400 ms, … 7 s until it succeeds;
 * - status every nodeStatusUpdateFrequency (jitter 0.04): GET the node, compute conditions, PATCH iff changed or
 *   nodeStatusReportFrequency passed; through the node's platformAPIQPS / platformAPIBurst token bucket (delays);
 * - pods bound to the node (spec.nodeName) are marked Running, one status write per pod, through the same bucket.
 * The lease client is not rate-limited. A request to an unreachable server (partition, paused server) fails after
 * the heartbeat client timeout min(nodeStatusUpdateFrequency, lease duration).
 *
 * Faults are per node: `stoppedAt` (the agent dies: nothing more is written) and partition windows.
 *
 * Requests go through an `ApiClientService` (in simulations the in-process client, so every write takes the
 * server's full request path: decoding, validation, optimistic concurrency, watch events). The in-process client
 * answers at once at the shard's clock (`ApiClientService.at`); any other client's request is an effect the shard's
 * fiber runs in place. Either way the server sees it at the wake-up: server-side times of agent writes have the
 * shard's resolution (1 s by default). What the agent itself writes (renewTime,
 * heartbeat times) and the latencies it records keep each event's exact time; latencies come from the
 * `ServiceTimeModel`, not from the host.
 */
import { Clock, Effect, Either } from "effect"
import { extendable, type KObject, type ObjectMeta } from "../../src/api/Object.js"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import type { ApiError } from "../../src/api/Status.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { makeHistogram, recordMillis, type Histogram } from "../../src/loadgen/LatencyRecorder.js"
import type { Store } from "../apiserver/Store.js"
import { microTime, rfc3339 } from "../apiserver/SystemMeta.js"
import * as TokenBucket from "../events/TokenBucket.js"
import type { SeededRandomService } from "../kernel/SeededRandom.js"
import { DueQueue } from "../kernel/DueQueue.js"
import type { ServiceTimeModel } from "../kernel/ServiceTime.js"
import type { NodeAgentConfiguration } from "./config/NodeAgentConfiguration.js"
import { admit, taintOf, type PressureCondition } from "./eviction/Thresholds.js"
import { desiredConditions, healthy, mergeConditions, shouldPost, statusChanged, type NodeCondition, type NodeHealth } from "./NodeStatus.js"

export const leaseNamespace = "platform-node-lease"
export const zoneLabel = "topology.platform.io/zone"
export const regionLabel = "topology.platform.io/region"
export const hostnameLabel = "platform.io/hostname"

/** The parts of a NodeAgentConfiguration the model uses, durations in ms. */
export interface NodeAgentSettings {
  readonly nodeStatusUpdateFrequencyMs: number
  readonly nodeStatusReportFrequencyMs: number
  readonly nodeLeaseDurationSeconds: number
  readonly platformAPIQPS: number
  readonly platformAPIBurst: number
  readonly maxPods: number
  readonly podsPerCore: number
}

export const settingsOf = (c: NodeAgentConfiguration): NodeAgentSettings => ({
  nodeStatusUpdateFrequencyMs: c.nodeStatusUpdateFrequency,
  nodeStatusReportFrequencyMs: c.nodeStatusReportFrequency,
  nodeLeaseDurationSeconds: c.nodeLeaseDurationSeconds,
  platformAPIQPS: c.platformAPIQPS,
  platformAPIBurst: c.platformAPIBurst,
  maxPods: c.maxPods,
  podsPerCore: c.podsPerCore
})

/** Lease timing constants (reference §3.1). */
export const leaseTiming = {
  renewFraction: 0.25,
  jitterFactor: 0.04,
  maxUpdateTries: 5,
  backoffStartMs: 200,
  backoffMaxMs: 7_000
} as const

export const statusJitterFactor = 0.04

/** Events a shard handles before it lets other fibers run. */
const yieldEvery = 256

export interface Interval {
  readonly from: number
  readonly to: number
}

/** One simulated node: its shape and its faults (mutable, so faults can be injected while running). */
export interface SimulatedNode {
  readonly name: string
  readonly zone: string
  readonly region: string
  readonly cpu: string
  readonly memory: string
  /** Pod capacity (already min(cores × podsPerCore, maxPods) or the shape's value). */
  readonly pods: number
  /** When the agent starts (virtual ms). */
  readonly startAt: number
  /** From this time on the agent is dead: no writes at all. Infinity = never. */
  stoppedAt: number
  /** Windows in which the agent cannot reach the API server. */
  partitions: Array<Interval>
}

export const makeNode = (fields: Omit<SimulatedNode, "stoppedAt" | "partitions">): SimulatedNode => ({
  ...extendable,
  ...fields,
  stoppedAt: Infinity,
  partitions: []
})

/** Counters shared by all shards of a run. */
export class NodeAgentMetrics {
  registrations = 0
  leaseWrites = 0
  leaseCreates = 0
  /** Failed lease requests (update tries and ensure GETs). */
  leaseFailures = 0
  statusChecks = 0
  statusPatches = 0
  podStatusWrites = 0
  /** Lease renew latency (ms, virtual): from the start of the renewal to the response. */
  readonly leaseLatency: Histogram = makeHistogram()
}

export interface NodeAgentEnvironment {
  /** Pod reads (the agent's informer cache: the server's current objects). */
  readonly store: Store
  /** Every request (registration, lease, status, pod status). */
  readonly client: ApiClientService
  readonly serviceTime: ServiceTimeModel
  readonly settings: NodeAgentSettings
  readonly metrics: NodeAgentMetrics
  /** API server pauses: nobody reaches the server inside these windows. */
  readonly pauses: ReadonlyArray<Interval>
  /** Wake-up granularity of a shard (ms). */
  readonly resolutionMs: number
}

/** A request an event handler makes (run by the shard's fiber), or nothing. */
type Request = Effect.Effect<void> | undefined

const ignore = (): void => {}

const leaseOptions = { namespace: leaseNamespace } as const
const statusOptions = { subresource: "status" } as const

/** Approximate request sizes for the service-time model. */
const leaseBytes = 420
const statusBytes = 1_600
const podStatusBytes = 900

const fractionOf = (micros: number): string => `.${String(micros).padStart(6, "0")}Z`

/** microTime / rfc3339 with the date part cached per second: most calls fall in the same second as the last. */
class TimeText {
  private second = NaN
  private prefix = ""
  private whole = ""
  private refresh(ms: number): void {
    const second = Math.floor(ms / 1000)
    if (second === this.second) return
    this.second = second
    this.whole = rfc3339(second * 1000)
    this.prefix = this.whole.slice(0, -1) // without "Z"
  }
  /** `.mmm000Z` by whole millisecond of the second. */
  private readonly fractions: Array<string | undefined> = []
  micro(ms: number): string {
    this.refresh(ms)
    const micros = Math.round((ms - this.second * 1000) * 1000)
    if (micros >= 1_000_000) return microTime(ms)
    const fraction = micros % 1000 === 0 ? (this.fractions[micros / 1000] ??= fractionOf(micros)) : fractionOf(micros)
    // Joined, not concatenated: a concatenation stays a tree of strings until the server's format check copies it
    // flat, and each of the ~150,000 lease versions in the history window would keep both (~40 bytes more each).
    return [this.prefix, fraction].join("")
  }
  seconds(ms: number): string {
    this.refresh(ms)
    return this.whole
  }
}

interface RunningParts {
  readonly at: string
  readonly conditions: ReadonlyArray<object>
  readonly running: object
  readonly single: ReadonlyArray<{ readonly name: string; readonly [field: string]: unknown }>
}

const enum Kind {
  Register,
  Lease,
  Status,
  PostStatus,
  PodStatus
}

/** What is due, with its `Kind` as the queue's tag: an agent, or for a pod start the agent and the pod. */
type Due = AgentState | PodStart

interface PodStart {
  readonly agent: AgentState
  readonly pod: string
}

const noPressure: ReadonlySet<PressureCondition> = new Set()
const admitted = { admit: true } as const

/** The pressure conditions a node's health reports. */
const pressureOf = (h: NodeHealth): ReadonlySet<PressureCondition> => {
  if (!h.memoryPressure && !h.diskPressure && !h.pidPressure) return noPressure
  const set = new Set<PressureCondition>()
  if (h.memoryPressure) set.add("MemoryPressure")
  if (h.diskPressure) set.add("DiskPressure")
  if (h.pidPressure) set.add("PIDPressure")
  return set
}

interface PodSpecView {
  readonly priority?: number
  readonly containers?: ReadonlyArray<{ readonly resources?: { readonly requests?: object; readonly limits?: object } }>
  readonly tolerations?: ReadonlyArray<{ readonly key?: string; readonly operator?: string; readonly effect?: string }>
}

/** What admission looks at: criticality, QoS BestEffort (no requests or limits), a memory-pressure toleration. */
const admissionView = (pod: KObject) => {
  const spec = (pod.spec ?? {}) as PodSpecView
  const hasResources = (spec.containers ?? []).some(
    (c) => Object.keys(c.resources?.requests ?? {}).length > 0 || Object.keys(c.resources?.limits ?? {}).length > 0
  )
  return {
    critical: (spec.priority ?? 0) >= 2_000_000_000,
    bestEffort: !hasResources,
    toleratesMemoryPressure: (spec.tolerations ?? []).some(
      (t) => (t.key === taintOf.MemoryPressure || (t.key === undefined && t.operator === "Exists")) && (t.effect === undefined || t.effect === "NoSchedule")
    )
  }
}

/**
 * When the first fault of `node` begins, undefined if it never has one. (Undefined rather than Infinity: a field
 * that only ever holds numbers keeps each in a box of its own, one more memory read per event.)
 */
const undisturbedUntil = (node: SimulatedNode, pauses: ReadonlyArray<Interval>): number | undefined => {
  const first = Math.min(node.stoppedAt, ...node.partitions.map((w) => w.from), ...pauses.map((w) => w.from))
  return first === Infinity ? undefined : first
}

const inside = (windows: ReadonlyArray<Interval>, t: number): boolean => {
  for (const w of windows) if (t >= w.from && t < w.to) return true
  return false
}

/** Fields in the order of use: what every lease and status event reads comes first (fewer cache lines). */
interface AgentState {
  /**
   * Before this time (undefined: never) the agent is neither stopped nor cut off (faults are known when the shard is
   * made), so most events skip the fault checks, and with them a read of the node's fault records.
   */
  readonly undisturbedUntil: number | undefined
  /** Pods bound and not started yet; undefined when none (the common case costs no read of an array). */
  pending: Array<string> | undefined
  /** The Node as the server has it (fed by every write, as an informer cache would be). */
  current: KObject | undefined
  /** What the node's own checks find (pressure conditions): the conditions it posts. */
  health: NodeHealth
  /** The Node object and health last found unchanged: no need to compare again. */
  checked: KObject | undefined
  checkedHealth: NodeHealth | undefined
  readonly node: SimulatedNode
  /** The lease's metadata and spec as last read or written (undefined: read it first). */
  leaseMeta: ObjectMeta | undefined
  leaseSpec: Readonly<Record<string, unknown>>
  ensuring: boolean
  lastReport: number
  uid: string | undefined
  leaseTries: number
  backoffMs: number
  readonly bucket: TokenBucket.TokenBucket
  readonly capacity: Readonly<Record<string, string>>
}

export class NodeAgentShard {
  private readonly due: DueQueue<Due>
  private readonly agents = new Map<string, AgentState>()
  private readonly renewIntervalMs: number
  private readonly timeoutMs: number
  private readonly text = new TimeText()

  constructor(
    nodes: ReadonlyArray<SimulatedNode>,
    private readonly env: NodeAgentEnvironment,
    private readonly random: SeededRandomService
  ) {
    const s = env.settings
    this.due = new DueQueue(env.resolutionMs)
    this.renewIntervalMs = s.nodeLeaseDurationSeconds * 1000 * leaseTiming.renewFraction
    this.timeoutMs = Math.min(s.nodeStatusUpdateFrequencyMs, s.nodeLeaseDurationSeconds * 1000)
    for (const node of nodes) {
      const state: AgentState = {
        undisturbedUntil: undisturbedUntil(node, env.pauses),
        pending: undefined,
        current: undefined,
        health: healthy,
        checked: undefined,
        checkedHealth: undefined,
        node,
        leaseMeta: undefined,
        leaseSpec: {},
        ensuring: false,
        lastReport: -Infinity,
        uid: undefined,
        leaseTries: 0,
        backoffMs: 0,
        bucket: TokenBucket.make(s.platformAPIQPS, s.platformAPIBurst),
        capacity: { cpu: node.cpu, memory: node.memory, pods: String(node.pods) }
      }
      this.agents.set(node.name, state)
      this.due.push(state, node.startAt, Kind.Register)
    }
  }

  has(name: string): boolean {
    return this.agents.has(name)
  }

  /** Every write of a Node of this shard (the agent's watch of its own Node object). */
  nodeWritten(node: string, obj: KObject | undefined): void {
    const a = this.agents.get(node)
    if (a) a.current = obj
  }

  /** The pressure conditions `node`'s eviction manager finds now; its agent posts them at its next status check. */
  setPressure(node: string, conditions: ReadonlySet<PressureCondition>): void {
    const a = this.agents.get(node)
    if (a === undefined) return
    a.health = {
      ...a.health,
      memoryPressure: conditions.has("MemoryPressure"),
      diskPressure: conditions.has("DiskPressure"),
      pidPressure: conditions.has("PIDPressure")
    }
  }

  /** A pod bound to `node` that is not Running yet; the agent writes its status at its next tick. */
  podBound(node: string, podKey: string): void {
    const a = this.agents.get(node)
    if (a && !a.pending?.includes(podKey)) (a.pending ??= []).push(podKey)
  }

  /** The shard's fiber: sleep to the next due event (rounded up to the resolution), run everything due. */
  readonly run: Effect.Effect<never> = Effect.gen(this, function* () {
    let now = (this.now = yield* Clock.currentTimeMillis)
    for (;;) {
      const next = this.due.nextDue()
      if (next === undefined) return yield* Effect.never
      const wake = Math.max(now, next)
      if (wake > now) {
        yield* Effect.sleep(wake - now)
        now = this.now = yield* Clock.currentTimeMillis
      }
      const due = this.due
      let handled = 0
      for (let e = due.popDue(now); e !== undefined; e = due.popDue(now)) {
        const request = this.dispatch(due.tag, e, due.time)
        if (request !== undefined) yield* request
        // Let watchers (other fibers) read between bursts, as they would while a second of writes goes by.
        if (++handled % yieldEvery === 0) yield* Effect.yieldNow()
      }
    }
  })

  /** The fiber's clock at its last wake-up: when the server sees the shard's requests. */
  private now = 0

  /**
   * Sends a request through the client and hands its answer to `onSuccess` / `onFailure`, which may send follow-up
   * requests the same way. An in-process client answers at once (no fiber step per request: most of a shard's
   * time otherwise); any other client's request is returned for the shard's fiber to run.
   */
  private send<A>(
    request: (client: ApiClientService) => Effect.Effect<A, ApiError>,
    onSuccess: (answer: A) => Request | void,
    onFailure: (error: ApiError) => Request | void
  ): Request {
    const client = this.env.client
    const answer = request(client.at?.(this.now) ?? client)
    if (Either.isEither(answer)) {
      const done = answer as Either.Either<A, ApiError>
      return (Either.isRight(done) ? onSuccess(done.right) : onFailure(done.left)) as Request
    }
    return Effect.matchEffect(answer, {
      onSuccess: (a) => (onSuccess(a) as Request) ?? Effect.void,
      onFailure: (e) => (onFailure(e) as Request) ?? Effect.void
    })
  }

  /** Handles a due event; returns the request it makes, if any, for the shard's fiber to run. */
  private dispatch(kind: Kind, due: Due, time: number): Request {
    switch (kind) {
      case Kind.Register:
        return this.register(due as AgentState, time)
      case Kind.Lease:
        return this.renewLease(due as AgentState, time)
      case Kind.Status:
        return this.syncStatus(due as AgentState, time)
      case Kind.PostStatus:
        return this.postStatus(due as AgentState, time)
      case Kind.PodStatus:
        return this.writePodStatus((due as PodStart).agent, (due as PodStart).pod, time)
    }
  }

  private leaseAt(a: AgentState, time: number): void {
    this.due.push(a, time, Kind.Lease)
  }

  private statusAt(a: AgentState, time: number): void {
    this.due.push(a, time, Kind.Status)
  }

  private stopped(a: AgentState, t: number): boolean {
    return a.undisturbedUntil !== undefined && t >= a.undisturbedUntil && t >= a.node.stoppedAt
  }

  private reachable(a: AgentState, t: number): boolean {
    return a.undisturbedUntil === undefined || t < a.undisturbedUntil || (!inside(a.node.partitions, t) && !inside(this.env.pauses, t))
  }

  private jittered(interval: number, factor: number): number {
    return interval * (1 + factor * this.random.next())
  }

  // ---- registration ------------------------------------------------------------------------------------

  /** POST the Node; when it exists already (a restarted agent), GET it to learn its uid. */
  private register(a: AgentState, t: number): Request {
    const node = a.node
    if (this.stopped(a, t)) return
    if (!this.reachable(a, t)) {
      this.due.push(a, t + this.timeoutMs, Kind.Register)
      return
    }
    const adm = this.env.serviceTime.complete(t, "mutating", 0, statusBytes)
    const now = rfc3339(t)
    const registration: KObject = {
      metadata: {
        name: node.name,
        labels: {
          "platform.io/arch": "amd64",
          "platform.io/os": "linux",
          [hostnameLabel]: node.name,
          [zoneLabel]: node.zone,
          [regionLabel]: node.region
        }
      },
      spec: {},
      status: {
        capacity: a.capacity,
        allocatable: a.capacity,
        conditions: mergeConditions([], desiredConditions(a.health), now),
        nodeInfo: { nodeAgentVersion: "v1.26.0", operatingSystem: "linux", architecture: "amd64" }
      }
    }
    return this.send(
      (client) => client.create(Nodes, registration),
      (created) => {
        a.uid = created.object.metadata.uid
        a.lastReport = t
        this.env.metrics.registrations++
        this.registered(a, adm)
      },
      () =>
        this.send(
          (client) => client.get(Nodes, node.name),
          (existing) => {
            a.uid = existing.metadata.uid
            this.registered(a, adm)
          },
          () => this.registered(a, adm)
        )
    )
  }

  /** Registered (or found registered): lease and status loops start, pods bound meanwhile are started. */
  private registered(a: AgentState, adm: number): void {
    const end = Math.ceil(adm)
    this.leaseAt(a, end)
    const firstStatus = Math.round(end + this.jittered(this.env.settings.nodeStatusUpdateFrequencyMs, statusJitterFactor))
    this.statusAt(a, firstStatus)
    if (a.pending !== undefined) this.syncPods(a, end)
  }

  // ---- lease (reference §3.1) ------------------------------------------------------------------------------

  private renewLease(a: AgentState, t: number): Request {
    if (this.stopped(a, t)) return
    const env = this.env
    const metrics = env.metrics
    if (a.pending !== undefined) this.syncPods(a, t)
    if (!this.reachable(a, t)) {
      metrics.leaseFailures++
      const failedAt = t + this.timeoutMs
      if (a.ensuring) {
        // backoffEnsureLease: sleep, doubling up to 7 s, and try again, forever
        const next = failedAt + a.backoffMs
        a.backoffMs = Math.min(2 * a.backoffMs, leaseTiming.backoffMaxMs)
        this.leaseAt(a, next)
      } else if (a.leaseMeta !== undefined && a.leaseTries + 1 < leaseTiming.maxUpdateTries) {
        a.leaseTries++
        this.leaseAt(a, failedAt)
      } else {
        // "failed 5 attempts to update lease": fall back to ensure-lease at once
        a.ensuring = true
        a.leaseTries = 0
        a.backoffMs = leaseTiming.backoffStartMs
        this.leaseAt(a, failedAt)
      }
      return
    }
    if (a.ensuring || a.leaseMeta === undefined) return this.ensureLease(a, t)
    return this.updateLease(a, t, t)
  }

  /** ensure-lease: GET it; a 404 creates it, anything else renews what was read. */
  private ensureLease(a: AgentState, t: number): Request {
    const env = this.env
    const got = env.serviceTime.complete(t, "read", 1, leaseBytes)
    a.ensuring = false
    a.leaseTries = 0
    return this.send(
      (client) => client.get(Leases, a.node.name, leaseOptions),
      (lease) => {
        this.remember(a, lease)
        return this.updateLease(a, t, got)
      },
      (e) => (e.status.code === 404 ? this.createLease(a, t, got) : this.leaseConflict(a, got))
    )
  }

  private createLease(a: AgentState, t: number, start: number): Request {
    const created = this.env.serviceTime.complete(start, "mutating", 0, leaseBytes)
    const lease = this.newLease(a, start)
    return this.send(
      (client) => client.create(Leases, lease, leaseOptions),
      (made) => {
        this.env.metrics.leaseCreates++
        this.leaseWritten(a, made.object, t, created)
      },
      () => this.leaseConflict(a, created)
    )
  }

  /** PUT the lease with a new renewTime (and the owner reference once the Node's uid is known). */
  private updateLease(a: AgentState, t: number, start: number): Request {
    const adm = this.env.serviceTime.complete(start, "mutating", 0, leaseBytes)
    const meta = a.leaseMeta!
    const spec = a.leaseSpec
    const renewed: KObject = {
      metadata: meta.ownerReferences === undefined && a.uid !== undefined ? { ...extendable, ...meta, ownerReferences: [this.ownerOf(a)] } : meta,
      spec: { ...extendable, ...spec, renewTime: this.text.micro(start) }
    }
    return this.send(
      (client) => client.update(Leases, renewed, leaseOptions),
      (written) => this.leaseWritten(a, written.object, t, adm),
      () => this.leaseConflict(a, adm)
    )
  }

  /** Keeps the parts of a lease the next renewal sends back (parts of the stored object: nothing is copied). */
  private remember(a: AgentState, lease: KObject): void {
    a.leaseMeta = lease.metadata
    a.leaseSpec = (lease.spec ?? {}) as Record<string, unknown>
  }

  private leaseWritten(a: AgentState, lease: KObject, t: number, end: number): void {
    this.remember(a, lease)
    const metrics = this.env.metrics
    metrics.leaseWrites++
    recordMillis(metrics.leaseLatency, end - t)
    this.scheduleRenewal(a, end)
  }

  /** A rejected lease write (409 after someone else wrote it): read it again on the next try, as the lease client does. */
  private leaseConflict(a: AgentState, at: number): void {
    this.env.metrics.leaseFailures++
    a.leaseMeta = undefined
    this.leaseAt(a, Math.ceil(at) + leaseTiming.backoffStartMs)
  }

  private scheduleRenewal(a: AgentState, end: number): void {
    const next = Math.round(end + this.jittered(this.renewIntervalMs, leaseTiming.jitterFactor))
    this.leaseAt(a, next)
  }

  private ownerOf(a: AgentState) {
    return { apiVersion: "v1", kind: "Node", name: a.node.name, uid: a.uid! }
  }

  private newLease(a: AgentState, t: number): KObject {
    return {
      metadata: {
        name: a.node.name,
        namespace: leaseNamespace,
        ...(a.uid !== undefined ? { ownerReferences: [this.ownerOf(a)] } : {})
      },
      spec: { holderIdentity: a.node.name, leaseDurationSeconds: this.env.settings.nodeLeaseDurationSeconds, renewTime: this.text.micro(t) }
    }
  }

  // ---- node status (reference §3.2) ------------------------------------------------------------------------

  private syncStatus(a: AgentState, t: number): Request {
    if (this.stopped(a, t)) return
    const env = this.env
    const frequency = env.settings.nodeStatusUpdateFrequencyMs
    if (!this.reachable(a, t)) {
      const next = Math.round(t + this.timeoutMs + this.jittered(frequency, statusJitterFactor))
      this.statusAt(a, next)
      return
    }
    env.metrics.statusChecks++
    if (a.pending !== undefined) this.syncPods(a, t)
    // GET with resourceVersion=0: served from the watch cache, i.e. the last write of the node
    const got = env.serviceTime.complete(t, "read", 1, statusBytes)
    const current = a.current
    let end = got
    let post: Request
    if (current !== undefined) {
      let changed = false
      if (current !== a.checked || a.health !== a.checkedHealth) {
        const status = current.status as { conditions?: ReadonlyArray<NodeCondition>; capacity?: Record<string, string> } | undefined
        changed = statusChanged(status?.conditions ?? [], desiredConditions(a.health), status?.capacity, a.capacity)
        a.checked = changed ? undefined : current
        a.checkedHealth = changed ? undefined : a.health
      }
      if (shouldPost(changed, t, a.lastReport, env.settings.nodeStatusReportFrequencyMs)) {
        const delay = a.bucket.reserve(end)
        if (delay > 0) {
          const postAt = Math.ceil(end + delay)
          this.due.push(a, postAt, Kind.PostStatus)
        } else {
          post = this.postStatus(a, end)
          if (!Number.isNaN(this.postedUntil)) end = this.postedUntil
        }
      }
    }
    const next = Math.round(end + this.jittered(frequency, statusJitterFactor))
    this.statusAt(a, next)
    return post
  }

  /**
   * When the status PATCH of the last `postStatus` completes (modelled), NaN when it sent none: a second result,
   * kept without allocating (the request itself may have been answered already).
   */
  private postedUntil = Number.NaN

  /** PATCH nodes/<name>/status. */
  private postStatus(a: AgentState, t: number): Request {
    this.postedUntil = Number.NaN
    const node = a.node
    if (this.stopped(a, t) || !this.reachable(a, t)) return
    const current = a.current
    if (current === undefined) return
    this.postedUntil = this.env.serviceTime.complete(t, "mutating", 0, statusBytes)
    const status = (current.status ?? {}) as { conditions?: ReadonlyArray<NodeCondition> }
    const conditions = mergeConditions(status.conditions ?? [], desiredConditions(a.health), this.text.seconds(t))
    const patch = { status: { capacity: a.capacity, allocatable: a.capacity, conditions } }
    return this.send(
      (client) => client.patch(Nodes, node.name, "merge", patch, statusOptions),
      () => {
        a.lastReport = t
        this.env.metrics.statusPatches++
      },
      ignore
    )
  }

  // ---- pods ----------------------------------------------------------------------------------------------

  /** Starts the pods bound to the node since the last tick; those over the QPS budget are delayed. */
  private syncPods(a: AgentState, t: number): void {
    const pending = a.pending ?? []
    a.pending = undefined
    for (const key of pending) {
      const delay = a.bucket.reserve(t)
      this.due.push({ agent: a, pod: key }, delay > 0 ? Math.ceil(t + delay) : t, Kind.PodStatus)
    }
  }

  /** Status parts shared by every pod started in the same second (stored objects are never mutated). */
  private parts: RunningParts | undefined

  private runningParts(now: string): RunningParts {
    if (this.parts?.at !== now) {
      // No `lastProbeTime: null`: a merge patch prunes nulls, so sending none stores the same and copies nothing.
      const cond = (type: string) => ({ type, status: "True", lastTransitionTime: now })
      const running = { running: { startedAt: now } }
      this.parts = {
        at: now,
        conditions: [cond("Initialized"), cond("Ready"), cond("ContainersReady")],
        running,
        single: [{ name: "app", ready: true, restartCount: 0, started: true, state: running }]
      }
    }
    return this.parts
  }

  private writePodStatus(a: AgentState, key: string, t: number): Request {
    const node = a.node
    if (this.stopped(a, t)) return
    if (!this.reachable(a, t)) {
      ;(a.pending ??= []).push(key)
      return
    }
    const env = this.env
    const pod = env.store.get(Pods, key)
    if (pod === undefined || pod.metadata.deletionTimestamp !== undefined) return
    const spec = pod.spec as { nodeName?: string; containers?: ReadonlyArray<{ name?: string }> } | undefined
    const status = (pod.status ?? {}) as { phase?: string; conditions?: ReadonlyArray<{ type: string }> }
    if (spec?.nodeName !== node.name || status.phase === "Running" || status.phase === "Failed") return
    env.serviceTime.complete(t, "mutating", 0, podStatusBytes)
    const options = { namespace: pod.metadata.namespace, subresource: "status" }
    const pressure = pressureOf(a.health)
    const verdict = pressure.size === 0 ? admitted : admit(admissionView(pod), pressure)
    if (!verdict.admit) {
      // Admission refused under node pressure (reference §2.3): the pod fails without running.
      const failed = { status: { phase: "Failed", reason: verdict.reason, message: verdict.message } }
      return this.send((client) => client.patch(Pods, pod.metadata.name!, "merge", failed, options), ignore, ignore)
    }
    const now = this.text.seconds(t)
    const parts = this.runningParts(now)
    const scheduled = (status.conditions ?? []).find((c) => c.type === "PodScheduled") ?? { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now }
    const containers = spec.containers ?? []
    const containerStatuses =
      containers.length === 1 && containers[0]!.name === parts.single[0]!.name
        ? parts.single
        : containers.map((c) => ({ name: c.name ?? "", ready: true, restartCount: 0, started: true, state: parts.running }))
    const running = { status: { phase: "Running", conditions: [...parts.conditions, scheduled], startTime: now, containerStatuses } }
    return this.send(
      (client) => client.patch(Pods, pod.metadata.name!, "merge", running, options),
      () => {
        env.metrics.podStatusWrites++
      },
      ignore
    )
  }
}

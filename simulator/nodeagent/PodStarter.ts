/**
 * Starting the pods bound to a node (upstream kubelet `HandlePodAdditions` → `syncPod`): each
 * pod takes one token of the node's QPS bucket, is read as the agent's informer would have it, goes through
 * admission (refused under node pressure: the pod fails without running), is prepared (`PreparePod`: image pulls
 * and the like; nothing by default) and is then written Running, one status write per pod.
 *
 * The steps, in order — `start` (due at the bucket's time) → `admit` → `prepare` → `run`. A preparation that
 * takes time answers when the pod is ready; the pod then waits in the shard's due queue (`Kind.PodRunning`) and is
 * run at that time, read again first. The shard's fiber never waits for one pod: it serves every agent of the shard.
 */
import type { KObject } from "../../src/api/Object.js"
import { Pods } from "../../src/api/Resources.js"
import { toleratesAny, type Taint, type Toleration } from "../../src/api/kinds/Taints.js"
import { systemCriticalPriority, TaintKeys } from "../../src/api/WellKnown.js"
import { admit, type PressureCondition } from "./eviction/Thresholds.js"
import type { AgentState } from "./AgentState.js"
import type { NodeHealth } from "./NodeStatus.js"
import { ignore, Kind, type PodWaiting, type Request, type ShardContext } from "./ShardContext.js"
import type { PreparePod } from "./AgentEnvironment.js"
import { hasStoredRead } from "../apiserver/StoredRead.js"
import { containerIdOf, imageIdOf, normalizedImage } from "./KubeletFields.js"

export type { PreparePod } from "./AgentEnvironment.js"

/** Nothing to prepare: every pod runs as soon as it is admitted. */
export const nothingToPrepare: PreparePod = (_pod, _node, t) => t


/** Upstream's status manager writes the statuses it could not write every 10 s (`status_manager.go` `syncPeriod`). */
const statusSyncPeriodMs = 10_000

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
  readonly nodeName?: string
  readonly priority?: number
  readonly containers?: ReadonlyArray<{ readonly name?: string; readonly image?: string; readonly resources?: { readonly requests?: object; readonly limits?: object } }>
  readonly tolerations?: ReadonlyArray<Toleration>
}

interface PodStatusView {
  readonly phase?: string
  readonly conditions?: ReadonlyArray<{ readonly type: string }>
}

/** The taint a BestEffort pod must tolerate to be admitted under memory pressure (upstream eviction manager `Admit`). */
const memoryPressureTaint: Taint = { key: TaintKeys.memoryPressure, effect: "NoSchedule" }

/** What admission looks at: criticality, QoS BestEffort (no requests or limits), a memory-pressure toleration. */
export const admissionView = (pod: KObject) => {
  const spec = (pod.spec ?? {}) as PodSpecView
  const hasResources = (spec.containers ?? []).some(
    (c) => Object.keys(c.resources?.requests ?? {}).length > 0 || Object.keys(c.resources?.limits ?? {}).length > 0
  )
  return {
    critical: (spec.priority ?? 0) >= systemCriticalPriority,
    bestEffort: !hasResources,
    toleratesMemoryPressure: toleratesAny(spec.tolerations ?? [], memoryPressureTaint)
  }
}

/** Status parts shared by every pod started in the same second (stored objects are never mutated). */
interface RunningParts {
  readonly at: string
  readonly conditions: ReadonlyArray<object>
  readonly running: object
  readonly single: ReadonlyArray<{ readonly name: string; readonly [field: string]: unknown }>
}

/*
 * Pods that have their pod worker: due to start (PodStart), being prepared (PodRunning), waiting to be tried again
 * (PodWaiting), or whose status write was given up (PodRunning, PodStart: `statusGivenUp`). A pod's further watch
 * events change nothing until its worker is done with it. Kept per agent (at most its pods), not in one set of the
 * shard's: a set of 150,000 keys filled and emptied in the pod-start storm cost ~2 % of its first 10 virtual minutes.
 */
const hasWorker = (a: AgentState, key: string): boolean => a.podWorkers !== undefined && a.podWorkers.includes(key)

const addWorker = (a: AgentState, key: string): void => {
  const workers = (a.podWorkers ??= [])
  if (!workers.includes(key)) workers.push(key)
}

const dropWorker = (a: AgentState, key: string): void => {
  const workers = a.podWorkers
  const i = workers === undefined ? -1 : workers.indexOf(key)
  if (i < 0) return
  // Kept in order: pods start in the order they were bound, so the one to drop is mostly the first, found without
  // comparing the other keys' characters (their strings would be read from memory).
  const last = workers!.length - 1
  for (let j = i; j < last; j++) workers![j] = workers![j + 1]!
  workers!.pop()
}

export class PodStarter {
  private parts: RunningParts | undefined
  private lastRunning: { readonly parts: RunningParts; readonly scheduled: object; readonly containerStatuses: ReadonlyArray<object>; readonly body: object } | undefined
  private readonly prepare: PreparePod

  constructor(private readonly ctx: ShardContext) {
    this.prepare = ctx.env.preparePod ?? nothingToPrepare
  }

  /**
   * A pod bound to the agent's node, not Running yet, seen by its watch at `t`. A registered agent starts it then
   * (upstream kubelet: the watch event → `HandlePodAdditions` → its pod worker); before registration, or while the
   * agent cannot reach the server, it waits in `pending` for the agent's next event. True when a start was scheduled.
   */
  bound(a: AgentState, podKey: string, t: number): boolean {
    // a pod with its pod worker already: its own status writes come here too
    if (hasWorker(a, podKey) || a.pending?.includes(podKey)) return false
    const first = a.pending === undefined
    ;(a.pending ??= []).push(podKey)
    if (!first || !a.registered || this.ctx.stopped(a, t) || !this.ctx.reachable(a, t)) return false
    this.ctx.due.push(a, t, Kind.PodsBound)
    return true
  }

  /** Schedules the pods bound since the agent's last event; those over the QPS budget are delayed. */
  startPending(a: AgentState, t: number): void {
    const pending = a.pending ?? []
    a.pending = undefined
    for (const key of pending) {
      const delay = a.bucket.reserve(t)
      addWorker(a, key)
      this.ctx.due.push({ agent: a, pod: key }, delay > 0 ? Math.ceil(t + delay) : t, Kind.PodStart)
    }
  }

  /** Due: read the pod, admit it, prepare it, run it. */
  start(a: AgentState, key: string, t: number): Request {
    dropWorker(a, key)
    const ctx = this.ctx
    if (ctx.stopped(a, t)) return
    if (!ctx.reachable(a, t)) {
      ;(a.pending ??= []).push(key)
      return
    }
    return this.read(a, key, (pod) => this.admit(a, key, pod, t))
  }

  /** Due after its preparation: read the pod again (it may have gone meanwhile) and run it. */
  ready(a: AgentState, key: string, t: number): Request {
    dropWorker(a, key)
    const ctx = this.ctx
    if (ctx.stopped(a, t)) return
    if (!ctx.reachable(a, t)) {
      ;(a.pending ??= []).push(key)
      return
    }
    return this.read(a, key, (pod) => this.run(a, key, pod, t))
  }

  /**
   * Due when a preparation failed: post the pod's waiting status (when its reason changed: the status manager
   * writes only changes) and try the pod again at the pod worker's retry time.
   */
  waiting(a: AgentState, key: string, w: PodWaiting, t: number): Request {
    const ctx = this.ctx
    if (ctx.stopped(a, t)) return
    ctx.due.push({ agent: a, pod: key }, Math.max(t, w.retryAt), Kind.PodStart)
    addWorker(a, key)
    if (!ctx.reachable(a, t)) return
    return this.read(a, key, (pod) => {
      const statuses = ((pod.status ?? {}) as { containerStatuses?: ReadonlyArray<{ state?: { waiting?: { reason?: string } } }> }).containerStatuses
      if (statuses?.[0]?.state?.waiting?.reason === w.reason) return
      const body = w.status(pod, ctx.text.seconds(t))
      return ctx.send(
        a,
        t,
        (client) => client.patch(Pods, pod.metadata.name!, "merge", body, this.statusOptions(pod)),
        () => void ctx.env.metrics.podWaitingWrites++,
        ignore,
        // given up: not written; the pod is tried again at its retry time (above) and posts its status then
        ignore
      )
    })
  }

  /** The pod as the agent's informer cache has it (the server's current object), if it is still to be started here. */
  private read(a: AgentState, key: string, then: (pod: KObject) => Request): Request {
    const slash = key.indexOf("/")
    const namespace = key.slice(0, slash)
    const name = key.slice(slash + 1)
    return this.ctx.cached(
      a,
      // the stored pod itself where the client has it: what a GET answers, less the typed copy (StoredRead.ts)
      (client) => (hasStoredRead(client) ? client.storedNow(Pods, namespace, name) : client.get(Pods, name, { namespace })),
      (pod) => {
        if (pod.metadata.deletionTimestamp !== undefined) return
        const spec = pod.spec as PodSpecView | undefined
        const phase = (pod.status as PodStatusView | undefined)?.phase
        if (spec?.nodeName !== a.node.name || phase === "Running" || phase === "Failed") return
        return then(pod)
      },
      ignore
    )
  }

  private admit(a: AgentState, key: string, pod: KObject, t: number): Request {
    const pressure = pressureOf(a.health)
    const verdict = pressure.size === 0 ? admitted : admit(admissionView(pod), pressure)
    if (!verdict.admit) {
      // Admission refused under node pressure (eviction manager `Admit`): the pod fails without running.
      const failed = { status: { phase: "Failed", reason: verdict.reason, message: verdict.message } }
      return this.ctx.send(
        a,
        t,
        (client) => client.patch(Pods, pod.metadata.name!, "merge", failed, this.statusOptions(pod)),
        ignore,
        ignore,
        (_, at) => this.statusGivenUp(a, key, at, Kind.PodStart)
      )
    }
    // ---- prepare: the place for image pulls and other work before the containers run
    const readyAt = this.prepare(pod, a.node, t)
    if (typeof readyAt !== "number") {
      this.ctx.due.push({ agent: a, pod: key, waiting: readyAt }, Math.max(t, readyAt.at), Kind.PodWaiting)
      addWorker(a, key)
      return
    }
    if (readyAt > t) {
      this.ctx.due.push({ agent: a, pod: key }, readyAt, Kind.PodRunning)
      addWorker(a, key)
      return
    }
    return this.run(a, key, pod, t)
  }

  /** PATCH the pod's status to Running, its containers started and ready. */
  private run(a: AgentState, key: string, pod: KObject, t: number): Request {
    const ctx = this.ctx
    const spec = pod.spec as PodSpecView
    const status = (pod.status ?? {}) as PodStatusView
    const now = ctx.text.seconds(t)
    const parts = this.runningParts(now)
    const scheduled = (status.conditions ?? []).find((c) => c.type === "PodScheduled") ?? { type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: now }
    const containers = spec.containers ?? []
    const running =
      ctx.env.network === undefined
        ? this.runningBody(parts, scheduled, containers.length === 1 && containers[0]!.name === parts.single[0]!.name ? parts.single : containers.map((c) => ({ name: c.name ?? "", ready: true, restartCount: 0, started: true, state: parts.running })))
        : this.kubeletRunningBody(a, key, pod, parts, scheduled)
    const metrics = ctx.env.metrics
    return ctx.send(
      a,
      t,
      (client) => client.patch(Pods, pod.metadata.name!, "merge", running, this.statusOptions(pod)),
      () => {
        metrics.podStatusWrites++
        ctx.env.podStarted?.(pod, a.node, t)
      },
      ignore,
      (_, at) => this.statusGivenUp(a, key, at, Kind.PodRunning)
    )
  }

  /**
   * A pod's status write given up after 429s (`ShardContext.send`): nothing is written, the pod stays
   * Pending on the server. Upstream's status manager keeps the status and writes it at its next sync (every 10 s);
   * here the pod goes back to its worker one sync period after the last 429, `again` — `PodRunning` writes it
   * Running (read again first: it may have gone), `PodStart` admits it again (a pod refused again is written Failed
   * again; one admitted by then runs, which upstream's would not).
   */
  private statusGivenUp(a: AgentState, key: string, givenUpAt: number, again: Kind.PodRunning | Kind.PodStart): void {
    this.ctx.due.push({ agent: a, pod: key }, givenUpAt + statusSyncPeriodMs, again)
    addWorker(a, key)
  }

  private statusOptions(pod: KObject) {
    return { namespace: pod.metadata.namespace, subresource: "status" }
  }

  /**
   * The Running patch: the same body object for the pods started in the same second whose PodScheduled condition is
   * the same stored object (pods seeded together share it, SeedPods.ts). The server then merges the same body into the
   * same stored status, and remembers what it made the first time (src/api/internal/LastCall.ts, docs/cluster.md).
   */
  private runningBody(parts: RunningParts, scheduled: object, containerStatuses: ReadonlyArray<object>): object {
    const last = this.lastRunning
    if (last !== undefined && last.parts === parts && last.scheduled === scheduled && last.containerStatuses === containerStatuses) return last.body
    const body = { status: { phase: "Running", conditions: [...parts.conditions, scheduled], startTime: parts.at, containerStatuses } }
    this.lastRunning = { parts, scheduled, containerStatuses, body }
    return body
  }

  /**
   * The Running patch with what a real kubelet also writes for stock clients (`env.network`, real time): the pod's
   * and its node's IPs, each container's image, image ID and container ID (`KubeletFields.ts`). One body per pod.
   */
  private kubeletRunningBody(a: AgentState, key: string, pod: KObject, parts: RunningParts, scheduled: object): object {
    const network = this.ctx.env.network!
    const hostIP = network.node(a.node.name)?.internalIP
    const podIP = network.podsOn(a.node.name)?.assign(key)
    const uid = pod.metadata.uid ?? key
    const containerStatuses = ((pod.spec as PodSpecView).containers ?? []).map((c) => {
      const image = c.image ?? ""
      return {
        name: c.name ?? "",
        state: parts.running,
        lastState: {},
        ready: true,
        restartCount: 0,
        image: normalizedImage(image),
        imageID: imageIdOf(image),
        containerID: containerIdOf(uid, c.name ?? ""),
        started: true
      }
    })
    const ips = (ip: string | undefined) => (ip === undefined ? {} : { ip })
    return {
      status: {
        phase: "Running",
        conditions: [...parts.conditions, scheduled],
        ...(hostIP === undefined ? {} : { hostIP, hostIPs: [ips(hostIP)] }),
        ...(podIP === undefined ? {} : { podIP, podIPs: [ips(podIP)] }),
        startTime: parts.at,
        containerStatuses
      }
    }
  }

  /** The pod was deleted: its address is free again (with `env.network`). */
  deleted(a: AgentState, key: string): void {
    this.ctx.env.network?.podsOn(a.node.name)?.release(key)
  }

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
}

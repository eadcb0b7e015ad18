/**
 * The simulated `platform-scheduler` (upstream `pkg/scheduler`): node and pod caches fed by list+watch, the scheduling
 * queue, one scheduling loop (filter from a round-robin start until `numFeasibleNodesToFind` nodes fit, score,
 * pick the best with reservoir-sampled ties, assume, bind through `pods/binding`) and the `Scheduled` /
 * `FailedScheduling` events. With leader election only the leader runs the loop; the caches stay warm on every
 * instance, as upstream starts its informers before electing.
 *
 * Choices: binding is done inline after assuming (upstream binds on a goroutine; in-process binding has no
 * latency to hide). Cluster events move every unschedulable pod (upstream filters by the plugins' registered
 * events). Filters run sequentially (one fiber; the 16 workers of upstream would only add wake-ups here).
 */
import { Clock, Deferred, Duration, Effect, Exit, Queue } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Nodes, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { makeReflector } from "../../src/informer/Reflector.js"
import type { EventRecorderService } from "../events/EventRecorder.js"
import { SeededRandom, type SeededRandomService, uniformSource } from "../kernel/SeededRandom.js"
import { fitErrorMessage, noNodesMessage, numFeasibleNodesToFind } from "./framework/Filters.js"
import { selectPlainNode } from "./framework/PlainSelection.js"
import { selectNode } from "./framework/Selection.js"
import {
  addPodToNode,
  addPodToNodeInfo,
  nodeInfoOf,
  type NodeInfo,
  nodeNameOf,
  noUsage,
  podRequests,
  type Requests,
  podView,
  type PodView,
  refreshNodeInfo,
  type Usage
} from "./framework/Views.js"
import { type Assigned, AssignedPods } from "./AssignedPods.js"
import { podKey, SchedulingQueue } from "./SchedulingQueue.js"
import { hasStatusCode } from "../../src/client/TransportError.js"

export interface SchedulerSettings {
  readonly schedulerName?: string
  /** 0 = adaptive. */
  readonly percentageOfNodesToScore?: number
  readonly podInitialBackoffMs?: number
  readonly podMaxBackoffMs?: number
  readonly podMaxInUnschedulablePodsMs?: number
  /** Events sink; none when absent. */
  readonly recorder?: EventRecorderService
  /** Called after every successful bind (scenario timing). */
  readonly onBound?: (pod: PodView, node: string, now: number) => void
  /** Told of every scheduling attempt, its result and duration in seconds (the run's exported metrics, `SchedulerMetrics.ts`). */
  readonly onAttempt?: (result: "scheduled" | "unschedulable" | "error", seconds: number) => void
  /** Every cycle through the general `selectNode`, never `selectPlainNode` (tests compare the two). */
  readonly generalSelectionOnly?: boolean
}

export interface SchedulerStats {
  readonly attempts: number
  readonly scheduled: number
  readonly failed: number
  readonly bindErrors: number
  readonly nodes: number
  readonly pending: { readonly active: number; readonly backoff: number; readonly unschedulable: number }
}

const isTerminal = (pod: KObject) => {
  const phase = (pod.status as { phase?: string } | undefined)?.phase
  return phase === "Succeeded" || phase === "Failed"
}

/** One scheduler instance's state: caches, queue, counters. */
export class SchedulerCore {
  readonly nodes = new Map<string, NodeInfo>()
  private nodeList: NodeInfo[] = []
  private nodeListDirty = true
  /**
   * Pods accounted to nodes (assumed or confirmed), found under the node their objects name (`AssignedPods.ts`). Not by
   * `ns/name` key: the informer's objects share their name strings with the cached ones, so the lookup per watch event
   * builds and hashes nothing.
   */
  private readonly assigned = new AssignedPods()
  /** Bumped by every pod list; `Assigned.listed` marks the entries the latest list had. */
  private listGeneration = 0
  /**
   * What the pods accounted to nodes missing from `nodes` add up to, by node name: a node that registers after
   * its pods (or comes back) starts from it, without an index of pods by node.
   */
  private readonly unregistered = new Map<string, Usage>()
  readonly queue: SchedulingQueue
  readonly name: string
  private nextStartNodeIndex = 0
  readonly stats = { attempts: 0, scheduled: 0, failed: 0, bindErrors: 0 }
  /** Set when a pending pod or a cluster event arrives; the loop waits on it when idle. */
  readonly doorbell: Queue.Queue<void>
  /** Completed once both informers listed (upstream `WaitForCacheSync` before scheduling). */
  readonly synced: Deferred.Deferred<void>
  private nodesListed = false
  private podsListed = false

  constructor(
    readonly settings: SchedulerSettings,
    readonly rng: SeededRandomService,
    doorbell: Queue.Queue<void>,
    synced: Deferred.Deferred<void>
  ) {
    this.synced = synced
    this.name = settings.schedulerName ?? "default-scheduler"
    this.queue = new SchedulingQueue({
      ...(settings.podInitialBackoffMs !== undefined ? { initialBackoffMs: settings.podInitialBackoffMs } : {}),
      ...(settings.podMaxBackoffMs !== undefined ? { maxBackoffMs: settings.podMaxBackoffMs } : {}),
      ...(settings.podMaxInUnschedulablePodsMs !== undefined ? { maxUnschedulableMs: settings.podMaxInUnschedulablePodsMs } : {})
    })
    this.doorbell = doorbell
  }

  private ring() {
    this.doorbell.unsafeOffer(undefined)
  }

  private list(): NodeInfo[] {
    if (this.nodeListDirty) {
      this.nodeList = [...this.nodes.values()]
      this.nodeListDirty = false
    }
    return this.nodeList
  }

  // ---- cache updates from the informers ----

  upsertNode(node: KObject, now: number): void {
    const name = node.metadata.name ?? ""
    const info = this.nodes.get(name)
    if (info) {
      // Heartbeat-only status updates (conditions' times) change nothing the filters read.
      if (!refreshNodeInfo(info, node)) return
    } else {
      this.nodes.set(name, nodeInfoOf(node, this.unregistered.get(name)))
      this.unregistered.delete(name)
      this.nodeListDirty = true
    }
    if (this.queue.moveAllToActiveOrBackoff(now) > 0) this.ring()
  }

  deleteNode(name: string): void {
    const info = this.nodes.get(name)
    if (info === undefined) return
    this.nodes.delete(name)
    this.nodeListDirty = true
    // Its pods stay accounted to it until they go.
    if (info.pods > 0) this.unregistered.set(name, info)
  }

  private markListed(what: "nodes" | "pods"): void {
    if (what === "nodes") this.nodesListed = true
    else this.podsListed = true
    if (this.nodesListed && this.podsListed) Deferred.unsafeDone(this.synced, Exit.void)
  }

  replaceNodes(items: ReadonlyArray<KObject>, now: number): void {
    this.markListed("nodes")
    const seen = new Set(items.map((n) => n.metadata.name ?? ""))
    for (const name of [...this.nodes.keys()]) if (!seen.has(name)) this.deleteNode(name)
    for (const n of items) this.upsertNode(n, now)
  }

  upsertPod(obj: KObject, now: number): void {
    this.upsert(obj, this.assigned.find(obj.metadata.namespace ?? "default", obj.metadata.name ?? "", nodeNameOf(obj)), now)
  }

  /** Applies a pod's object; `known` is its entry (`AssignedPods.find`). Returns the pod's entry afterwards, if any. */
  private upsert(obj: KObject, known: Assigned | undefined, now: number): Assigned | undefined {
    const terminal = isTerminal(obj)
    const leaving = terminal || !!obj.metadata.deletionTimestamp
    // A status write of a pod already accounted from the same spec object changes nothing the scheduler reads.
    if (known !== undefined && known.spec === obj.spec && !leaving) return known
    const namespace = obj.metadata.namespace ?? "default"
    const name = obj.metadata.name ?? ""
    const nodeName = nodeNameOf(obj)
    if (nodeName !== "" || leaving) {
      this.dequeue(namespace, name)
      if (nodeName !== "" && !terminal) return this.assign(namespace, name, nodeName, podRequests(obj), obj.spec, known)
      this.unassign(known, now)
      return undefined
    }
    const pod = podView(obj)
    if (pod.schedulerName === this.name && this.queue.add(pod, now)) this.ring()
    return known
  }

  deletePod(obj: KObject, now: number): void {
    const namespace = obj.metadata.namespace ?? "default"
    const name = obj.metadata.name ?? ""
    this.dequeue(namespace, name)
    this.unassign(this.assigned.find(namespace, name, nodeNameOf(obj)), now)
  }

  replacePods(items: ReadonlyArray<KObject>, now: number): void {
    this.markListed("pods")
    // The first list (or one after every pod went) has nothing to diff against: no lookups, nothing to drop.
    const fresh = this.assigned.size === 0
    const generation = ++this.listGeneration
    for (const p of items) {
      const known = fresh ? undefined : this.assigned.find(p.metadata.namespace ?? "default", p.metadata.name ?? "", nodeNameOf(p))
      const entry = this.upsert(p, known, now)
      if (entry !== undefined) entry.listed = generation
    }
    if (fresh) return
    // Drop the entries the list did not mark: no set of every key per list.
    const gone: Assigned[] = []
    for (const entry of this.assigned) if (entry.listed !== generation) gone.push(entry)
    for (const entry of gone) this.unassign(entry, now)
  }

  /** Most pods (bound from the start) never were in the queue: while it is empty, no key is built for them. */
  private dequeue(namespace: string, name: string): void {
    if (!this.queue.isEmpty) this.queue.delete(podKey({ namespace, name }))
  }

  /** The entry of a pod whose object names no node (one in the queue): assumed, if anywhere. */
  private entryOf(namespace: string, name: string): Assigned | undefined {
    return this.assigned.find(namespace, name, "")
  }

  /** `prev` is the pod's entry (`AssignedPods.find`), which callers have looked up already: 150,000 pods notice a second lookup. */
  private assign(namespace: string, name: string, node: string, requests: Requests, spec: unknown, prev: Assigned | undefined): Assigned {
    if (prev !== undefined && prev.node === node) {
      if (spec !== undefined) prev.spec = spec
      return prev
    }
    if (prev !== undefined) this.erase(prev)
    const entry: Assigned = { namespace, name, node, requests, spec, listed: 0 }
    this.assigned.add(entry)
    this.account(node, requests, 1)
    return entry
  }

  private erase(entry: Assigned): void {
    this.assigned.remove(entry)
    this.account(entry.node, entry.requests, -1)
  }

  /** Adds (or takes back) a pod's requests on its node, registered or not. */
  private account(node: string, requests: Requests, sign: 1 | -1): void {
    const info = this.nodes.get(node)
    if (info !== undefined) return addPodToNodeInfo(info, requests, sign)
    let usage = this.unregistered.get(node)
    if (usage === undefined) this.unregistered.set(node, (usage = { ...noUsage }))
    addPodToNode(usage, requests, sign)
    if (usage.pods === 0) this.unregistered.delete(node)
  }

  private unassign(entry: Assigned | undefined, now: number): void {
    if (entry === undefined) return
    this.erase(entry)
    // A pod leaving frees room: unschedulable pods get another chance.
    if (this.queue.moveAllToActiveOrBackoff(now) > 0) this.ring()
  }

  // ---- one scheduling cycle (pure apart from the random tie-break) ----

  /** Picks a node, or returns the failure message. Assumes the pod on success. */
  decide(pod: PodView): { readonly node: string } | { readonly error: string } {
    const all = this.list()
    const n = all.length
    if (n === 0) return { error: noNodesMessage }
    const want = numFeasibleNodesToFind(n, this.settings.percentageOfNodesToScore ?? 0)
    const start = this.nextStartNodeIndex % n
    const selection =
      (this.settings.generalSelectionOnly ? undefined : selectPlainNode(pod, all, start, want, this.rng)) ?? selectNode(pod, all, start, want, this.rng)
    this.nextStartNodeIndex = (start + selection.processed) % n
    const chosen = selection.chosen
    if (chosen === undefined) return { error: fitErrorMessage(n, selection.reasons) }
    this.assign(pod.namespace, pod.name, chosen.name, pod, undefined, this.entryOf(pod.namespace, pod.name))
    return { node: chosen.name }
  }

  forget(pod: PodView): void {
    const prev = this.entryOf(pod.namespace, pod.name)
    if (prev !== undefined) this.erase(prev)
  }

  snapshot(): SchedulerStats {
    return { ...this.stats, nodes: this.nodes.size, pending: this.queue.counts() }
  }
}

export const podRef = (p: PodView) => ({ kind: "Pod", apiVersion: "v1", name: p.name, namespace: p.namespace, uid: p.uid })

/** Creates the state of one scheduler instance. */
export const makeSchedulerCore = (settings: SchedulerSettings = {}): Effect.Effect<SchedulerCore, never, SeededRandom> =>
  Effect.gen(function* () {
    const random = yield* SeededRandom
    const doorbell = yield* Queue.sliding<void>(1)
    const synced = yield* Deferred.make<void>()
    return new SchedulerCore(settings, random.split(`scheduler/${settings.schedulerName ?? "default-scheduler"}`), doorbell, synced)
  })

/**
 * The node and pod reflectors (`src/informer`) feeding the caches; run forever. The core is their store, as a
 * client-go reflector writes into its store: a relist replaces the cache (the core diffs it), watch events update
 * it. Watch timeouts and backoff jitter draw from the seeded source.
 */
export const runInformers = (core: SchedulerCore): Effect.Effect<never, never, ApiClient> =>
  Effect.gen(function* () {
    const nodes = yield* makeReflector(
      { resource: Nodes, random: yield* uniformSource("reflector/nodes") },
      {
        add: (node, now) => core.upsertNode(node, now),
        update: (node, now) => core.upsertNode(node, now),
        delete: (node) => core.deleteNode(node.metadata.name ?? ""),
        replace: (items, _rv, now) => core.replaceNodes(items, now)
      }
    )
    const pods = yield* makeReflector(
      { resource: Pods, random: yield* uniformSource("reflector/pods") },
      {
        add: (pod, now) => core.upsertPod(pod, now),
        update: (pod, now) => core.upsertPod(pod, now),
        delete: (pod, now) => core.deletePod(pod, now),
        replace: (items, _rv, now) => core.replacePods(items, now)
      }
    )
    yield* Effect.fork(nodes.run)
    return yield* pods.run
  })

/** backoffQ flushed every 1 s, unschedulable leftovers every 30 s. */
const runFlushes = (core: SchedulerCore): Effect.Effect<never> =>
  Effect.gen(function* () {
    let tick = 0
    while (true) {
      yield* Effect.sleep(Duration.seconds(1))
      const now = yield* Clock.currentTimeMillis
      let moved = core.queue.flushBackoffCompleted(now)
      if (++tick % 30 === 0) moved += core.queue.flushUnschedulableLeftover(now)
      if (moved > 0) core.doorbell.unsafeOffer(undefined)
    }
  })

/** One attempt for the next pod; false when the queue had nothing. */
export const scheduleOne = (core: SchedulerCore): Effect.Effect<boolean, never, ApiClient> =>
  Effect.gen(function* () {
    const info = core.queue.pop()
    if (!info) return false
    const cycle = core.queue.schedulingCycle
    const pod = info.pod
    core.stats.attempts++
    const onAttempt = core.settings.onAttempt
    const startedAt = onAttempt === undefined ? 0 : yield* Clock.currentTimeMillis
    const result = core.decide(pod)
    const rec = core.settings.recorder
    const client = yield* ApiClient
    if ("node" in result) {
      const bound = yield* Effect.either(
        client.create(
          Pods,
          { apiVersion: "v1", kind: "Binding", metadata: { namespace: pod.namespace, name: pod.name, uid: pod.uid }, target: { kind: "Node", name: result.node } },
          { namespace: pod.namespace, subresource: "binding" }
        )
      )
      const now = yield* Clock.currentTimeMillis
      onAttempt?.(bound._tag === "Right" ? "scheduled" : "error", (now - startedAt) / 1000)
      if (bound._tag === "Right") {
        core.queue.done(info.key)
        core.stats.scheduled++
        core.settings.onBound?.(pod, result.node, now)
        if (rec) yield* rec.eventf(podRef(pod), undefined, "Normal", "Scheduled", "Binding", `Successfully assigned ${pod.namespace}/${pod.name} to ${result.node}`)
        return true
      }
      // Bind failed: un-assume; a vanished pod is dropped, anything else retried with backoff.
      core.forget(pod)
      core.stats.bindErrors++
      if (hasStatusCode(bound.left, 404)) {
        core.queue.done(info.key)
        return true
      }
      core.queue.requeueUnschedulable(info, cycle, now)
      return true
    }
    const now = yield* Clock.currentTimeMillis
    onAttempt?.("unschedulable", (now - startedAt) / 1000)
    core.stats.failed++
    core.queue.requeueUnschedulable(info, cycle, now)
    if (rec) yield* rec.eventf(podRef(pod), undefined, "Warning", "FailedScheduling", "Scheduling", result.error)
    // PodScheduled=False with the error (`schedule_one.go` `handleSchedulingFailure`).
    yield* Effect.ignore(
      client.patch(
        Pods,
        pod.name,
        "merge",
        { status: { conditions: [{ type: "PodScheduled", status: "False", reason: "Unschedulable", message: result.error, lastProbeTime: null }] } },
        { namespace: pod.namespace, subresource: "status" }
      )
    )
    return true
  })

/** The scheduling loop (the leader's work): schedule while there is work, else wait for the doorbell. */
export const runSchedulingLoop = (core: SchedulerCore): Effect.Effect<never, never, ApiClient> =>
  Effect.gen(function* () {
    yield* Deferred.await(core.synced)
    yield* Effect.fork(runFlushes(core))
    while (true) {
      const did = yield* scheduleOne(core)
      if (!did) yield* Queue.take(core.doorbell)
    }
  })

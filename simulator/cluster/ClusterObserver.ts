/**
 * Watches the simulated server's store synchronously (every change, as it is written) and keeps what a cluster run
 * reports: each node's Ready transitions, taints added and removed, pod deletions. It also hands pods bound to a
 * simulated node to that node's agent. Times are virtual ms since the start of the run.
 */
import { taintsOf, type Taint } from "../../src/api/kinds/Taints.js"
import type { KObject } from "../../src/api/Object.js"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { nodeLeaseNamespace } from "../../src/api/WellKnown.js"
import type { Change, Store } from "../apiserver/Store.js"
import { LeaseWrites } from "../controllers/nodelifecycle/LeaseWrites.js"
import { NodeOrdinals } from "../controllers/nodelifecycle/NodeOrdinals.js"
import type { NodeChange, NodeSource } from "../controllers/nodelifecycle/NodeSource.js"
import type { NodeCondition } from "../nodeagent/NodeStatus.js"

export type ReadyTransition = readonly [t: number, status: string, reason: string]

export interface TaintChange {
  readonly t: number
  readonly node: string
  readonly op: "add" | "remove"
  readonly key: string
  readonly effect: string
}

export interface PodDeletion {
  readonly t: number
  readonly pod: string
  readonly node: string
}

/** The agent side: pods bound to its node and deleted from it, and every write of its Node (its informer-fed cache). */
export interface AgentSink {
  podBound(node: string, podKey: string, t: number): void
  podDeleted(node: string, podKey: string): void
  nodeWritten(node: string, obj: KObject | undefined): void
}

const readyOf = (node: KObject | undefined): NodeCondition | undefined =>
  ((node?.status as { conditions?: ReadonlyArray<NodeCondition> } | undefined)?.conditions ?? []).find((c) => c.type === "Ready")


const taintId = (t: Taint): string => `${t.key}\u0000${t.effect}`

export class ClusterObserver {
  readonly readyTimeline = new Map<string, Array<ReadyTransition>>()
  readonly taints: Array<TaintChange> = []
  readonly podDeletions: Array<PodDeletion> = []
  /** The current Nodes, as an informer cache holds them (for the lifecycle controller). */
  readonly nodes = new Map<string, KObject>()
  /** Node writes and deletions since `changedNodes()` was last called, in write order. */
  private nodeChanges: Array<NodeChange> = []
  /**
   * Node lease writes not yet taken by the lifecycle controller, in write order, as numbers read while the lease is
   * being written (`LeaseWrites`): the controller's pass then touches no lease object.
   */
  private readonly leaseWrites = new LeaseWrites()
  private readonly ordinals = new NodeOrdinals()
  private readonly agents = new Map<string, AgentSink>()

  /**
   * `recordChanges`: keep the node and lease writes for `changedNodes()` / `nodeSource()`. Only a run with a
   * consumer of them (the lifecycle controller) may ask, or the logs grow for the whole run.
   */
  constructor(
    private readonly startMillis: number,
    private readonly recordChanges = true
  ) {}

  /** Virtual ms since the start, to the microsecond (epoch-sized floats carry rounding noise below that). */
  since(time: number): number {
    return Math.round((time - this.startMillis) * 1000) / 1000
  }

  /** The node writes and deletions since the previous call, in write order (for the lifecycle controller's pass). */
  changedNodes(): Iterable<NodeChange> {
    const changed = this.nodeChanges
    this.nodeChanges = []
    return changed
  }

  /** This cache as the lifecycle controller's `NodeSource`: its nodes, and the node and lease writes it kept. */
  nodeSource(): NodeSource {
    return {
      nodes: () => this.nodes.values(),
      node: (name) => this.nodes.get(name),
      changedNodes: () => this.changedNodes(),
      leaseWrites: this.leaseWrites,
      ordinals: this.ordinals
    }
  }

  /** Routes pods bound to `node` to its agent. */
  route(node: string, sink: AgentSink): void {
    this.agents.set(node, sink)
  }

  attach(store: Store): () => void {
    // the node leases stored already: their writes come by slot, bound at creation
    if (this.recordChanges)
      for (const [lease, slot] of store.storedWithSlots(Leases, nodeLeaseNamespace)) this.leaseWrites.bind(slot, this.ordinals.of(lease.metadata.name!))
    return store.subscribe((change, slot) => this.observe(change, slot))
  }

  /** `slot`: the changed object's in the store (`ChangeListener`); undefined when the change came through a watch. */
  observe(change: Change, slot?: number): void {
    if (change.resource === Leases) {
      if (change.object.metadata.namespace !== nodeLeaseNamespace || !this.recordChanges) return
      const at = this.leaseSlot(change, slot)
      if (change.type !== "DELETED") this.leaseWrites.record(at, (change.object.spec as { renewTime?: unknown } | undefined)?.renewTime)
      // Rare: a deleted lease was no probe, whatever was written before.
      else this.leaseWrites.forget(at)
    } else if (change.resource === Nodes) {
      const name = change.object.metadata.name!
      const deleted = change.type === "DELETED"
      if (deleted) this.nodes.delete(name)
      else this.nodes.set(name, change.object)
      if (this.recordChanges) this.nodeChanges.push({ name, deleted })
      this.observeNode(change)
    } else if (change.resource === Pods) this.observePod(change)
  }

  /**
   * The slot of `change`'s lease in `leaseWrites`, bound to its node's ordinal when the lease is created (or, fed by
   * a watch, by its ordinal: one observer is fed by one store or by watches).
   */
  private leaseSlot(change: Change, slot: number | undefined): number {
    if (slot === undefined) {
      const ordinal = this.ordinals.of(change.object.metadata.name!)
      this.leaseWrites.bind(ordinal, ordinal)
      return ordinal
    }
    if (change.type === "ADDED") this.leaseWrites.bind(slot, this.ordinals.of(change.object.metadata.name!))
    return slot
  }

  private observeNode(change: Change): void {
    const t = this.since(change.time)
    const name = change.object.metadata.name!
    this.agents.get(name)?.nodeWritten(name, change.type === "DELETED" ? undefined : change.object)
    if (change.type !== "DELETED") {
      const ready = readyOf(change.object)
      const status = ready?.status ?? "Unknown"
      const timeline = this.readyTimeline.get(name) ?? []
      const last = timeline[timeline.length - 1]
      if (last === undefined || last[1] !== status) {
        timeline.push([t, status, ready?.reason ?? ""])
        this.readyTimeline.set(name, timeline)
      }
    }
    const before = change.previous === undefined ? [] : taintsOf(change.previous)
    const after = change.type === "DELETED" ? [] : taintsOf(change.object)
    if (before.length === 0 && after.length === 0) return
    const beforeIds = new Set(before.map(taintId))
    const afterIds = new Set(after.map(taintId))
    for (const x of before) if (!afterIds.has(taintId(x))) this.taints.push({ t, node: name, op: "remove", key: x.key, effect: x.effect })
    for (const x of after) if (!beforeIds.has(taintId(x))) this.taints.push({ t, node: name, op: "add", key: x.key, effect: x.effect })
  }

  private observePod(change: Change): void {
    const pod = change.object
    const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName
    if (nodeName === undefined || nodeName === "") return
    if (change.type === "DELETED") {
      this.podDeletions.push({ t: this.since(change.time), pod: change.key, node: nodeName })
      this.agents.get(nodeName)?.podDeleted(nodeName, change.key)
      return
    }
    const phase = (pod.status as { phase?: string } | undefined)?.phase
    if (phase === "Running" || phase === "Succeeded" || phase === "Failed" || pod.metadata.deletionTimestamp !== undefined) return
    this.agents.get(nodeName)?.podBound(nodeName, change.key, change.time)
  }
}

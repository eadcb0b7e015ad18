/**
 * Where the monitor pass reads nodes and node leases (`NodeSource`), and the order in which a pass over such a
 * cache visits them (`SourceOrder`).
 */
import type { KObject } from "../../../src/api/Object.js"
import { EventHeap, type HeapEntry } from "../../kernel/EventHeap.js"
import type { LeaseWrites } from "./LeaseWrites.js"
import type { NodeOrdinals } from "./NodeOrdinals.js"

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
   * The node lease writes since the previous drain, oldest first (a lease written twice may come twice), each as its
   * node's ordinal in `ordinals` and its renewTime. An unchanged lease is no probe, so a pass needs no other.
   */
  readonly leaseWrites: LeaseWrites
  /** The ordinals of `leaseWrites`, by node (= lease) name; the pass numbers its nodes by them too. */
  readonly ordinals: NodeOrdinals
}

interface Queued extends HeapEntry {
  readonly name: string
}

/**
 * The order of a pass over a `NodeSource`: its cache's order (insertion order, so a node deleted and created again
 * moves to the end), mirrored from the reported changes. Like an iteration over the live cache, a pass also takes the
 * nodes written ahead of its cursor while it runs; those written behind it wait for the next pass.
 */
export class SourceOrder {
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

/**
 * The pods a scheduler instance accounts to nodes (assumed or confirmed), one entry per pod, filed by node and name (a
 * name another namespace's pod took on that node first: aside). A pod's events name its node (`spec.nodeName`, set
 * once), so its entry is found there; a pod list in key order fills one small map per node after another, where one
 * table of 150,000 names missed the cache on most inserts (docs/scheduler.md "Pods accounted by node"). A pod not
 * found under the node its object names (pending, assumed, recreated elsewhere while a watch missed its delete) is
 * looked up in an index by namespace and name, built at the first such lookup and kept from then on: the hour's bound
 * pods never need it.
 */
import type { Requests } from "./framework/Views.js"

/** A pod accounted to a node. */
export interface Assigned {
  readonly namespace: string
  readonly name: string
  readonly node: string
  /** What it adds to the node: an assumed pod's view, else its containers' requests (shared by many pods). */
  readonly requests: Requests
  /** The spec it was read from (none when assumed). */
  spec: unknown
  /** The pod list that last had it (`SchedulerCore.listGeneration`). */
  listed: number
}

/** Namespace → name → entry. */
type ByName = Map<string, Map<string, Assigned>>

const put = (index: ByName, entry: Assigned): void => {
  let names = index.get(entry.namespace)
  if (names === undefined) index.set(entry.namespace, (names = new Map()))
  names.set(entry.name, entry)
}

const drop = (index: ByName, entry: Assigned): boolean => {
  const names = index.get(entry.namespace)
  if (names === undefined || names.get(entry.name) !== entry) return false
  names.delete(entry.name)
  if (names.size === 0) index.delete(entry.namespace)
  return true
}

export class AssignedPods {
  /** Node → name → entry; the first entry of a name on a node, whatever its namespace. */
  private readonly byNode = new Map<string, Map<string, Assigned>>()
  /** Entries whose name another namespace's pod took on their node first. */
  private readonly aside: ByName = new Map()
  /** Every entry by namespace and name, once a lookup needed it (`find`). */
  private byName: ByName | undefined = undefined
  /** Entries held. */
  size = 0

  /**
   * The entry of pod `namespace/name`, looked for under `node` first: the node its object names ("" when none). Any
   * entry of the pod is found, whatever node it was accounted to.
   */
  find(namespace: string, name: string, node: string): Assigned | undefined {
    const filed = this.byNode.get(node)?.get(name)
    if (filed !== undefined && filed.namespace === namespace) return filed
    if (this.size === 0) return undefined
    return this.names().get(namespace)?.get(name)
  }

  /** Adds `entry`; the pod must have none (`find`). */
  add(entry: Assigned): void {
    let filed = this.byNode.get(entry.node)
    if (filed === undefined) this.byNode.set(entry.node, (filed = new Map()))
    if (filed.has(entry.name)) put(this.aside, entry)
    else filed.set(entry.name, entry)
    if (this.byName !== undefined) put(this.byName, entry)
    this.size++
  }

  /** Removes `entry`, if held. */
  remove(entry: Assigned): void {
    const filed = this.byNode.get(entry.node)
    if (filed?.get(entry.name) === entry) {
      filed.delete(entry.name)
      if (filed.size === 0) this.byNode.delete(entry.node)
    } else if (!drop(this.aside, entry)) return
    if (this.byName !== undefined) drop(this.byName, entry)
    this.size--
  }

  /** Every entry. */
  *[Symbol.iterator](): IterableIterator<Assigned> {
    for (const filed of this.byNode.values()) yield* filed.values()
    for (const names of this.aside.values()) yield* names.values()
  }

  private names(): ByName {
    if (this.byName === undefined) {
      const index: ByName = new Map()
      for (const entry of this) put(index, entry)
      this.byName = index
    }
    return this.byName
  }
}

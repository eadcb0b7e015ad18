/**
 * The pods a scheduler instance accounts to nodes (assumed or confirmed), one entry per pod, filed by node, then
 * namespace and name. A pod's events name its node (`spec.nodeName`, set once), so the entry is found under it: a
 * node's few dozen entries stay in cache while its pods start one after another, where one table of 150,000 names cost
 * a cache miss or three per event, twice per pod status write of the hour's start (two replicas; docs/scheduler.md
 * "Pods accounted by node"). A pod not found under the node its object names (a pending pod, an assumed one, a pod
 * whose delete a watch missed) is looked up by name in a second index, built at the first such lookup and kept from
 * then on: the hour's seeded pods never need it.
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
  private readonly byNode = new Map<string, ByName>()
  /** Every entry by namespace and name, once a lookup needed it (`find`). */
  private byName: ByName | undefined = undefined
  /** Entries held. */
  size = 0

  /**
   * The entry of pod `namespace/name`, looked for under `node` first: the node its object names ("" when none). Any
   * entry of the pod is found, whatever node it was accounted to.
   */
  find(namespace: string, name: string, node: string): Assigned | undefined {
    const filed = this.byNode.get(node)?.get(namespace)?.get(name)
    if (filed !== undefined || this.size === 0) return filed
    return this.names().get(namespace)?.get(name)
  }

  /** Adds `entry`; the pod must have none (`find`). */
  add(entry: Assigned): void {
    let filed = this.byNode.get(entry.node)
    if (filed === undefined) this.byNode.set(entry.node, (filed = new Map()))
    put(filed, entry)
    if (this.byName !== undefined) put(this.byName, entry)
    this.size++
  }

  /** Removes `entry`, if held. */
  remove(entry: Assigned): void {
    const filed = this.byNode.get(entry.node)
    if (filed === undefined || !drop(filed, entry)) return
    if (filed.size === 0) this.byNode.delete(entry.node)
    if (this.byName !== undefined) drop(this.byName, entry)
    this.size--
  }

  /** Every entry. */
  *[Symbol.iterator](): IterableIterator<Assigned> {
    for (const filed of this.byNode.values()) for (const names of filed.values()) yield* names.values()
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

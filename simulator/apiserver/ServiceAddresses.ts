/**
 * The cluster IPs and node ports the stored Services hold, for the Service registry's allocation
 * (src/api/kinds/ServiceAllocation.ts): upstream keeps them in bitmaps persisted beside the objects
 * (`ipallocator`, `portallocator`, repaired from the Services by `repair.go`); here they are read from the store itself
 * — indexed at the first Service write, then kept by following the store's changes — so a value is free exactly when
 * no stored Service holds it: released when its Service is deleted (by any path: a DELETE, its namespace going),
 * never given twice, and nothing to lose or repair after `apiserver-restart` (the store is kept). A server that never
 * writes a Service (every simulation) indexes nothing and follows nothing.
 */
import { Services } from "../../src/api/Resources.js"
import type { KObject } from "../../src/api/Object.js"
import { addressesOf, type TakenAddresses } from "../../src/api/kinds/ServiceAllocation.js"
import { specOf } from "../../src/api/kinds/Service.js"
import type { Change, Store } from "./Store.js"

export class ServiceAddresses implements TakenAddresses {
  /** How many stored Services hold each value (a value held twice is a bug, but counting keeps a release exact). */
  private readonly ips = new Map<string, number>()
  private readonly ports = new Map<number, number>()
  private following = false

  constructor(private readonly store: Store) {}

  get clusterIPs(): ReadonlySet<string> {
    this.follow()
    return keysOf(this.ips)
  }

  get nodePorts(): ReadonlySet<number> {
    this.follow()
    return keysOf(this.ports)
  }

  /** Indexes the stored Services and follows the store from now on (once). */
  private follow(): void {
    if (this.following) return
    this.following = true
    for (const svc of this.store.everyStored(Services)) this.count(svc, 1)
    this.store.subscribe((change: Change) => {
      if (change.resource !== Services) return
      // a deletion's `previous` is the object it removed
      const before = change.previous ?? (change.type === "DELETED" ? change.object : undefined)
      if (before !== undefined) this.count(before, -1)
      if (change.type !== "DELETED") this.count(change.object, 1)
    })
  }

  private count(svc: KObject, by: 1 | -1): void {
    const { clusterIPs, nodePorts } = addressesOf(specOf(svc))
    for (const ip of clusterIPs) bump(this.ips, ip, by)
    for (const port of nodePorts) bump(this.ports, port, by)
  }
}

const bump = <K>(counts: Map<K, number>, key: K, by: number): void => {
  const n = (counts.get(key) ?? 0) + by
  if (n > 0) counts.set(key, n)
  else counts.delete(key)
}

/** A map's keys as a read-only set, without a copy. */
const keysOf = <K>(counts: ReadonlyMap<K, number>): ReadonlySet<K> => ({ has: (k: K) => counts.has(k) }) as ReadonlySet<K>

/**
 * The informer's local copy of the objects (client-go's `thread_safe_store.go` behind an `Indexer`), keyed as
 * `MetaNamespaceKeyFunc` keys: `namespace/name`, or `name` for cluster-scoped objects. JavaScript runs one
 * fiber step at a time, so a plain map is as safe as the upstream lock.
 *
 * Each write says what it was, as client-go's `processDeltas` decides it from the indexer: an object not yet
 * held is an add, one held is an update (whatever the watch event's type), a delete of an unknown object is
 * nothing. `replace` is a relist as `DeltaFIFO.Replace` delivers it to a resync-less informer: listed objects
 * are adds or updates (an unchanged resourceVersion is a sync, which no resync-less handler sees), then the
 * objects the list no longer has are deleted.
 */
import type { KObject } from "../api/Object.js"

export const objectKey = (object: KObject): string =>
  object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name ?? ""}` : (object.metadata.name ?? "")

/** What one write did to the cache. */
export type Delta =
  | { readonly type: "Added"; readonly object: KObject }
  | { readonly type: "Updated"; readonly old: KObject; readonly object: KObject }
  | { readonly type: "Deleted"; readonly object: KObject }

export class Cache {
  private readonly objects = new Map<string, KObject>()

  get size(): number {
    return this.objects.size
  }

  getByKey(key: string): KObject | undefined {
    return this.objects.get(key)
  }

  get(namespace: string | undefined, name: string): KObject | undefined {
    return this.objects.get(namespace ? `${namespace}/${name}` : name)
  }

  list(): ReadonlyArray<KObject> {
    return Array.from(this.objects.values())
  }

  listKeys(): ReadonlyArray<string> {
    return Array.from(this.objects.keys())
  }

  /** ADDED or MODIFIED from the watch. */
  upsert(object: KObject): Delta {
    const key = objectKey(object)
    const old = this.objects.get(key)
    this.objects.set(key, object)
    return old === undefined ? { type: "Added", object } : { type: "Updated", old, object }
  }

  /** DELETED from the watch; undefined when the object was not held. The delta carries the watch's object. */
  delete(object: KObject): Delta | undefined {
    const key = objectKey(object)
    if (!this.objects.delete(key)) return undefined
    return { type: "Deleted", object }
  }

  /** A relist: the cache becomes `items`; the deltas in the order a resync-less informer's handlers see them. */
  replace(items: ReadonlyArray<KObject>): ReadonlyArray<Delta> {
    const deltas: Array<Delta> = []
    const listed = new Set<string>()
    for (const object of items) {
      const key = objectKey(object)
      listed.add(key)
      const old = this.objects.get(key)
      this.objects.set(key, object)
      if (old === undefined) deltas.push({ type: "Added", object })
      else if (old.metadata.resourceVersion !== object.metadata.resourceVersion) deltas.push({ type: "Updated", old, object })
    }
    // Objects gone while the watch was down: client-go hands these over as `DeletedFinalStateUnknown` with the
    // last state it held; here the delta carries that last state.
    for (const [key, old] of this.objects) {
      if (listed.has(key)) continue
      this.objects.delete(key)
      deltas.push({ type: "Deleted", object: old })
    }
    return deltas
  }
}

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

/** namespace ("" for cluster-scoped) → name → object. */
type Objects = Map<string, Map<string, KObject>>

/**
 * Objects are held by namespace, then name: a watch event's object brings both strings, whose hashes V8 keeps, so a
 * write builds and hashes no `namespace/name` key (50 pod informers over 150,000 pods notice it).
 */
export class Cache {
  private readonly objects: Objects = new Map()
  private count = 0

  get size(): number {
    return this.count
  }

  getByKey(key: string): KObject | undefined {
    const slash = key.indexOf("/")
    return slash < 0 ? this.get(undefined, key) : this.get(key.slice(0, slash), key.slice(slash + 1))
  }

  get(namespace: string | undefined, name: string): KObject | undefined {
    return this.objects.get(namespace || "")?.get(name)
  }

  list(): ReadonlyArray<KObject> {
    const out: Array<KObject> = []
    for (const names of this.objects.values()) for (const object of names.values()) out.push(object)
    return out
  }

  listKeys(): ReadonlyArray<string> {
    const out: Array<string> = []
    for (const [namespace, names] of this.objects) for (const name of names.keys()) out.push(namespace ? `${namespace}/${name}` : name)
    return out
  }

  /** ADDED or MODIFIED from the watch. */
  upsert(object: KObject): Delta {
    const old = put(this.objects, object)
    if (old === undefined) this.count++
    return old === undefined ? { type: "Added", object } : { type: "Updated", old, object }
  }

  /** DELETED from the watch; undefined when the object was not held. The delta carries the watch's object. */
  delete(object: KObject): Delta | undefined {
    const namespace = object.metadata.namespace || ""
    const names = this.objects.get(namespace)
    if (names === undefined || !names.delete(object.metadata.name ?? "")) return undefined
    if (names.size === 0) this.objects.delete(namespace)
    this.count--
    return { type: "Deleted", object }
  }

  /** A relist: the cache becomes `items`; the deltas in the order a resync-less informer's handlers see them. */
  replace(items: ReadonlyArray<KObject>): ReadonlyArray<Delta> {
    const deltas: Array<Delta> = []
    this.replaceEach(items, (type, object, old) => deltas.push(type === "Updated" ? { type, old: old!, object } : { type, object }))
    return deltas
  }

  /**
   * `replace` with each delta told, once the cache is the list, to `each` rather than built: 50 informers relisting
   * 150,000 pods would otherwise hold 7.5 million delta objects until delivered (old enough by then for the
   * expensive collections). The deltas wait as columns; `old` is the state an update replaced.
   */
  replaceEach(items: ReadonlyArray<KObject>, each: (type: Delta["type"], object: KObject, old: KObject | undefined) => void): void {
    const types: Array<Delta["type"]> = []
    const objects: Array<KObject> = []
    const olds: Array<KObject | undefined> = []
    for (const object of items) {
      const old = put(this.objects, object)
      if (old === undefined) {
        this.count++
        types.push("Added")
        objects.push(object)
        olds.push(undefined)
      } else if (old !== object && old.metadata.resourceVersion !== object.metadata.resourceVersion) {
        types.push("Updated")
        objects.push(object)
        olds.push(old)
      }
    }
    // A list has each key once, so holding no more objects than it brought means holding nothing else: the usual
    // relist (the first one above all) skips the set of 150,000 listed objects and the walk over the cache.
    if (this.count > items.length) {
      const listed = new Set<KObject>(items)
      // Objects gone while the watch was down (what the cache holds that the list did not bring): client-go hands
      // these over as `DeletedFinalStateUnknown` with the last state it held; here the delta carries that state.
      for (const [namespace, names] of this.objects) {
        for (const [name, old] of names) {
          if (listed.has(old)) continue
          names.delete(name)
          this.count--
          types.push("Deleted")
          objects.push(old)
          olds.push(undefined)
        }
        if (names.size === 0) this.objects.delete(namespace)
      }
    }
    for (let i = 0; i < types.length; i++) each(types[i]!, objects[i]!, olds[i])
  }
}

/** Stores `object` under its namespace and name; returns what it replaced. */
const put = (objects: Objects, object: KObject): KObject | undefined => {
  const namespace = object.metadata.namespace || ""
  let names = objects.get(namespace)
  if (names === undefined) objects.set(namespace, (names = new Map()))
  const name = object.metadata.name ?? ""
  const old = names.get(name)
  names.set(name, object)
  return old
}

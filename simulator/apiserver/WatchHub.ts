/**
 * Fan-out of store changes to watchers. Each watcher has a filter (namespace, selectors) and a bounded
 * buffer; a watcher whose consumer falls behind by more than its buffer is closed, so memory never grows
 * without bound (the client sees the stream end and re-watches).
 */
import type { KObject, WatchEvent } from "../../src/api/Object.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { indexedFieldOf, type IndexedField } from "./FieldIndex.js"
import { withResourceVersion, type Change } from "./Store.js"

export interface WatchSink {
  /**
   * Queues an event; false when the buffer is full (the hub then closes the watcher). `initial` events (the
   * starting state, or the history replayed for a watch from a resource version) are always taken: the client
   * has had no chance to read yet, so only live events count against the buffer.
   */
  readonly offer: (event: WatchEvent, initial?: boolean) => boolean
  /** Ends the stream cleanly. */
  readonly close: () => void
  readonly isClosed: () => boolean
}

export interface WatchFilter {
  readonly resource: ResourceType
  readonly prefix: string
  readonly matches: (obj: KObject) => boolean
}

export interface Watcher extends WatchFilter {
  /** The value its field selector pins the type's indexed field to (`FieldIndex.ts`): offered only such changes. */
  readonly indexValue?: string | undefined
  readonly sink: WatchSink
  /** Changes up to this revision were already delivered (or predate the watch). */
  readonly startRevision: number
}

/** Watch events are shared by every watcher that receives them: built once per change. */
export const eventOf = (type: WatchEvent["type"], obj: KObject, resource: ResourceType): WatchEvent => ({
  type,
  object: withTypeMeta(obj, resource)
})

export const withTypeMeta = (obj: KObject, resource: ResourceType): KObject =>
  obj.kind === resource.kind ? obj : { kind: resource.kind, apiVersion: resource.apiVersion, ...obj }

/** The watch event a change means to one watcher, or undefined: selector transitions become ADDED/DELETED. */
export const eventFor = (filter: WatchFilter, change: Change): WatchEvent["type"] | undefined => {
  if (change.resource !== filter.resource || !change.key.startsWith(filter.prefix)) return undefined
  const now = change.type !== "DELETED" && filter.matches(change.object)
  const before = change.previous !== undefined && filter.matches(change.previous)
  if (change.type === "DELETED") return before ? "DELETED" : undefined
  if (now && before) return "MODIFIED"
  if (now) return "ADDED"
  if (before) return "DELETED"
  return undefined
}

/** A watcher that stops matching gets DELETED with the old state at the change's revision. */
const deliveredObject = (type: WatchEvent["type"], change: Change): KObject =>
  type === "DELETED" && change.type !== "DELETED"
    ? withResourceVersion(change.previous!, change.revision)
    : change.object

/** One type's watchers: those pinned to a value of its indexed field apart (upstream's watch cache triggers). */
class TypeWatchers {
  readonly unindexed = new Set<Watcher>()
  readonly byValue = new Map<string, Set<Watcher>>()
  constructor(readonly indexed: IndexedField | undefined) {}

  get size(): number {
    let n = this.unindexed.size
    for (const set of this.byValue.values()) n += set.size
    return n
  }

  add(w: Watcher): void {
    if (w.indexValue === undefined || this.indexed === undefined) return void this.unindexed.add(w)
    let set = this.byValue.get(w.indexValue)
    if (set === undefined) this.byValue.set(w.indexValue, (set = new Set()))
    set.add(w)
  }

  remove(w: Watcher): void {
    if (w.indexValue === undefined || this.indexed === undefined) return void this.unindexed.delete(w)
    const set = this.byValue.get(w.indexValue)
    set?.delete(w)
    if (set?.size === 0) this.byValue.delete(w.indexValue)
  }

  all(): Array<Watcher> {
    const out = [...this.unindexed]
    for (const set of this.byValue.values()) out.push(...set)
    return out
  }
}

export class WatchHub {
  private readonly byResource = new Map<ResourceType, TypeWatchers>()

  get size(): number {
    let n = 0
    for (const set of this.byResource.values()) n += set.size
    return n
  }

  /** Watchers registered now, per type (`apiserver_registered_watchers`). */
  countsByResource(): ReadonlyArray<readonly [ResourceType, number]> {
    return [...this.byResource].map(([resource, set]) => [resource, set.size] as const)
  }

  add(watcher: Watcher): void {
    let set = this.byResource.get(watcher.resource)
    if (!set) {
      set = new TypeWatchers(indexedFieldOf(watcher.resource))
      this.byResource.set(watcher.resource, set)
    }
    set.add(watcher)
  }

  remove(watcher: Watcher): void {
    this.byResource.get(watcher.resource)?.remove(watcher)
  }

  /** Replays one change of history to a watcher that starts from a resource version. */
  replayTo(w: Watcher, change: Change): void {
    const type = eventFor(w, change)
    if (type) w.sink.offer(eventOf(type, deliveredObject(type, change), change.resource), true)
  }

  /** Delivers one change to every interested watcher. */
  publish(change: Change): void {
    const watchers = this.byResource.get(change.resource)
    if (!watchers) return
    this.deliver(watchers.unindexed, change)
    const indexed = watchers.indexed
    if (indexed === undefined || watchers.byValue.size === 0) return
    // a pinned watcher sees a change of an object that has or had its value (moving away is a DELETED to it)
    const now = indexed.valueOf(change.object)
    this.deliver(watchers.byValue.get(now), change)
    if (change.previous !== undefined) {
      const before = indexed.valueOf(change.previous)
      if (before !== now) this.deliver(watchers.byValue.get(before), change)
    }
  }

  private deliver(set: Set<Watcher> | undefined, change: Change): void {
    if (set === undefined || set.size === 0) return
    for (const w of set) {
      if (change.revision <= w.startRevision) continue
      const type = eventFor(w, change)
      if (!type) continue
      if (!w.sink.offer(this.sharedEvent(type, change))) this.closeWatcher(w)
    }
  }

  /**
   * The event of `type` for `change`, built once per change and type and shared by the watchers that receive it.
   * Kept in fields, not a per-change record or closure: one publish per write, most with one watcher or none.
   */
  private sharedEvent(type: WatchEvent["type"], change: Change): WatchEvent {
    if (this.eventsOf !== change) {
      this.eventsOf = change
      this.added = this.modified = this.deleted = undefined
    }
    if (type === "ADDED") return (this.added ??= eventOf(type, deliveredObject(type, change), change.resource))
    if (type === "MODIFIED") return (this.modified ??= eventOf(type, deliveredObject(type, change), change.resource))
    return (this.deleted ??= eventOf(type, deliveredObject(type, change), change.resource))
  }

  private eventsOf: Change | undefined = undefined
  private added: WatchEvent | undefined = undefined
  private modified: WatchEvent | undefined = undefined
  private deleted: WatchEvent | undefined = undefined

  private closeWatcher(w: Watcher): void {
    this.remove(w)
    w.sink.close()
  }

  /** Closes every watch, as a server restart would. */
  closeAll(): number {
    let n = 0
    for (const set of this.byResource.values()) {
      for (const w of set.all()) {
        this.closeWatcher(w)
        n++
      }
    }
    return n
  }
}

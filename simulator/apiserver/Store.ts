/**
 * The object store behind the simulated API server — what etcd is upstream.
 *
 * One global revision shared by every resource type; an object's `metadata.resourceVersion` is the revision
 * of its last write. A change log kept for the history window lets lists read at an older revision (all pages
 * of a paged list see the first page's revision) and lets watches start from one. Synchronous and free of
 * effects: the server passes the time in.
 */
import { type KObject, type ObjectMeta } from "../../src/api/Object.js"
import { flatString, shallowCopy } from "../../src/api/internal/V8Shapes.js"
import { Leases, type ResourceType } from "../../src/api/Resources.js"
import { ChangeLog, type Change } from "./ChangeLog.js"
import { indexedFieldOf, type IndexedField } from "./FieldIndex.js"
import { pageOfKeyOrder, RemainingCounts, type KeyOrder, type Page, type PageRequest } from "./KeyOrderPage.js"
import { RenewedVersion } from "./RenewedVersion.js"
import { SortedKeys } from "./SortedKeys.js"

export type { Change, ChangeType } from "./ChangeLog.js"
export type { Page, PageRequest } from "./KeyOrderPage.js"

/**
 * Told every change as it is written, with `slot`: the changed object's number in its type's table, given when it was
 * created and never given again (`Cell.slot`). A subscriber that keeps something per object indexes a dense column by
 * it instead of hashing the object's name while the write is under way.
 */
export type ChangeListener = (change: Change, slot: number) => void

/** `ns/name` for namespaced objects, `name` otherwise: the key order of a list. */
export const objectKey = (namespace: string | undefined, name: string): string =>
  namespace ? flatString(namespace, "/", name) : name

/** Keys of one namespace share the prefix `ns/`; the whole type has the empty prefix. */
export const keyPrefix = (namespace: string | undefined): string => (namespace ? `${namespace}/` : "")

/** How a written object gets its resourceVersion: a copy (callers may still hold the object), or in place. */
type Stamp = (obj: KObject, revision: number) => KObject

/** A copy of `obj` at `revision`. Every type's objects pass here, so `shallowCopy` copies (a spread is ~2× slower). */
export const withResourceVersion: Stamp = (obj, revision) => {
  const metadata: { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] } = shallowCopy(obj.metadata)
  metadata.resourceVersion = String(revision)
  const copy: { -readonly [K in keyof KObject]: KObject[K] } = shallowCopy(obj)
  copy.metadata = metadata
  return copy
}

const stampedInPlace: Stamp = (obj, revision) => {
  ;(obj.metadata as { resourceVersion?: string }).resourceVersion = String(revision)
  return obj
}

/** The selector of a read that has none: `Store.page` knows it needs to look at no object. */
export const everything = (_: KObject): boolean => true

/** A stored object with its key (the store swaps `obj` on every write of the key). */
export interface Entry {
  readonly key: string
  readonly obj: KObject
}

interface Cell extends Entry {
  obj: KObject
  /** False once deleted: an entry looked up earlier must not be written through. */
  live: boolean
  /** Its table: a write through a looked-up entry finds the change log without a lookup. */
  readonly table: Table
  /** How the history keeps `obj` when a renewal wrote it (`RenewedVersion.ts`); undefined: as `obj` itself. */
  renewed: RenewedVersion | undefined
  /** Its number in its table (`ChangeListener`), from 0 in order of creation. */
  readonly slot: number
}

/**
 * A lease's cell, which is also the record of its compact renewal version (`write`): a lease renewed every 10 s is read
 * by each renewal in its cell and then in its record, two cold objects of one of 65,000 leases (a cache miss each,
 * docs/benchmarks.md "Where a lease renewal's CPU goes"); in one object the record is read with the cell. Only leases
 * are renewed so (`LeaseRenewal.ts`); any other type's cell has no record's fields to carry.
 */
class RenewableCell extends RenewedVersion implements Cell {
  live = true
  renewed: RenewedVersion | undefined = undefined

  constructor(
    readonly key: string,
    public obj: KObject,
    readonly table: Table,
    readonly slot: number
  ) {
    super()
  }
}

/**
 * One resource type's objects: hash maps for reads and writes of one key, the same cells in key order for lists
 * (`SortedKeys.ts`). Replacing an object only swaps the cell's content, so the maps change on create and delete only.
 */
class Table {
  /** Retained changes of the type. */
  readonly log: ChangeLog
  /**
   * Namespace ("" when none) → name → cell: a request names its object by both, and looking them up as they came
   * (strings whose hashes are kept) costs a tenth of building and hashing `ns/name` for every request. The only map
   * of the cells: a key is `ns/name`, and a second map by key cost every create another lookup in a map of 150,000
   * (a few cache misses each, docs/benchmarks.md).
   */
  readonly byName = new Map<string, Map<string, Cell>>()
  /** Cells stored now. */
  size = 0
  /** The slot of the next cell created (`Cell.slot`). */
  nextSlot = 0
  readonly keyOrder = new SortedKeys<Cell>()
  /** The type's indexed field (`FieldIndex.ts`), and its value → the cells that have it. */
  readonly indexed: IndexedField | undefined
  readonly byIndexValue = new Map<string, Set<Cell>>()
  readonly remainingFrom = new RemainingCounts()
  /** The keys and objects in key order since the last write, when a list of the whole table made them (`inOrder`). */
  private snapshot: KeyOrder | undefined

  /**
   * The table now as two arrays in key order, made by the first page of a list of the whole table and kept until the
   * table's next write; undefined for any other page while none is kept. A page of a list with no selector is then two
   * slices: a paged LIST of 150,000 pods would otherwise walk the tree and touch every object, every time (~15–55 ms,
   * docs/benchmarks.md "With clients"). Only such first pages make one, so a table written between every page of a
   * list costs one build per list (as much as walking it once), never one per page.
   */
  inOrder(firstPageOfAll: boolean): KeyOrder | undefined {
    if (this.snapshot === undefined && firstPageOfAll) {
      const ordered = this.keyOrder.ordered()
      const cells = ordered.valuesArray()
      const objects = new Array<KObject>(cells.length)
      for (let i = 0; i < cells.length; i++) objects[i] = cells[i]!.obj
      this.snapshot = { keys: ordered.keysArray(), objects }
    }
    return this.snapshot
  }

  /** Every write of the table calls this: the key-order snapshot no longer holds. */
  changed(): void {
    this.snapshot = undefined
  }

  constructor(resource: ResourceType) {
    this.log = new ChangeLog(resource)
    this.indexed = indexedFieldOf(resource)
    this.renewable = resource === Leases
  }

  /** Whether the type's cells keep their renewal record themselves (`RenewableCell`). */
  private readonly renewable: boolean

  /** A new cell of `key` holding `obj`. */
  cellOf(key: string, obj: KObject, slot: number): Cell {
    return this.renewable ? new RenewableCell(key, obj, this, slot) : { key, obj, live: true, table: this, renewed: undefined, slot }
  }

  /** The cell stored under `key`. */
  find(key: string): Cell | undefined {
    const [namespace, name] = splitKey(key)
    return this.byName.get(namespace)?.get(name)
  }

  /** Adds the cell of a new key; `namespace` and `name` are the key's (`namesOf`). */
  add(cell: Cell, namespace: string, name: string): void {
    this.changed()
    let names = this.byName.get(namespace)
    if (names === undefined) this.byName.set(namespace, (names = new Map()))
    names.set(name, cell)
    this.size++
    this.keyOrder.add(cell)
    if (this.indexed !== undefined) this.indexAdd(this.indexed.valueOf(cell.obj), cell)
  }

  /** Keeps the index right when a cell's object is replaced. */
  reindex(cell: Cell, previous: KObject): void {
    if (this.indexed === undefined) return
    const before = this.indexed.valueOf(previous)
    const after = this.indexed.valueOf(cell.obj)
    if (before === after) return
    this.indexRemove(before, cell)
    this.indexAdd(after, cell)
  }

  private indexAdd(value: string, cell: Cell): void {
    let cells = this.byIndexValue.get(value)
    if (cells === undefined) this.byIndexValue.set(value, (cells = new Set()))
    cells.add(cell)
  }

  private indexRemove(value: string, cell: Cell): void {
    const cells = this.byIndexValue.get(value)
    cells?.delete(cell)
    if (cells?.size === 0) this.byIndexValue.delete(value)
  }

  /** The cells whose indexed field is `value`, in key order from `start`. */
  indexedFrom(value: string, start: string): IterableIterator<[string, Cell]> {
    const cells = [...(this.byIndexValue.get(value) ?? [])].filter((c) => c.key >= start)
    cells.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    return cells.map((c): [string, Cell] => [c.key, c])[Symbol.iterator]()
  }

  delete(cell: Cell): void {
    this.changed()
    cell.live = false
    if (this.indexed !== undefined) this.indexRemove(this.indexed.valueOf(cell.obj), cell)
    this.size--
    this.keyOrder.delete(cell.key)
    const [namespace, name] = splitKey(cell.key)
    const names = this.byName.get(namespace)
    names?.delete(name)
    if (names?.size === 0) this.byName.delete(namespace)
  }
}

/** `ns/name` → ["ns", "name"]; a key without a namespace → ["", key] (names and namespaces hold no "/"). */
const splitKey = (key: string): readonly [string, string] => {
  const slash = key.indexOf("/")
  return slash < 0 ? ["", key] : [key.slice(0, slash), key.slice(slash + 1)]
}

/**
 * The namespace and name of `obj` stored under `key`, for the name index: the object's own strings when they make its
 * key. Clients send back the names they read, so a lookup then meets the very same string and compares no characters.
 */
const namesOf = (key: string, obj: KObject): readonly [string, string] => {
  const { namespace, name } = obj.metadata
  return name !== undefined && isKeyOf(key, namespace, name) ? [namespace || "", name] : splitKey(key)
}

/** `objectKey(namespace, name) === key`, without building the key (every create would build one to compare). */
const isKeyOf = (key: string, namespace: string | undefined, name: string): boolean =>
  namespace
    ? key.length === namespace.length + 1 + name.length && key.charCodeAt(namespace.length) === 47 && key.startsWith(namespace) && key.endsWith(name)
    : key === name

/**
 * The objects under `prefix` from `start` now, when they are known without a walk: on a first page (`start` is the
 * prefix) with nothing changed since the page's revision, they are the table's, or its namespace's. The first page of
 * a paged LIST of every pod would otherwise walk all 150,000 keys to count them.
 */
const keysUnder = (table: Table, prefix: string, start: string, changedSince: number): number | undefined => {
  if (start !== prefix || changedSince > 0) return undefined
  return prefix === "" ? table.size : (table.byName.get(prefix.slice(0, -1))?.size ?? 0)
}

/** What stops a B+ tree walk (`forRange`). */
const stop = { break: true } as const

/** The storage step's operations, as kube-apiserver's etcd3 store names them (`etcd_request_duration_seconds`). */
export type StorageOperation = "get" | "list" | "create" | "update" | "delete"

/**
 * Times the store's operations — the model's storage step, where kube-apiserver talks to etcd (docs/metrics.md): set
 * by the HTTP server when it exposes metrics; unset, the store times nothing.
 */
export interface StorageTiming {
  /** A start instant, in seconds. */
  readonly start: () => number
  readonly observe: (operation: StorageOperation, resource: ResourceType, list: boolean, started: number) => void
}

export class Store {
  /** See {@link StorageTiming}. */
  timing: StorageTiming | undefined = undefined
  private current = 0
  private compacted = 0
  private readonly tables = new Map<ResourceType, Table>()
  private listeners: ReadonlyArray<ChangeListener> = []

  get revision(): number {
    return this.current
  }

  /** Reads and watches at revisions older than this fail with 410. */
  get compactedRevision(): number {
    return this.compacted
  }

  private table(resource: ResourceType): Table {
    let t = this.tables.get(resource)
    if (!t) {
      t = new Table(resource)
      this.tables.set(resource, t)
    }
    return t
  }

  /** Objects of a type stored now (upstream's object count tracker, for LIST work estimates). */
  count(resource: ResourceType): number {
    return this.tables.get(resource)?.size ?? 0
  }

  /** Objects of a type whose indexed field (`FieldIndex.ts`) has `value` now. */
  countIndexed(resource: ResourceType, value: string): number {
    return this.tables.get(resource)?.byIndexValue.get(value)?.size ?? 0
  }

  get(resource: ResourceType, key: string): KObject | undefined {
    return this.tables.get(resource)?.find(key)?.obj
  }

  /** The entry stored under `objectKey(namespace, name)`, found without building the key. */
  lookup(resource: ResourceType, namespace: string | undefined, name: string): Entry | undefined {
    const timing = this.timing
    if (timing === undefined) return this.tables.get(resource)?.byName.get(namespace || "")?.get(name)
    const started = timing.start()
    const entry = this.tables.get(resource)?.byName.get(namespace || "")?.get(name)
    timing.observe("get", resource, false, started)
    return entry
  }

  /** The objects of `resource` stored now in `namespace`, with their slots (`ChangeListener`): for a late subscriber. */
  *storedWithSlots(resource: ResourceType, namespace: string | undefined): Generator<readonly [obj: KObject, slot: number]> {
    const cells = this.tables.get(resource)?.byName.get(namespace || "")
    if (cells !== undefined) for (const cell of cells.values()) yield [cell.obj, cell.slot]
  }

  /** Every object of `resource` stored now, in every namespace: for a late subscriber that keeps no slots. */
  *everyStored(resource: ResourceType): Generator<KObject> {
    const namespaces = this.tables.get(resource)?.byName
    if (namespaces !== undefined) for (const cells of namespaces.values()) for (const cell of cells.values()) yield cell.obj
  }

  /** Whether `entry`, found by a lookup earlier, is still stored (not deleted since). */
  isLive(entry: Entry): boolean {
    return (entry as Cell).live
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners = [...this.listeners, listener]
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener)
    }
  }

  /** Stores `obj` at a new revision and returns the stored object (with its resourceVersion). */
  put(resource: ResourceType, key: string, obj: KObject, time: number): KObject {
    return this.putStamped(resource, key, obj, time, withResourceVersion)
  }

  /**
   * `put` of an object made for this write, it and its metadata held by nobody else (a server-built create, a
   * seeded object): stamped in place, not copied. 150,000 seeded pods notice the copies and the garbage.
   */
  putFresh(resource: ResourceType, key: string, obj: KObject, time: number): KObject {
    return this.putStamped(resource, key, obj, time, stampedInPlace)
  }

  private putStamped(resource: ResourceType, key: string, obj: KObject, time: number, stamp: Stamp): KObject {
    const started = this.timing?.start()
    const table = this.table(resource)
    const [namespace, name] = namesOf(key, obj)
    const cell = table.byName.get(namespace)?.get(name)
    if (cell !== undefined) return this.write(table, cell, obj, time, stamp, started)
    const revision = ++this.current
    const stored = stamp(obj, revision)
    const slot = table.nextSlot++
    table.add(table.cellOf(key, stored, slot), namespace, name)
    if (started !== undefined) this.timing!.observe("create", resource, false, started)
    this.record(table, { revision, type: "ADDED", resource, key, object: stored, previous: undefined, time }, slot)
    return stored
  }

  /**
   * `put` of the entry a `lookup` just returned, without finding its key again (most writes look up first).
   * `fresh`: `obj` and its metadata were built for this write and are held by nobody else (see `putFresh`).
   */
  replace(resource: ResourceType, entry: Entry, obj: KObject, time: number, fresh = false, renewed?: RenewedVersion): KObject {
    const cell = entry as Cell
    if (!cell.live) throw new Error(`store: write through a deleted entry ${cell.key}`)
    if (cell.table.log.resource !== resource) throw new Error(`store: entry ${cell.key} is not a ${resource.kind}`)
    return this.write(cell.table, cell, obj, time, fresh ? stampedInPlace : withResourceVersion, this.timing?.start(), renewed)
  }

  /** How the history keeps the entry's object when a renewal wrote it (`RenewedVersion.ts`), else undefined. */
  renewedVersion(entry: Entry): RenewedVersion | undefined {
    return (entry as Cell).renewed
  }

  /**
   * The record a renewal describes its version in for `replace` (`renewed`), which copies it: one for every write, as
   * a renewal is written before the next is described.
   */
  renewalRecord(): RenewedVersion {
    return this.pendingRenewal
  }

  private readonly pendingRenewal = new RenewedVersion()

  /**
   * `started`: when the write's storage step began, when timed. `renewed`: `obj` is a renewal's version, kept in the
   * history as described there (its revision and time set here; the record is copied, not held); the previous version
   * is kept as it was.
   */
  private write(table: Table, cell: Cell, obj: KObject, time: number, stamp: Stamp, started: number | undefined, renewed?: RenewedVersion): KObject {
    const previous = cell.obj
    const former = cell.renewed
    const previousKept = former ?? previous
    const revision = ++this.current
    const stored = stamp(obj, revision)
    cell.obj = stored
    table.changed()
    table.reindex(cell, previous)
    if (started !== undefined) this.timing!.observe("update", table.log.resource, false, started)
    const change: Change = { revision, type: "MODIFIED", resource: table.log.resource, key: cell.key, object: stored, previous, time }
    renewed?.written(revision, time)
    // The history copies a compact version's numbers (`RenewedColumns.ts`) and holds any other version's record.
    const kept = renewed === undefined || renewed.compact ? renewed : renewed.copy()
    table.log.push(change, kept ?? change.object, previousKept)
    // The cell's record of a compact version is held by nobody else: the lease's next renewal sets it again, so a lease
    // renewed every 10 s keeps one record, already read for this write, not one more each time — a lease's the cell
    // itself (`RenewableCell`), read with it.
    if (renewed === undefined || kept !== renewed) cell.renewed = kept
    else if (cell instanceof RenewableCell) cell.renewed = cell.assign(renewed)
    else cell.renewed = former !== undefined && former.compact ? former.assign(renewed) : renewed.copy()
    this.notify(change, cell.slot)
    return stored
  }

  /** Removes the object at a new revision; returns its last state stamped with the deletion revision. */
  remove(resource: ResourceType, key: string, time: number): KObject | undefined {
    const started = this.timing?.start()
    const table = this.tables.get(resource)
    const cell = table?.find(key)
    if (!table || !cell) return undefined
    const previous = cell.obj
    table.delete(cell)
    const revision = ++this.current
    const object = withResourceVersion(previous, revision)
    if (started !== undefined) this.timing!.observe("delete", resource, false, started)
    this.record(table, { revision, type: "DELETED", resource, key, object, previous, time }, cell.slot)
    return object
  }

  private record(table: Table, change: Change, slot: number): void {
    table.log.push(change)
    this.notify(change, slot)
  }

  private notify(change: Change, slot: number): void {
    const listeners = this.listeners
    for (let i = 0; i < listeners.length; i++) listeners[i]!(change, slot)
  }

  /** Drops changes written before `before` (ms); reads older than the last dropped revision then fail. */
  compactBefore(before: number): void {
    for (const table of this.tables.values()) this.compacted = Math.max(this.compacted, table.log.dropBefore(before))
  }

  /** Drops the whole change log, as a compaction at the current revision. */
  compactAll(): void {
    for (const table of this.tables.values()) table.log.dropAll()
    this.compacted = this.current
  }

  /**
   * Retained changes of `resource` after `revision`, oldest first (the caller checks `revision >= compactedRevision`);
   * with `indexValue`, only those that had or have that value of the type's indexed field (`ChangeLog.after`).
   */
  changesAfter(resource: ResourceType, revision: number, indexValue?: string): Iterable<Change> {
    return this.tables.get(resource)?.log.after(revision, indexValue) ?? []
  }


  /**
   * Objects of a type at `revision`, in key order from `start`: the current table with changes made after
   * `revision` undone.
   */
  page(req: PageRequest): Page {
    const timing = this.timing
    if (timing === undefined) return this.pageAt(req)
    const started = timing.start()
    const page = this.pageAt(req)
    timing.observe("list", req.resource, true, started)
    return page
  }

  private pageAt(req: PageRequest): Page {
    const table = this.tables.get(req.resource)
    const undone = this.stateBefore(req.resource, req.revision, req.prefix, req.start)
    // nothing under the page changed since its revision and every object is wanted: slices of the table now
    if (table !== undefined && undone.size === 0 && req.matches === everything && req.indexValue === undefined) {
      const order = table.inOrder(req.prefix === "" && req.start === "")
      if (order !== undefined) return pageOfKeyOrder(table.remainingFrom, order, req)
    }
    const undoneKeys = [...undone.keys()].sort()
    const items: KObject[] = []
    const limit = req.limit ?? Number.POSITIVE_INFINITY
    let lastKey: string | undefined
    let remaining = 0
    let full = false
    // objects at `revision` from `start` on, counted for remainingItemCount when a page from here had it counted
    const counting = req.countRemaining && table !== undefined
    const counted = counting ? (table.remainingFrom.get(req.revision, req.prefix, req.start) ?? keysUnder(table, req.prefix, req.start, undoneKeys.length)) : undefined
    let seen = 0
    /** Takes the state of `key` at `revision` (none: absent then) into the page; true once the page is done. */
    const take = (key: string, obj: KObject | null | undefined): boolean => {
      if (!obj) return false
      if (full) {
        if (!req.countRemaining) {
          remaining = 1
          return true
        }
        if (counted !== undefined) {
          remaining = counted - seen
          return true
        }
        remaining++
        return false
      }
      seen++
      if (!req.matches(obj)) return false
      items.push(obj)
      lastKey = key
      if (items.length >= limit) full = true
      return false
    }
    // Merge the two key-ordered sources; a key changed after `revision` takes its old state.
    let u = 0
    const takeStored = (key: string, obj: KObject): boolean => {
      for (; u < undoneKeys.length && undoneKeys[u]! < key; u++) if (take(undoneKeys[u]!, undone.get(undoneKeys[u]!))) return true
      if (undoneKeys[u] === key) return take(undoneKeys[u++]!, undone.get(key))
      return take(key, obj)
    }
    let done = false
    if (req.indexValue !== undefined && table?.indexed !== undefined) {
      // An object that matched the index value at `revision` but not now changed since, so `undone` brings it back.
      for (const [key, cell] of table.indexedFrom(req.indexValue, req.start)) {
        if (!key.startsWith(req.prefix)) break
        if ((done = takeStored(key, cell.obj))) break
      }
    } else if (table !== undefined) {
      // in place, not through an iterator: a paged LIST of every pod walks 150,000 keys per first page
      const ordered = table.keyOrder.ordered()
      const last = ordered.maxKey()
      if (last !== undefined && last >= req.start) {
        ordered.forRange(req.start, last, true, (key, cell) => {
          if (!key.startsWith(req.prefix)) return stop
          if ((done = takeStored(key, cell.obj))) return stop
        })
      }
    }
    for (; !done && u < undoneKeys.length; u++) done = take(undoneKeys[u]!, undone.get(undoneKeys[u]!))
    if (counting && lastKey !== undefined && remaining > 0) {
      table.remainingFrom.set(req.revision, req.prefix, req.start, seen + remaining)
      table.remainingFrom.set(req.revision, req.prefix, lastKey + "\u0000", remaining)
    }
    return { items, lastKey: remaining > 0 ? lastKey : undefined, remaining }
  }

  /** For keys of `resource` under `prefix` from `start` changed after `revision`: their state then (null = absent). */
  private stateBefore(resource: ResourceType, revision: number, prefix: string, start: string): Map<string, KObject | null> {
    const undone = new Map<string, KObject | null>()
    if (revision >= this.current) return undone
    for (const c of this.tables.get(resource)?.log.newestAfter(revision) ?? []) {
      if (c.key < start || !c.key.startsWith(prefix)) continue
      undone.set(c.key, c.previous ?? null)
    }
    return undone
  }
}

/**
 * The retained changes of one resource type, oldest first — what a watch cache replays for a watch that starts at
 * a resource version, and what a list at an older revision undoes. One log per type, so a watch of pods does not
 * walk past every lease renewal.
 *
 * Kept as columns rather than `Change` objects: 5,000 agents renewing leases keep some 150,000 changes in a
 * 5-minute window, and every retained object is one more the garbage collector copies and marks. A `Change` is
 * built again only when a watch replays or a list undoes; a lease renewal's versions are kept as what the renewal
 * changed (`RenewedVersion.ts`), as numbers in typed arrays (`RenewedColumns.ts`), and made again then too.
 */
import type { KObject } from "../../src/api/Object.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { indexedFieldOf, type IndexedField } from "./FieldIndex.js"
import { RenewedColumns } from "./RenewedColumns.js"
import { grownObjects, grownTyped } from "./RingGrowth.js"
import type { KeptVersion } from "./RenewedVersion.js"

export type ChangeType = "ADDED" | "MODIFIED" | "DELETED"

export interface Change {
  readonly revision: number
  readonly type: ChangeType
  readonly resource: ResourceType
  readonly key: string
  /** The new state; for DELETED the last stored state with the deletion revision as its resourceVersion. */
  readonly object: KObject
  /** The state before this change (absent for ADDED). */
  readonly previous: KObject | undefined
  /** Clock time of the write, in ms; compaction drops changes older than the history window. */
  readonly time: number
}

const changeTypes: ReadonlyArray<ChangeType> = ["ADDED", "MODIFIED", "DELETED"]

/** A ring's first capacity, and the least it shrinks to. */
const MinCapacity = 1024

/**
 * The capacity a ring of `retained` changes (at most an eighth of its slots) shrinks to: room for four times as many,
 * so that it grows again only once they have quadrupled and shrinks again only once they have halved. A start storm
 * grows a ring that its window then empties: the pods' ring is 256 K slots at 13,000 nodes (26 MiB, heap snapshot at
 * virtual minute 8, every slot empty) and ~1 M at 65,000, kept for nothing for the rest of the run (docs/benchmarks.md
 * "History").
 */
const shrunkCapacity = (retained: number): number => {
  let capacity = MinCapacity
  while (capacity < retained * 4) capacity *= 2
  return capacity
}
const typeCode: Readonly<Record<ChangeType, number>> = { ADDED: 0, MODIFIED: 1, DELETED: 2 }

export class ChangeLog {
  /**
   * A ring of `capacity` (a power of two) slots: the change at position `p` (its number since the log began) is
   * in slot `p & (capacity - 1)`. Numbers in typed arrays, which the garbage collector never scans; objects in
   * arrays allocated once per growth. Columns that grew by pushes and were cut by slices cost ~1 µs a change
   * (their copies, and young arrays of 100,000 slots for the scavenger), a ring ~0.4 µs (docs/benchmarks.md).
   */
  private capacity = MinCapacity
  private revisions = new Float64Array(this.capacity)
  private times = new Float64Array(this.capacity)
  private types = new Uint8Array(this.capacity)
  private keys: Array<string | undefined> = new Array(this.capacity).fill(undefined)
  private objects: Array<KeptVersion | undefined> = new Array(this.capacity).fill(undefined)
  private previous: Array<KeptVersion | undefined> = new Array(this.capacity).fill(undefined)
  /**
   * The numbers of renewal versions kept over the bases in `objects` and `previous` (`RenewedColumns.ts`); an object's
   * revision and second are its change's, in `revisions` and `times`.
   */
  private readonly renewedObjects = new RenewedColumns(this.capacity, true)
  private readonly renewedPrevious = new RenewedColumns(this.capacity, false)
  /** Position of the oldest retained change. */
  private first = 0
  /** Position the next change takes (changes retained: `end - first`). */
  private end = 0
  /** `first` when the index was last cut: it is cut again once as many changes have been dropped as are kept. */
  private indexCutAt = 0
  /**
   * The type's indexed field (`FieldIndex.ts`), and its value → positions of the changes whose object or previous
   * state has it, oldest first: a watch pinned to a value replays only those (5,000 per-node pod watches starting
   * while 150,000 pods change would otherwise each walk every change).
   */
  private readonly indexed: IndexedField | undefined
  private byValue = new Map<string, number[]>()

  constructor(readonly resource: ResourceType) {
    this.indexed = indexedFieldOf(resource)
  }

  /** `object` and `previous`: how the history keeps the change's states (`RenewedVersion.ts`), the states themselves unless given. */
  push(change: Change, object: KeptVersion = change.object, previous: KeptVersion | undefined = change.previous): void {
    if (this.end - this.first === this.capacity) this.resize(this.capacity * 2)
    const position = this.end++
    if (this.indexed !== undefined) {
      const now = this.indexed.valueOf(change.object)
      this.indexAt(now, position)
      if (change.previous !== undefined) {
        const before = this.indexed.valueOf(change.previous)
        if (before !== now) this.indexAt(before, position)
      }
    }
    const slot = position & (this.capacity - 1)
    this.revisions[slot] = change.revision
    this.times[slot] = change.time
    this.types[slot] = typeCode[change.type]
    this.keys[slot] = change.key
    this.objects[slot] = this.renewedObjects.keep(slot, object)
    this.previous[slot] = this.renewedPrevious.keep(slot, previous)
  }

  /**
   * The ring at `capacity` slots (twice as many when full; fewer once most are empty, `dropUpTo`), every retained change
   * moved to its slot there (`RingGrowth.ts`).
   */
  private resize(capacity: number): void {
    const { first, end } = this
    this.revisions = grownTyped(this.revisions, new Float64Array(capacity), first, end)
    this.times = grownTyped(this.times, new Float64Array(capacity), first, end)
    this.types = grownTyped(this.types, new Uint8Array(capacity), first, end)
    this.keys = grownObjects(this.keys, capacity, first, end)
    this.objects = grownObjects(this.objects, capacity, first, end)
    this.previous = grownObjects(this.previous, capacity, first, end)
    this.renewedObjects.resize(capacity, first, end)
    this.renewedPrevious.resize(capacity, first, end)
    this.capacity = capacity
  }

  /** The ring's slots now: what its columns take, ~41 bytes a slot and ~89 once a renewal's are made (tests, figures). */
  get slots(): number {
    return this.capacity
  }

  private revisionAt(position: number): number {
    return this.revisions[position & (this.capacity - 1)]!
  }

  /** Drops changes written before `before` (ms); returns the newest dropped revision, or 0. */
  dropBefore(before: number): number {
    let p = this.first
    while (p < this.end && this.times[p & (this.capacity - 1)]! < before) p++
    return this.dropUpTo(p)
  }

  /** Drops everything; returns the newest dropped revision, or 0. */
  dropAll(): number {
    return this.dropUpTo(this.end)
  }

  private dropUpTo(position: number): number {
    if (position <= this.first) return 0
    const newest = this.revisionAt(position - 1)
    // Let the dropped objects go now, not when their slots are next written.
    for (let p = this.first; p < position; p++) {
      const slot = p & (this.capacity - 1)
      this.keys[slot] = undefined
      this.objects[slot] = undefined
      this.previous[slot] = undefined
    }
    this.first = position
    if (this.indexed !== undefined && this.first - this.indexCutAt > Math.max(1024, this.end - this.first)) this.cutIndex()
    const retained = this.end - this.first
    if (this.capacity > MinCapacity && retained * 8 <= this.capacity) this.resize(shrunkCapacity(retained))
    return newest
  }

  private indexAt(value: string, position: number): void {
    const positions = this.byValue.get(value)
    if (positions === undefined) this.byValue.set(value, [position])
    else positions.push(position)
  }

  /** Drops the index's positions of changes no longer retained. */
  private cutIndex(): void {
    const oldest = this.first
    this.indexCutAt = oldest
    const kept = new Map<string, number[]>()
    for (const [value, positions] of this.byValue) {
      const from = firstAtLeast(positions.length, (k) => positions[k]!, oldest)
      if (from < positions.length) kept.set(value, from === 0 ? positions : positions.slice(from))
    }
    this.byValue = kept
  }

  private change(position: number): Change {
    const slot = position & (this.capacity - 1)
    const previous = this.previous[slot]
    const revision = this.revisions[slot]!
    const time = this.times[slot]!
    return {
      revision,
      type: changeTypes[this.types[slot]!]!,
      resource: this.resource,
      key: this.keys[slot]!,
      object: this.renewedObjects.version(slot, this.objects[slot]!, this.resource, revision, time),
      previous: previous === undefined ? undefined : this.renewedPrevious.version(slot, previous, this.resource, revision, time),
      time
    }
  }

  /**
   * Retained changes after `revision`, oldest first; with `indexValue` (of the type's indexed field) only those
   * whose object or previous state has that value — a superset of what a watch pinned to it can see.
   */
  *after(revision: number, indexValue?: string): Generator<Change> {
    if (indexValue !== undefined && this.indexed !== undefined) {
      const positions = this.byValue.get(indexValue) ?? []
      // Revisions increase along the log, so the first retained one after `revision` is found by bisection.
      const from = firstAtLeast(positions.length, (k) => (positions[k]! < this.first ? -Infinity : this.revisionAt(positions[k]!)), revision + 1)
      for (let k = from; k < positions.length; k++) yield this.change(positions[k]!)
      return
    }
    const first = this.first
    for (let p = first + firstAtLeast(this.end - first, (i) => this.revisionAt(first + i), revision + 1); p < this.end; p++) yield this.change(p)
  }

  /** Retained changes after `revision`, newest first. */
  *newestAfter(revision: number): Generator<Change> {
    for (let p = this.end - 1; p >= this.first; p--) {
      if (this.revisionAt(p) <= revision) return
      yield this.change(p)
    }
  }
}

/** The first index below `length` whose key (non-decreasing with the index) is at least `least`; `length` if none. */
const firstAtLeast = (length: number, key: (index: number) => number, least: number): number => {
  let lo = 0
  let hi = length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (key(mid) < least) lo = mid + 1
    else hi = mid
  }
  return lo
}

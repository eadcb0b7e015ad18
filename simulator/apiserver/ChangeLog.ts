/**
 * The retained changes of one resource type, oldest first — what a watch cache replays for a watch that starts at
 * a resource version, and what a list at an older revision undoes. One log per type, so a watch of pods does not
 * walk past every lease renewal.
 *
 * Kept as columns rather than `Change` objects: 5,000 agents renewing leases keep some 150,000 changes in a
 * 5-minute window, and every retained object is one more the garbage collector copies and marks. A `Change` is
 * built again only when a watch replays or a list undoes.
 */
import type { KObject } from "../../src/api/Object.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { indexedFieldOf, type IndexedField } from "./FieldIndex.js"
import type { Change, ChangeType } from "./Store.js"

export class ChangeLog {
  private revisions: number[] = []
  private times: number[] = []
  private types: ChangeType[] = []
  private keys: Array<string | undefined> = []
  private objects: Array<KObject | undefined> = []
  private previous: Array<KObject | undefined> = []
  /** Index of the oldest retained change; slots before it are cleared. */
  private head = 0
  /** Changes cut off the front of the columns so far: a change's position is `offset` + its index. */
  private offset = 0
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

  push(change: Change): void {
    if (this.indexed !== undefined) {
      const position = this.offset + this.revisions.length
      const now = this.indexed.valueOf(change.object)
      this.indexAt(now, position)
      if (change.previous !== undefined) {
        const before = this.indexed.valueOf(change.previous)
        if (before !== now) this.indexAt(before, position)
      }
    }
    this.revisions.push(change.revision)
    this.times.push(change.time)
    this.types.push(change.type)
    this.keys.push(change.key)
    this.objects.push(change.object)
    this.previous.push(change.previous)
  }

  /** Drops changes written before `before` (ms); returns the newest dropped revision, or 0. */
  dropBefore(before: number): number {
    const times = this.times
    let i = this.head
    while (i < times.length && times[i]! < before) i++
    return this.dropUpTo(i)
  }

  /** Drops everything; returns the newest dropped revision, or 0. */
  dropAll(): number {
    return this.dropUpTo(this.revisions.length)
  }

  private dropUpTo(index: number): number {
    if (index <= this.head) return 0
    const newest = this.revisions[index - 1]!
    // Let the dropped objects go now, not when the columns are next cut.
    for (let i = this.head; i < index; i++) {
      this.keys[i] = undefined
      this.objects[i] = undefined
      this.previous[i] = undefined
    }
    this.head = index
    // Reclaim the columns once the dropped prefix dominates them.
    if (this.head > 1024 && this.head * 2 > this.revisions.length) {
      const from = this.head
      this.revisions = this.revisions.slice(from)
      this.times = this.times.slice(from)
      this.types = this.types.slice(from)
      this.keys = this.keys.slice(from)
      this.objects = this.objects.slice(from)
      this.previous = this.previous.slice(from)
      this.head = 0
      this.offset += from
      this.cutIndex()
    }
    return newest
  }

  private indexAt(value: string, position: number): void {
    const positions = this.byValue.get(value)
    if (positions === undefined) this.byValue.set(value, [position])
    else positions.push(position)
  }

  /** Drops the index's positions of changes no longer in the columns. */
  private cutIndex(): void {
    const oldest = this.offset
    const kept = new Map<string, number[]>()
    for (const [value, positions] of this.byValue) {
      const from = firstAtLeast(positions, oldest, (p) => p)
      if (from < positions.length) kept.set(value, from === 0 ? positions : positions.slice(from))
    }
    this.byValue = kept
  }

  private change(i: number): Change {
    return {
      revision: this.revisions[i]!,
      type: this.types[i]!,
      resource: this.resource,
      key: this.keys[i]!,
      object: this.objects[i]!,
      previous: this.previous[i],
      time: this.times[i]!
    }
  }

  /**
   * Retained changes after `revision`, oldest first; with `indexValue` (of the type's indexed field) only those
   * whose object or previous state has that value — a superset of what a watch pinned to it can see.
   */
  *after(revision: number, indexValue?: string): Generator<Change> {
    const revisions = this.revisions
    if (indexValue !== undefined && this.indexed !== undefined) {
      const positions = this.byValue.get(indexValue) ?? []
      const offset = this.offset
      // Revisions increase along the log, so the first one after `revision` is found by bisection.
      for (let k = firstAtLeast(positions, revision + 1, (p) => revisions[p - offset]!); k < positions.length; k++) {
        const i = positions[k]! - offset
        if (i >= this.head) yield this.change(i)
      }
      return
    }
    for (let i = firstAtLeast(revisions, revision + 1, (r) => r, this.head); i < revisions.length; i++) yield this.change(i)
  }

  /** Retained changes after `revision`, newest first. */
  *newestAfter(revision: number): Generator<Change> {
    for (let i = this.revisions.length - 1; i >= this.head; i--) {
      if (this.revisions[i]! <= revision) return
      yield this.change(i)
    }
  }
}

/** The first index from `lo` whose key (non-decreasing along `items`) is at least `least`; `items.length` if none. */
const firstAtLeast = <A>(items: ReadonlyArray<A>, least: number, key: (item: A) => number, lo = 0): number => {
  let hi = items.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (key(items[mid]!) < least) lo = mid + 1
    else hi = mid
  }
  return lo
}

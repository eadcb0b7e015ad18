/**
 * A page of a table's objects read from its key order (`Store.page`'s fast path, `Table.inOrder`): the keys sorted,
 * a page found by binary search, and the count of the keys left after a page remembered for the next page of the same
 * list (`remainingItemCount`).
 */
import type { KObject } from "../../src/api/Object.js"
import { flatString } from "../../src/api/internal/V8Shapes.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { sliceOfStored } from "./JsonLength.js"

export interface PageRequest {
  readonly resource: ResourceType
  /** Revision to read at; must not be older than `compactedRevision`. */
  readonly revision: number
  readonly prefix: string
  /** First key to consider (inclusive); `prefix` when starting. */
  readonly start: string
  /** Maximum matching items; undefined for all. */
  readonly limit: number | undefined
  /** Which objects to take; `everything` for all. */
  readonly matches: (obj: KObject) => boolean
  /** Count the keys left after the page (for remainingItemCount). */
  readonly countRemaining: boolean
  /** The value a field selector pins the type's indexed field to (`FieldIndex.ts`): read the index, not the table. */
  readonly indexValue?: string | undefined
}

export interface Page {
  readonly items: ReadonlyArray<KObject>
  /** Key of the last returned item when more matching keys may follow. */
  readonly lastKey: string | undefined
  readonly remaining: number
}

/** A table's keys and their objects, in key order. */
export interface KeyOrder {
  readonly keys: ReadonlyArray<string>
  readonly objects: ReadonlyArray<KObject>
}

/** The first index of sorted `keys` whose key is ≥ `key`. */
const lowerBound = (keys: ReadonlyArray<string>, key: string): number => {
  let low = 0
  let high = keys.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (keys[mid]! < key) low = mid + 1
    else high = mid
  }
  return low
}

/** The end of the keys starting with `prefix` ("ns/"; "" for all), from `from` on. */
const prefixEnd = (keys: ReadonlyArray<string>, prefix: string, from: number): number => {
  if (prefix === "") return keys.length
  // every key with the prefix sorts before the prefix with its last character raised
  const above = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)
  return Math.max(from, lowerBound(keys, above))
}

/**
 * How many objects a type had at a revision from a key on, remembered from the page that counted them: the next
 * page of a paged list starts where the last one ended (its continue key), so only the first page counts the rest
 * of the keys for `remainingItemCount`. Without it a paged LIST of 150,000 pods would count ~11 million keys.
 */
export class RemainingCounts {
  private readonly counts = new Map<string, number>()
  private static readonly capacity = 1_024

  get(revision: number, prefix: string, start: string): number | undefined {
    return this.counts.get(flatString(String(revision), "\u0000", prefix, "\u0000", start))
  }

  set(revision: number, prefix: string, start: string, count: number): void {
    // paged lists in progress are few; an old list session that lost its entry only counts again
    if (this.counts.size >= RemainingCounts.capacity) this.counts.clear()
    this.counts.set(flatString(String(revision), "\u0000", prefix, "\u0000", start), count)
  }
}

/** `Store.page` of every object from a table's key order as it is now (`Table.inOrder`); `remainingFrom`: its table's remembered counts. */
export const pageOfKeyOrder = (remainingFrom: RemainingCounts, { keys, objects }: KeyOrder, req: PageRequest): Page => {
  const from = lowerBound(keys, req.start)
  const end = prefixEnd(keys, req.prefix, from)
  const to = req.limit === undefined ? end : Math.min(end, from + req.limit)
  const left = end - to
  // sliced so that the model sums the page's sizes from the order's prefix sums (`JsonLength.sliceOfStored`)
  if (left === 0) return { items: sliceOfStored(objects, from, to), lastKey: undefined, remaining: 0 }
  const lastKey = keys[to - 1]!
  // a later page read the slow way (a write came between pages) finds the count instead of walking for it
  if (req.countRemaining) remainingFrom.set(req.revision, req.prefix, lastKey + "\u0000", left)
  return { items: sliceOfStored(objects, from, to), lastKey, remaining: req.countRemaining ? left : 1 }
}

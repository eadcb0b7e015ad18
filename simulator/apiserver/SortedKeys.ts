/**
 * A resource type's keys in order, for lists (`Store.page`): a B+ tree whose inserts wait until something reads the
 * order. Creates are most of a table's changes and a list reads the order seldom, so the keys added since the last
 * read are put in at the next one, all at once: many of them (150,000 seeded pods, docs/cluster.md) sorted and the
 * tree built again from two sorted runs, a few inserted one by one. One insert into a tree of 150,000 string keys
 * compares ~17 keys scattered over the heap (a cache miss each); sorting the batch and building the tree in order
 * costs a third of that (docs/benchmarks.md, issue 39). The order read is the same either way: callers cannot tell.
 */
import { createRequire } from "node:module"

// sorted-btree is CommonJS with its class on `exports.default`; require it so Node and vitest agree.
const require = createRequire(import.meta.url)
const BTree = require("sorted-btree").default as new <K, V>(entries: undefined, compare: (a: K, b: K) => number) => BTree<K, V>
const { bulkLoad } = require("sorted-btree/extended/bulkLoad") as {
  readonly bulkLoad: <K, V>(keys: K[], values: V[], maxNodeSize: number, compare: (a: K, b: K) => number) => BTree<K, V>
}

/** The part of a B+ tree used here: a map kept in key order. */
interface BTree<K, V> {
  readonly size: number
  set(key: K, value: V): boolean
  delete(key: K): boolean
  keysArray(): K[]
  valuesArray(): V[]
  maxKey(): K | undefined
  forRange(low: K, high: K, includeHigh: boolean, onFound: (k: K, v: V) => { break?: true } | undefined): number | true
}

/** Keys compare as strings do (`<`): the order of a list. */
const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** sorted-btree's default node size. */
const nodeSize = 32

/** Fewer waiting keys than this go in one by one, unsorted: sorting would cost more than it saves. */
const fewKeys = 16

/** What is kept: anything with its key. */
export interface Keyed {
  readonly key: string
}

export class SortedKeys<V extends Keyed> {
  private tree: BTree<string, V> = new BTree<string, V>(undefined, compareKeys)
  /** Values added since the order was last read, in the order they came. */
  private waiting: V[] = []

  /** Adds `value` under its key, which must not be here (the store knows from its hash maps). */
  add(value: V): void {
    this.waiting.push(value)
  }

  delete(key: string): void {
    this.settle()
    this.tree.delete(key)
  }

  /** The tree with every added key in it. */
  ordered(): Pick<BTree<string, V>, "keysArray" | "valuesArray" | "maxKey" | "forRange"> {
    this.settle()
    return this.tree
  }

  /** Puts the waiting keys into the tree. */
  private settle(): void {
    const batch = this.waiting
    const count = batch.length
    if (count === 0) return
    this.waiting = []
    const tree = this.tree
    if (count < fewKeys) {
      for (let i = 0; i < count; i++) tree.set(batch[i]!.key, batch[i]!)
      return
    }
    batch.sort(byKey)
    // a batch small beside the tree goes in one by one (in key order: the inserts walk neighbouring nodes)
    if (count * 4 < tree.size) {
      for (let i = 0; i < count; i++) tree.set(batch[i]!.key, batch[i]!)
      return
    }
    const values = tree.size === 0 ? batch : merged(tree.valuesArray(), batch)
    this.tree = bulkLoad(values.map(keyOf), values, nodeSize, compareKeys)
  }
}

const byKey = (a: Keyed, b: Keyed): number => compareKeys(a.key, b.key)

const keyOf = (v: Keyed): string => v.key

/** Two runs sorted by key, with no key in common, as one. */
const merged = <V extends Keyed>(a: ReadonlyArray<V>, b: ReadonlyArray<V>): V[] => {
  const n = a.length + b.length
  const out = new Array<V>(n)
  let i = 0
  let j = 0
  for (let k = 0; k < n; k++) out[k] = j >= b.length || (i < a.length && a[i]!.key < b[j]!.key) ? a[i++]! : b[j++]!
  return out
}

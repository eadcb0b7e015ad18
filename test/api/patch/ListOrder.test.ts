import { describe, expect, it } from "@effect/vitest"
import { sortedAsUpstream } from "../../../src/api/patch/ListOrder.js"

/** Upstream's comparator in a plain insertion sort: what Go's sort.SliceStable does for up to 20 items. */
const insertionSorted = (items: ReadonlyArray<string>, ranks: ReadonlyArray<number>): string[] => {
  const at = items.map((_, i) => i)
  const less = (a: number, b: number) => ranks[a]! < 0 || ranks[b]! < 0 || ranks[a]! < ranks[b]!
  for (let i = 1; i < at.length; i++) for (let j = i; j > 0 && less(at[j]!, at[j - 1]!); j--) [at[j], at[j - 1]] = [at[j - 1]!, at[j]!]
  return at.map((i) => items[i]!)
}

let seed = 42
const random = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff)

describe("sortedAsUpstream", () => {
  it("sorts items that are all in the order list stably by their rank", () => {
    expect(sortedAsUpstream(["c", "a", "b", "a2"], [2, 0, 1, 0])).toEqual(["a", "a2", "b", "c"])
    const n = 5000
    const items = Array.from({ length: n }, (_, i) => `i${i}`)
    const ranks = items.map(() => Math.floor(random() * 100))
    const expected = items.map((item, i) => ({ item, rank: ranks[i]!, i })).sort((a, b) => a.rank - b.rank || a.i - b.i).map((x) => x.item)
    expect(sortedAsUpstream(items, ranks)).toEqual(expected)
  })

  it("moves items absent from the order list as upstream's comparator does (up to 20: an insertion sort)", () => {
    // An absent item is "less" than any and any is "less" than it: each one inserted goes to the front.
    expect(sortedAsUpstream(["x", "y", "a", "b"], [-1, -1, 1, 0])).toEqual(["b", "a", "y", "x"])
    for (let k = 0; k < 2000; k++) {
      const n = 1 + Math.floor(random() * 20)
      const items = Array.from({ length: n }, (_, i) => `i${i}`)
      const ranks = items.map(() => (random() < 0.3 ? -1 : Math.floor(random() * 8)))
      expect(sortedAsUpstream(items, ranks)).toEqual(insertionSorted(items, ranks))
    }
  })

  it("keeps every item once with absent ones past 20 items (Go's block merges)", () => {
    const n = 1000
    const items = Array.from({ length: n }, (_, i) => `i${i}`)
    const ranks = items.map(() => (random() < 0.3 ? -1 : Math.floor(random() * 50)))
    const out = sortedAsUpstream(items, ranks)
    expect([...out].sort()).toEqual([...items].sort())
  })
})

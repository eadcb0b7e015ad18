/**
 * The key order with deferred inserts (SortedKeys.ts) reads as the plain B+ tree it replaces — every key put in as it
 * came — through creates, deletes and reads in any interleaving, with batches on both of its paths (one by one,
 * sorted and merged) and the store's pages over it.
 */
import { createRequire } from "node:module"
import { describe, expect, it } from "@effect/vitest"
import { ConfigMaps, Pods } from "../../src/api/Resources.js"
import { everything, objectKey, Store } from "../../simulator/apiserver/Store.js"
import { SortedKeys } from "../../simulator/apiserver/SortedKeys.js"

const BTree = createRequire(import.meta.url)("sorted-btree").default as new () => {
  set(k: string, v: { key: string }): boolean
  delete(k: string): boolean
  keysArray(): string[]
  valuesArray(): Array<{ key: string }>
  maxKey(): string | undefined
  forRange(low: string, high: string, includeHigh: boolean, onFound: (k: string, v: { key: string }) => { break?: true } | undefined): number | true
}

/** A small deterministic generator: the same cases on every run. */
const lcg = (seed: number) => () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)

/** What a read sees: keys, values (by identity), the largest key and a range walk from a key on. */
const readOf = (
  t: Pick<InstanceType<typeof BTree>, "keysArray" | "valuesArray" | "maxKey" | "forRange">,
  from: string
): { keys: string[]; values: Array<{ key: string }>; max: string | undefined; range: string[] } => {
  const range: string[] = []
  const max = t.maxKey()
  if (max !== undefined && max >= from) t.forRange(from, max, true, (k) => void range.push(k))
  return { keys: t.keysArray(), values: t.valuesArray(), max, range }
}

describe("SortedKeys", () => {
  it("reads as a B+ tree with every key put in at once, through random adds, deletes and reads", () => {
    for (let seed = 1; seed <= 12; seed++) {
      const random = lcg(seed)
      const sorted = new SortedKeys<{ key: string }>()
      const plain = new BTree()
      const present: string[] = []
      let next = 0
      for (let step = 0; step < 200; step++) {
        const r = random()
        if (r < 0.7) {
          // sometimes a burst, so that both the one-by-one and the sort-and-merge paths run on trees large and small
          const burst = random() < 0.1 ? 1 + Math.floor(random() * 300) : 1
          for (let b = 0; b < burst; b++) {
            const v = { key: `ns-${Math.floor(random() * 5)}/pod-${Math.floor(random() * 1e6)}-${next++}` }
            sorted.add(v)
            plain.set(v.key, v)
            present.push(v.key)
          }
        } else if (r < 0.85 && present.length > 0) {
          const [key] = present.splice(Math.floor(random() * present.length), 1)
          sorted.delete(key!)
          plain.delete(key!)
        } else {
          const from = `ns-${Math.floor(random() * 5)}/pod-${Math.floor(random() * 1e6)}`
          const got = readOf(sorted.ordered(), from)
          const want = readOf(plain, from)
          // joined: a mismatch still shows, and thousands of keys compare in microseconds
          expect(got.keys.join(" ")).toBe(want.keys.join(" "))
          expect(got.max).toBe(want.max)
          expect(got.range.join(" ")).toBe(want.range.join(" "))
          expect(got.values.every((v, i) => v === want.values[i])).toBe(true)
        }
      }
      expect(readOf(sorted.ordered(), "").keys.join(" ")).toBe([...present].sort().join(" "))
    }
  })

  it("a seeded table's pages are the keys in order, whatever order they were created in", () => {
    const store = new Store()
    const names: string[] = []
    for (let n = 0; n < 40; n++) for (let i = 0; i < 30; i++) names.push(`node-${n}-pod-${i}`)
    for (const name of names) store.putFresh(Pods, objectKey("default", name), { metadata: { name, namespace: "default" } }, 0)
    // a create after the first read goes in one by one; a delete takes a key out of a tree built in bulk
    const first = store.page({ resource: Pods, revision: store.revision, prefix: "", start: "", limit: 500, matches: everything, countRemaining: true })
    store.putFresh(Pods, objectKey("default", "a-first"), { metadata: { name: "a-first", namespace: "default" } }, 0)
    store.remove(Pods, objectKey("default", "node-0-pod-0"), 0)
    const all = store.page({ resource: Pods, revision: store.revision, prefix: "default/", start: "default/", limit: undefined, matches: (o) => o !== undefined, countRemaining: false })
    const expected = [...names.filter((n) => n !== "node-0-pod-0"), "a-first"].sort().map((n) => `default/${n}`)
    expect(first.items.map((o) => `default/${o.metadata.name}`)).toEqual([...names].sort().slice(0, 500).map((n) => `default/${n}`))
    expect(first.remaining).toBe(names.length - 500)
    expect(all.items.map((o) => `default/${o.metadata.name}`)).toEqual(expected)
    expect(store.count(Pods)).toBe(names.length)
  })

  it("a key and its object are found by key and by namespace and name alike, and gone alike", () => {
    const store = new Store()
    store.put(ConfigMaps, objectKey("a", "x"), { metadata: { name: "x", namespace: "a" } }, 0)
    // an object whose names do not make its key is filed under the key's
    store.put(ConfigMaps, objectKey("b", "y"), { metadata: { name: "other", namespace: "c" } }, 0)
    expect(store.get(ConfigMaps, "a/x")?.metadata.name).toBe("x")
    expect(store.lookup(ConfigMaps, "b", "y")?.obj.metadata.name).toBe("other")
    expect(store.get(ConfigMaps, "b/y")?.metadata.name).toBe("other")
    expect(store.count(ConfigMaps)).toBe(2)
    expect(store.remove(ConfigMaps, "b/y", 0)?.metadata.name).toBe("other")
    expect(store.get(ConfigMaps, "b/y")).toBeUndefined()
    expect(store.lookup(ConfigMaps, "b", "y")).toBeUndefined()
    expect(store.count(ConfigMaps)).toBe(1)
  })
})

/** The store's lookup by namespace and name agrees with its keys, through creates, updates and deletes. */
import { describe, expect, it } from "@effect/vitest"
import { ConfigMaps, Nodes } from "../../src/api/Resources.js"
import { everything, objectKey, Store, type Page } from "../../simulator/apiserver/Store.js"

const configMap = (namespace: string, name: string, v: string) => ({ metadata: { name, namespace }, data: { v } })

describe("Store.lookup", () => {
  it("finds what put stored under objectKey(namespace, name), current version and stored key", () => {
    const store = new Store()
    store.put(ConfigMaps, objectKey("a", "x"), configMap("a", "x", "1"), 0)
    store.put(ConfigMaps, objectKey("b", "x"), configMap("b", "x", "2"), 0)
    const updated = store.put(ConfigMaps, objectKey("a", "x"), configMap("a", "x", "3"), 0)
    store.put(Nodes, objectKey(undefined, "n1"), { metadata: { name: "n1" } }, 0)

    const a = store.lookup(ConfigMaps, "a", "x")
    expect(a?.key).toBe("a/x")
    expect(a?.obj).toBe(updated)
    expect(a?.obj.metadata.resourceVersion).toBe("3")
    expect(store.lookup(ConfigMaps, "b", "x")?.obj.data).toEqual({ v: "2" })
    expect(store.lookup(ConfigMaps, "c", "x")).toBeUndefined()
    expect(store.lookup(Nodes, undefined, "n1")?.key).toBe("n1")
    expect(store.lookup(Nodes, "", "n1")?.key).toBe("n1")
    expect(store.lookup(ConfigMaps, "a", "n1")).toBeUndefined()
  })

  it("forgets a deleted object, and finds it again once re-created", () => {
    const store = new Store()
    store.put(ConfigMaps, "a/x", configMap("a", "x", "1"), 0)
    store.remove(ConfigMaps, "a/x", 0)
    expect(store.lookup(ConfigMaps, "a", "x")).toBeUndefined()
    expect(store.get(ConfigMaps, "a/x")).toBeUndefined()
    store.put(ConfigMaps, "a/x", configMap("a", "x", "2"), 0)
    expect(store.lookup(ConfigMaps, "a", "x")?.obj.data).toEqual({ v: "2" })
  })
})

describe("Store.replace", () => {
  it("writes a looked-up entry like put: next revision, MODIFIED with the previous state, found again", () => {
    const store = new Store()
    const changes: Array<string> = []
    store.subscribe((c) => changes.push(`${c.type} ${c.key} ${c.object.metadata.resourceVersion} ${c.previous?.metadata.resourceVersion ?? "-"}`))
    store.put(ConfigMaps, "a/x", configMap("a", "x", "1"), 0)
    const entry = store.lookup(ConfigMaps, "a", "x")!
    const written = store.replace(ConfigMaps, entry, configMap("a", "x", "2"), 5)
    expect(written.metadata.resourceVersion).toBe("2")
    expect(store.get(ConfigMaps, "a/x")).toBe(written)
    expect(store.lookup(ConfigMaps, "a", "x")?.obj).toBe(written)
    expect(changes).toEqual(["ADDED a/x 1 -", "MODIFIED a/x 2 1"])
    expect([...store.changesAfter(ConfigMaps, 1)].map((c) => [c.revision, c.time])).toEqual([[2, 5]])
  })

  it("copies what it is given, unless it is fresh: then it stores that object, stamped in place", () => {
    const store = new Store()
    store.put(ConfigMaps, "a/x", configMap("a", "x", "1"), 0)
    const held = { metadata: { name: "x", namespace: "a", resourceVersion: "1" }, data: { v: "2" } }
    const copied = store.replace(ConfigMaps, store.lookup(ConfigMaps, "a", "x")!, held, 0)
    expect(copied).not.toBe(held)
    expect(copied.metadata).not.toBe(held.metadata)
    expect(held.metadata.resourceVersion).toBe("1")
    expect(copied.metadata.resourceVersion).toBe("2")

    const fresh = { metadata: { name: "x", namespace: "a", resourceVersion: "2" }, data: { v: "3" } }
    const stored = store.replace(ConfigMaps, store.lookup(ConfigMaps, "a", "x")!, fresh, 0, true)
    expect(stored).toBe(fresh)
    expect(fresh.metadata.resourceVersion).toBe("3")
    expect(store.get(ConfigMaps, "a/x")).toBe(fresh)
  })

  it("refuses an entry deleted since it was looked up (it would bring the object back)", () => {
    const store = new Store()
    store.put(ConfigMaps, "a/x", configMap("a", "x", "1"), 0)
    const entry = store.lookup(ConfigMaps, "a", "x")!
    store.remove(ConfigMaps, "a/x", 0)
    expect(() => store.replace(ConfigMaps, entry, configMap("a", "x", "2"), 0)).toThrow("store: write through a deleted entry a/x")
    expect(store.get(ConfigMaps, "a/x")).toBeUndefined()
  })
})

describe("Store.putFresh", () => {
  it("keeps the object it was given, stamped with the next revision, and records it like put", () => {
    const store = new Store()
    store.put(ConfigMaps, "a/x", configMap("a", "x", "1"), 0)
    const fresh = configMap("a", "y", "2")
    const stored = store.putFresh(ConfigMaps, "a/y", fresh, 3)
    expect(stored).toBe(fresh)
    expect(stored.metadata).toEqual({ name: "y", namespace: "a", resourceVersion: "2" })
    expect(store.lookup(ConfigMaps, "a", "y")?.obj).toBe(fresh)
    expect([...store.changesAfter(ConfigMaps, 1)].map((c) => [c.type, c.key, c.object === fresh])).toEqual([["ADDED", "a/y", true]])
  })
})

describe("Store.page", () => {
  const all = () => true
  const values = (page: { items: ReadonlyArray<{ metadata: { name?: string }; data?: unknown }> }) =>
    page.items.map((o) => `${o.metadata.name}=${(o.data as { v: string }).v}`)

  it("reads a namespace at an older revision in key order: changed keys in their old state, later ones left out, deleted ones back", () => {
    const store = new Store()
    store.put(ConfigMaps, "a/x1", configMap("a", "x1", "1"), 0)
    store.put(ConfigMaps, "a/x2", configMap("a", "x2", "1"), 0)
    store.put(ConfigMaps, "a/x3", configMap("a", "x3", "1"), 0)
    store.put(ConfigMaps, "b/y1", configMap("b", "y1", "1"), 0)
    const revision = store.revision
    store.remove(ConfigMaps, "a/x3", 0) // the namespace's last key: after every key stored now
    store.put(ConfigMaps, "a/x0", configMap("a", "x0", "1"), 0)
    store.put(ConfigMaps, "a/x2", configMap("a", "x2", "2"), 0)

    const first = store.page({ resource: ConfigMaps, revision, prefix: "a/", start: "a/", limit: 2, matches: all, countRemaining: true })
    expect(values(first)).toEqual(["x1=1", "x2=1"])
    expect(first.lastKey).toBe("a/x2")
    expect(first.remaining).toBe(1)
    const second = store.page({ resource: ConfigMaps, revision, prefix: "a/", start: "a/x2\u0000", limit: 2, matches: all, countRemaining: true })
    expect(values(second)).toEqual(["x3=1"])
    expect(second.lastKey).toBeUndefined()
    expect(second.remaining).toBe(0)
  })

  it("pages every namespace now, counting what is left once and taking it from the first page on the next", () => {
    const store = new Store()
    for (const [ns, name] of [["a", "x1"], ["a", "x2"], ["b", "y1"], ["b", "y2"], ["c", "z1"]] as const) store.put(ConfigMaps, objectKey(ns, name), configMap(ns, name, "1"), 0)
    const page = (start: string) => store.page({ resource: ConfigMaps, revision: store.revision, prefix: "", start, limit: 2, matches: all, countRemaining: true })
    const first = page("")
    expect([values(first), first.lastKey, first.remaining]).toEqual([["x1=1", "x2=1"], "a/x2", 3])
    const second = page("a/x2\u0000")
    expect([values(second), second.lastKey, second.remaining]).toEqual([["y1=1", "y2=1"], "b/y2", 1])
    const third = page("b/y2\u0000")
    expect([values(third), third.lastKey, third.remaining]).toEqual([["z1=1"], undefined, 0])
    // one namespace's first page counts that namespace's keys only
    const namespaced = store.page({ resource: ConfigMaps, revision: store.revision, prefix: "a/", start: "a/", limit: 1, matches: all, countRemaining: true })
    expect([values(namespaced), namespaced.lastKey, namespaced.remaining]).toEqual([["x1=1"], "a/x1", 1])
    const last = store.page({ resource: ConfigMaps, revision: store.revision, prefix: "c/", start: "c/", limit: 1, matches: all, countRemaining: true })
    expect([values(last), last.lastKey, last.remaining]).toEqual([["z1=1"], undefined, 0])
    // a filtered list does not count: one more matching key is enough to say there are more
    const filtered = store.page({ resource: ConfigMaps, revision: store.revision, prefix: "", start: "", limit: 1, matches: (o) => o.metadata.name !== "x1", countRemaining: false })
    expect([values(filtered), filtered.lastKey, filtered.remaining]).toEqual([["x2=1"], "a/x2", 1])
  })

  it("without a selector, slices the table's key order: the same pages as a walk, through writes between pages", () => {
    // namespaces whose names share a start ("a", "a-b", "ab"): a prefix's keys end where the next namespace's begin
    const namespaces = ["a", "a-b", "ab", "b", "c"]
    let seed = 7
    const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32
    // the same writes into two stores: one read with `everything`, the other walked (their page counts stay apart)
    const store = new Store()
    const walked = new Store()
    const write = () => {
      const ns = namespaces[Math.floor(random() * namespaces.length)]!
      const name = `o${Math.floor(random() * 40)}`
      const removed = random() < 0.2
      for (const s of [store, walked])
        if (removed) s.remove(ConfigMaps, objectKey(ns, name), 0)
        else s.put(ConfigMaps, objectKey(ns, name), configMap(ns, name, String(s.revision)), 0)
    }
    for (let i = 0; i < 150; i++) write()
    const shape = (page: Page) => [values(page), page.lastKey, page.remaining]
    let pages = 0
    for (const prefix of ["", "a/", "a-b/", "ab/", "c/", "d/"])
      for (const limit of [1, 7, undefined])
        for (const countRemaining of [true, false]) {
          // one list, paged at its first revision, with a write or none between pages
          const revision = store.revision
          let start = prefix
          for (;;) {
            const request = { resource: ConfigMaps, revision, prefix, start, limit, countRemaining }
            const sliced = store.page({ ...request, matches: everything })
            expect(shape(sliced)).toEqual(shape(walked.page({ ...request, matches: all })))
            pages++
            if (sliced.lastKey === undefined) break
            start = sliced.lastKey + "\u0000"
            if (random() < 0.3) write()
          }
        }
    expect(pages).toBeGreaterThan(100)
  })
})

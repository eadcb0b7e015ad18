/** The store's lookup by namespace and name agrees with its keys, through creates, updates and deletes. */
import { describe, expect, it } from "@effect/vitest"
import { ConfigMaps, Nodes } from "../../src/api/Resources.js"
import { objectKey, Store } from "../../simulator/apiserver/Store.js"

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

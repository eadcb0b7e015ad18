/** The load action's reflector store: keys and resourceVersions, the list replacing what was held. */
import { describe, expect, it } from "@effect/vitest"
import { makeVersionStore } from "../../src/informer/VersionStore.js"
import { obj } from "./scripted.js"

describe("VersionStore", () => {
  it("holds the resourceVersion of every object the watch added or updated, and forgets deleted ones", () => {
    const store = makeVersionStore()
    store.add(obj("a", "1", "ns1"), 0)
    store.add({ metadata: { name: "node-1", resourceVersion: "2" } }, 0)
    store.update(obj("a", "3", "ns1"), 0)
    expect(store.versionOf("ns1/a")).toBe("3")
    expect(store.versionOf("node-1")).toBe("2")
    store.delete(obj("a", "4", "ns1"), 0)
    expect(store.versionOf("ns1/a")).toBeUndefined()
    expect(store.size()).toBe(1)
  })

  it("a relist replaces what it held: objects the list no longer has are gone", () => {
    const store = makeVersionStore()
    store.add(obj("a", "1"), 0)
    store.add(obj("b", "2"), 0)
    store.replace([obj("b", "5"), obj("c", "6")], "6", 0)
    expect(store.size()).toBe(2)
    expect([store.versionOf("default/a"), store.versionOf("default/b"), store.versionOf("default/c")]).toEqual([undefined, "5", "6"])
  })

  it("a relist updated in place: versions changed, duplicates counted once, an unlisted object gone even beside a duplicate", () => {
    const store = makeVersionStore()
    store.replace([obj("a", "1"), obj("b", "2"), obj("c", "3")], "3", 0)
    store.replace([obj("a", "1"), obj("b", "7"), obj("c", "3")], "7", 0)
    expect([store.size(), store.versionOf("default/a"), store.versionOf("default/b"), store.versionOf("default/c")]).toEqual([3, "1", "7", "3"])
    // as many items as held, but one listed twice: `c` was not listed
    store.replace([obj("a", "1"), obj("b", "8"), obj("b", "9")], "9", 0)
    expect([store.size(), store.versionOf("default/b"), store.versionOf("default/c")]).toEqual([2, "9", undefined])
    // an object the watch added after the last relist, then a relist without it
    store.add(obj("d", "10"), 0)
    store.replace([obj("a", "1"), obj("b", "9")], "10", 0)
    expect([store.size(), store.versionOf("default/d")]).toEqual([2, undefined])
    store.replace([], "11", 0)
    expect(store.size()).toBe(0)
  })
})


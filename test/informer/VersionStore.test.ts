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
})

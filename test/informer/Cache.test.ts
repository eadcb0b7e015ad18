/** The informer's cache: namespace/name keys, what each write was, and a relist as `DeltaFIFO.Replace` gives it. */
import { describe, expect, it } from "@effect/vitest"
import { Cache, type Delta, objectKey } from "../../src/informer/Cache.js"
import { obj } from "./scripted.js"

const summary = (deltas: ReadonlyArray<Delta>) =>
  deltas.map((d) => (d.type === "Updated" ? `Updated ${objectKey(d.object)} ${d.old.metadata.resourceVersion}→${d.object.metadata.resourceVersion}` : `${d.type} ${objectKey(d.object)}@${d.object.metadata.resourceVersion}`))

describe("Cache", () => {
  it("keys namespace/name, or the name alone for cluster-scoped objects", () => {
    expect(objectKey(obj("a", "1", "ns1"))).toBe("ns1/a")
    expect(objectKey({ metadata: { name: "node-1" } })).toBe("node-1")
    const cache = new Cache()
    cache.upsert(obj("a", "1", "ns1"))
    cache.upsert(obj("a", "2", "ns2"))
    cache.upsert({ metadata: { name: "node-1", resourceVersion: "3" } })
    expect(cache.size).toBe(3)
    expect(cache.get("ns2", "a")?.metadata.resourceVersion).toBe("2")
    expect(cache.getByKey("node-1")?.metadata.resourceVersion).toBe("3")
    expect([...cache.listKeys()].sort()).toEqual(["node-1", "ns1/a", "ns2/a"])
  })

  it("an upsert of a held object is an update (whatever the event said); deleting an unknown object is nothing", () => {
    const cache = new Cache()
    expect(summary([cache.upsert(obj("a", "1"))])).toEqual(["Added default/a@1"])
    expect(summary([cache.upsert(obj("a", "2"))])).toEqual(["Updated default/a 1→2"])
    expect(cache.delete(obj("zzz", "3"))).toBeUndefined()
    expect(summary([cache.delete(obj("a", "4"))!])).toEqual(["Deleted default/a@4"])
    expect(cache.size).toBe(0)
  })

  it("replace: a relist of the objects held is silent; one that swaps an object for another still deletes the first", () => {
    const cache = new Cache()
    const held = [obj("a", "1"), obj("b", "2"), obj("c", "3")]
    cache.replace(held)
    expect(cache.replace(held)).toEqual([])
    expect(summary(cache.replace([obj("a", "1"), obj("b", "2")]))).toEqual(["Deleted default/c@3"])
    expect(summary(cache.replace([obj("a", "1"), obj("d", "4")]))).toEqual(["Added default/d@4", "Deleted default/b@2"])
    expect(cache.listKeys().slice().sort()).toEqual(["default/a", "default/d"])
    expect(cache.size).toBe(2)
  })

  it("replace: listed objects in list order (unchanged ones silent), then deletes carrying the last state held", () => {
    const cache = new Cache()
    expect(summary(cache.replace([obj("a", "1"), obj("b", "2"), obj("c", "3")]))).toEqual(["Added default/a@1", "Added default/b@2", "Added default/c@3"])
    expect(summary(cache.replace([obj("c", "3"), obj("a", "6"), obj("d", "7")]))).toEqual([
      "Updated default/a 1→6",
      "Added default/d@7",
      "Deleted default/b@2"
    ])
    expect(cache.list().map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort()).toEqual(["a@6", "c@3", "d@7"])
    // deletes in the order the objects first came in
    expect(summary(cache.replace([]))).toEqual(["Deleted default/a@6", "Deleted default/c@3", "Deleted default/d@7"])
  })
})

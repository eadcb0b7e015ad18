/** The object-copy helpers of src/api/Object.ts: the same objects a spread would make. */
import { describe, expect, it } from "@effect/vitest"
import { extendable, shallowCopy } from "../../src/api/Object.js"

describe("shallowCopy", () => {
  it("copies own keys in order and shares their values", () => {
    const spec = { containers: [{ name: "c" }] }
    const obj = { metadata: { name: "a" }, spec }
    const copy = shallowCopy(obj)
    expect(copy).not.toBe(obj)
    expect(Object.keys(copy)).toEqual(["metadata", "spec"])
    expect(copy.spec).toBe(spec)
  })

  it("keeps an own __proto__ key (as JSON makes it) a data key, not the prototype", () => {
    const parsed = JSON.parse('{"a": 1, "__proto__": {"polluted": true}}') as Record<string, unknown>
    const copy = shallowCopy(parsed)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.keys(copy)).toEqual(["a", "__proto__"])
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined()
  })
})

describe("extendable", () => {
  it("spread first, it leaves the copy as a plain spread makes it", () => {
    const meta = { name: "a", uid: "u" }
    const copy = { ...extendable, ...meta, resourceVersion: "2" }
    expect(Object.keys(copy)).toEqual(["name", "uid", "resourceVersion"])
    expect(copy).toEqual({ ...meta, resourceVersion: "2" })
    expect(Object.isFrozen(copy)).toBe(false)
  })
})

import { describe, expect, it } from "@effect/vitest"
import { sameObject } from "../../src/api/SameObject.js"

describe("sameObject", () => {
  it("is structural equality of JSON values", () => {
    expect(sameObject({ a: 1, b: [1, { c: "x" }] }, { b: [1, { c: "x" }], a: 1 })).toBe(true)
    expect(sameObject({ a: 1 }, { a: 1, b: 2 })).toBe(false)
    expect(sameObject({ a: 1, b: 2 }, { a: 1 })).toBe(false)
    expect(sameObject([1, 2], [2, 1])).toBe(false)
    expect(sameObject([1], { 0: 1 })).toBe(false)
    expect(sameObject(null, {})).toBe(false)
    expect(sameObject("1", 1)).toBe(false)
  })

  it("treats an undefined field as absent, as JSON does", () => {
    expect(sameObject({ a: 1, b: undefined }, { a: 1 })).toBe(true)
    expect(sameObject({ a: undefined }, { b: undefined })).toBe(true)
  })
})

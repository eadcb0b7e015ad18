import { describe, expect, it } from "@effect/vitest"
import { InternTable } from "../../../src/api/internal/InternTable.js"

describe("InternTable", () => {
  it("gives back the first value seen under a key", () => {
    const table = new InternTable<object>(10)
    const first = { v: 1 }
    expect(table.intern("k", first)).toBe(first)
    expect(table.intern("k", { v: 1 })).toBe(first)
    expect(table.intern("other", { v: 2 })).toEqual({ v: 2 })
  })

  it("starts over past its capacity: a stream that never repeats keeps at most `capacity` values", () => {
    const table = new InternTable<object>(2)
    const a = { v: "a" }
    table.intern("a", a)
    table.intern("b", { v: "b" })
    table.intern("c", { v: "c" }) // the table was full: it starts over with c
    const again = { v: "a" }
    expect(table.intern("a", again)).toBe(again)
  })
})

import { describe, expect, it } from "@effect/vitest"
import { InternTable } from "../../../src/api/internal/InternTable.js"

const sameV = (a: { v: number }, b: { v: number }) => a.v === b.v

describe("InternTable", () => {
  it("gives back the value last seen under a key when it is equal", () => {
    const table = new InternTable<{ v: number }>(10, sameV)
    const first = { v: 1 }
    expect(table.intern("k", first)).toBe(first)
    expect(table.intern("k", { v: 1 })).toBe(first)
  })

  it("a different value under the same key takes its place", () => {
    const table = new InternTable<{ v: number }>(10, sameV)
    table.intern("k", { v: 1 })
    const second = { v: 2 }
    expect(table.intern("k", second)).toBe(second)
    expect(table.intern("k", { v: 2 })).toBe(second)
  })

  it("starts over past its capacity: a stream that never repeats keeps at most `capacity` values", () => {
    const table = new InternTable<{ v: number }>(2, sameV)
    table.intern("a", { v: 1 })
    table.intern("b", { v: 2 })
    table.intern("c", { v: 3 }) // the table was full: it starts over with c
    const again = { v: 1 }
    expect(table.intern("a", again)).toBe(again)
  })
})

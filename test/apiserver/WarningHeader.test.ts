import { describe, expect, it } from "@effect/vitest"
import { warningHeaders } from "../../simulator/apiserver/http/WarningHeader.js"

const utf8 = (latin1: string) => Buffer.from(latin1, "latin1").toString("utf8")

describe("warningHeaders", () => {
  it("writes UTF-8 bytes as a Latin-1 string node:http accepts", () => {
    const [header] = warningHeaders(['unknown field "spec.名前"'])
    expect(/^[\t\x20-\x7e\x80-\xff]*$/.test(header!)).toBe(true)
    expect(utf8(header!)).toBe('299 - "unknown field \\"spec.名前\\""')
  })

  it("drops text that is not valid UTF-8 and duplicates", () => {
    expect(warningHeaders(["a", "\ud800x", "a", ""]).map(utf8)).toEqual(['299 - "a"'])
  })

  it("past 4096 runes in all, cuts every text to 256 runes", () => {
    const long = (c: string) => c.repeat(1000)
    expect(warningHeaders(["a".repeat(300), "b"]).map((h) => h.length)).toEqual([308, 9])
    const cut = warningHeaders([long("a"), long("b"), long("c"), long("d"), long("e")])
    expect(cut.map((h) => h.length)).toEqual([264, 264, 264, 264, 264])
  })
})

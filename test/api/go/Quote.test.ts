/** Go's `strconv.Quote` and `time.quote` (src/api/go/Quote.ts); expected texts are Go 1.19's outputs. */
import { describe, expect, it } from "@effect/vitest"
import { goQuote, goTimeQuote } from "../../../src/api/go/Quote.js"

describe("goQuote (strconv.Quote)", () => {
  // [input, Go's strconv.Quote(input)] — the right-hand sides are written as raw text to read like Go's output.
  const table: ReadonlyArray<readonly [string, string]> = [
    ["", String.raw`""`],
    ["abc xyz", String.raw`"abc xyz"`],
    ['a"b\\c', String.raw`"a\"b\\c"`],
    ["'`", String.raw`"'` + "`" + String.raw`"`],
    ["\x00\x01\x1b\x1f", String.raw`"\x00\x01\x1b\x1f"`],
    ["\x07\b\f\n\r\t\v", String.raw`"\a\b\f\n\r\t\v"`],
    ["\x7f", String.raw`"\x7f"`],
    ["\u0080\u0085\u009f", String.raw`"\u0080\u0085\u009f"`], // C1 controls
    ["\u00a0", String.raw`"\u00a0"`], // no-break space: Zs, not printable
    ["\u00ad", String.raw`"\u00ad"`], // soft hyphen: Cf
    ["\u200b\u2028\u2029\u3000\ufeff", String.raw`"\u200b\u2028\u2029\u3000\ufeff"`],
    ["\ue000", String.raw`"\ue000"`], // private use
    ["\u0378", String.raw`"\u0378"`], // unassigned
    ["\u{e0001}\u{f0000}\u{10ffff}", String.raw`"\U000e0001\U000f0000\U0010ffff"`],
    ["é ñ ß 名前 Ω", '"é ñ ß 名前 Ω"'],
    ["e\u0301", '"e\u0301"'], // a combining mark is printable
    ["😀 \u{1d11e}", '"😀 \u{1d11e}"'],
    ["\ufffd", '"\ufffd"'],
    ["a\ud800b\udc00", '"a\ufffdb\ufffd"'], // lone surrogates: U+FFFD, as Go's JSON decoding holds them
    ["\ud83d\ude00", '"😀"'] // a surrogate pair is one rune
  ]
  it.each(table.map(([input, expected]) => ({ input, expected })))("quotes to $expected", ({ input, expected }) => {
    expect(goQuote(input)).toBe(expected)
  })
})

describe("goTimeQuote (time.quote)", () => {
  it("keeps printable ASCII, backslashes quote and backslash, writes other runes as UTF-8 bytes", () => {
    expect(goTimeQuote('1h"\\')).toBe(String.raw`"1h\"\\"`)
    expect(goTimeQuote("1\u00b5s\n")).toBe(String.raw`"1\xc2\xb5s\x0a"`)
    expect(goTimeQuote("\t\x7f")).toBe(String.raw`"\x09` + "\x7f" + '"')
    expect(goTimeQuote("\ud800")).toBe(String.raw`"\xef\xbf\xbd"`)
  })
})

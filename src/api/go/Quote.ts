/**
 * Go's two quoting functions the messages clustersim copies print with:
 *
 * - `goQuote` is `strconv.Quote` (and `%q`), Go 1.19 as kube 1.26 is built with: `"` and `\` backslashed,
 *   printable runes (`strconv.IsPrint`: letters, marks, numbers, punctuation, symbols, ASCII space) as they
 *   are, `\a \b \f \n \r \t \v` by name, other runes below U+0020 and U+007F as `\xHH` (Go 1.19 moved U+007F
 *   from `\u007f`, golang/go#52062), the rest as `\uHHHH` or `\UHHHHHHHH` — so U+00A0 prints `\u00a0`.
 * - `goTimeQuote` is the `time` package's own `quote` (time/format.go), which `time.ParseDuration` and
 *   `time.Parse` errors use: printable ASCII as it is, every other rune as its UTF-8 bytes `\xHH`.
 *
 * Two departures, both from JavaScript strings being UTF-16 text rather than Go's bytes:
 * - A lone surrogate counts as U+FFFD, which `strconv.Quote` prints as it is. That is what Go holds for the
 *   same input: `encoding/json` (and sigs.k8s.io/yaml, through it) decodes a lone `\ud800` escape or an
 *   invalid UTF-8 byte to U+FFFD, and Node's UTF-8 decoding of a body or an argument does the same. Go's
 *   `\xHH` for a byte that is not UTF-8 never arises, as no clustersim string holds such a byte.
 * - Printable is decided by the Unicode tables of the running Node, newer than Go 1.19's Unicode 13.0: a
 *   rune assigned since (e.g. U+1FAE0, Unicode 14) prints as it is where Go would print `\U0001fae0`.
 */

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u
const named: Readonly<Record<number, string>> = { 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v" }
const hex = (n: number, width: number): string => n.toString(16).padStart(width, "0")
const isSurrogate = (r: number): boolean => r >= 0xd800 && r <= 0xdfff

/** Text `strconv.Quote` leaves as it is: printable ASCII but `"` and `\`. */
const plainAscii = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/

/**
 * Go's `strconv.Quote` (strconv/quote.go appendQuotedWith, appendEscapedRune). Names in hot error messages (a
 * 404 GET) are plain ASCII: one regular-expression test and a concatenation, not a loop over the runes.
 */
export const goQuote = (s: string): string => {
  if (plainAscii.test(s)) return `"${s}"`
  let out = '"'
  for (const ch of s) {
    const r = ch.codePointAt(0)!
    if (ch === '"' || ch === "\\") out += `\\${ch}`
    else if (r >= 0x20 && r < 0x7f) out += ch
    else if (isSurrogate(r)) out += "\ufffd"
    else if (printable.test(ch)) out += ch
    else if (named[r] !== undefined) out += named[r]
    else if (r < 0x20 || r === 0x7f) out += `\\x${hex(r, 2)}`
    else if (r < 0x10000) out += `\\u${hex(r, 4)}`
    else out += `\\U${hex(r, 8)}`
  }
  return out + '"'
}

/** Go's `time.quote` (time/format.go): printable ASCII as is, `"` and `\` backslashed, other runes as UTF-8 `\xHH`. */
export const goTimeQuote = (s: string): string => {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0)!
    if (c >= 0x80 || c < 0x20) {
      for (const b of Buffer.from(ch, "utf8")) out += `\\x${hex(b, 2)}`
    } else {
      if (ch === '"' || ch === "\\") out += "\\"
      out += ch
    }
  }
  return out + '"'
}

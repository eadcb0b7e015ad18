/**
 * `Warning` response headers as kube-apiserver writes them (`apimachinery/pkg/util/net.NewWarningHeader`
 * and the warning recorder of `apiserver/pkg/endpoints/filters/warning.go`, reference §5.1):
 * `299 - "<text>"` with the text quoted by Go's `strconv.Quote`, identical texts once, and — past 4096
 * runes in all — every text cut to 256 runes. The bytes on the wire are UTF-8, as Go sends them.
 */

const truncateAtTotalRunes = 4096
const truncateItemRunes = 256

const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u
const named: Readonly<Record<number, string>> = { 7: "\\a", 8: "\\b", 12: "\\f", 10: "\\n", 13: "\\r", 9: "\\t", 11: "\\v" }

/** Go's `strconv.Quote`: printable Unicode as is, other runes as `\a`…`\v`, `\xHH`, `\uHHHH` or `\UHHHHHHHH`. */
export const goQuote = (text: string): string => {
  let out = '"'
  for (const ch of text) {
    const r = ch.codePointAt(0)!
    if (ch === '"' || ch === "\\") out += `\\${ch}`
    else if (r >= 0x20 && r < 0x7f) out += ch
    else if (named[r] !== undefined) out += named[r]
    else if (r < 0x20 || r === 0x7f) out += `\\x${r.toString(16).padStart(2, "0")}`
    else if (printable.test(ch)) out += ch
    else if (r < 0x10000) out += `\\u${r.toString(16).padStart(4, "0")}`
    else out += `\\U${r.toString(16).padStart(8, "0")}`
  }
  return out + '"'
}

/** A lone surrogate has no UTF-8 form: `NewWarningHeader` refuses text that is not valid UTF-8. */
const isValidUtf8 = (text: string): boolean => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text)

const runes = (text: string): string[] => Array.from(text)

/**
 * The header values for a response's warnings, ready for `node:http`: each value's UTF-8 bytes as a
 * Latin-1 string (node:http refuses characters above U+00FF but writes Latin-1 strings byte for byte).
 */
export const warningHeaders = (texts: ReadonlyArray<string>): string[] => {
  const unique = [...new Set(texts)].filter((t) => t.length > 0 && isValidUtf8(t))
  const total = unique.reduce((n, t) => n + runes(t).length, 0)
  const cut = total > truncateAtTotalRunes ? (t: string) => runes(t).slice(0, truncateItemRunes).join("") : (t: string) => t
  return unique.map((t) => Buffer.from(`299 - ${goQuote(cut(t))}`, "utf8").toString("latin1"))
}

/**
 * `Warning` response headers as kube-apiserver writes them (`apimachinery/pkg/util/net.NewWarningHeader`
 * and the warning recorder of `apiserver/pkg/endpoints/filters/warning.go`):
 * `299 - "<text>"` with the text quoted by Go's `strconv.Quote`, identical texts once, and — past 4096
 * runes in all — every text cut to 256 runes. The bytes on the wire are UTF-8, as Go sends them.
 */
import { goQuote } from "../../../src/api/go/Quote.js"

const truncateAtTotalRunes = 4096
const truncateItemRunes = 256

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

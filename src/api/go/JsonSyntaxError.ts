/**
 * Go's `encoding/json` syntax errors (encoding/json/scanner.go) for text `JSON.parse` refused: what a Go server
 * answers about a malformed body, where V8's own wording (`Unexpected token …`, `… in JSON at position 7`) would
 * leak an implementation. A mapping of V8's messages, each naming the scanner state Go's message names, not a
 * second JSON parser: V8 and Go's scanner both stop at the first byte that cannot continue a JSON text.
 */
import { goQuote } from "./Quote.js"

/** Go's `quoteChar`: the offending byte quoted with single quotes (for a non-ASCII character, its first UTF-8 byte). */
const quoteChar = (ch: string): string => {
  if (ch === "'") return "'\\''"
  if (ch === '"') return `'"'`
  const firstByte = Buffer.from(ch, "utf8")[0] ?? 0
  return `'${goQuote(String.fromCharCode(firstByte)).slice(1, -1)}'`
}

/** V8's message (Node 20) → the scanner context Go's `invalid character … <context>` names. */
const contexts: ReadonlyArray<readonly [RegExp, string]> = [
  [/^Expected property name or '}'/, "looking for beginning of object key string"],
  [/^Expected ':' after property name/, "after object key"],
  [/^Expected ',' or '}' after property value/, "after object key:value pair"],
  [/^Expected ',' or ']' after array element/, "after array element"],
  [/^Unexpected non-whitespace character after JSON/, "after top-level value"],
  [/^Bad control character in string literal/, "in string literal"],
  [/^Bad Unicode escape/, "in \\u hexadecimal character escape"],
  [/^Bad escaped character/, "in string escape code"],
  [/^No number after minus sign/, "in numeric literal"],
  [/^Unterminated fractional number/, "after decimal point in numeric literal"],
  [/^Exponent part is missing a number/, "in exponent of numeric literal"]
]

/** The `encoding/json` error Go reports for `text`, given the error `JSON.parse(text)` threw. */
export const goJsonSyntaxError = (text: string, error: unknown): string => {
  const message = error instanceof Error ? error.message : String(error)
  const end = "unexpected end of JSON input"
  if (text.trim() === "" || message.startsWith("Unexpected end of JSON input") || message.startsWith("Unterminated string")) return end
  const at = /at position (\d+)/.exec(message)
  if (at !== null) {
    const position = Number(at[1])
    if (position >= text.length) return end
    const ch = String.fromCodePoint(text.codePointAt(position)!)
    const context = contexts.find(([pattern]) => pattern.test(message))?.[1] ?? "looking for beginning of value"
    return `invalid character ${quoteChar(ch)} ${context}`
  }
  // `Unexpected token 'x', "…" is not valid JSON`: V8 names no position; the character is where a value was to begin.
  const token = /^Unexpected token '(.+?)', /su.exec(message)
  const ch = token?.[1] ?? text.trimStart()[0] ?? ""
  return `invalid character ${quoteChar(ch)} looking for beginning of value`
}

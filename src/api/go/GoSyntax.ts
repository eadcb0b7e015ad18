/**
 * Go's `%#v` of the typed values a 422's `Invalid value:` prints when they are neither simple nor a `Stringer`
 * (apimachinery `field.Error.ErrorBody` falls back to `%#v`): `map[string]string{"a":"b", "c":"d"}` (keys in
 * byte order, as `fmt` sorts them), `[]string{"x"}`, and a nil map or slice as `map[string]string(nil)`.
 */
import { goQuote } from "./Quote.js"

const byteOrder = (a: string, b: string): number => Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"))

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v)

/** `%#v` of a `map[string]string`; absent (or not a map) is the nil map. */
export const goSyntaxStringMap = (v: unknown): string => {
  if (!isRecord(v)) return "map[string]string(nil)"
  const entries = Object.keys(v)
    .sort(byteOrder)
    .map((k) => `${goQuote(k)}:${goQuote(typeof v[k] === "string" ? v[k] : "")}`)
  return `map[string]string{${entries.join(", ")}}`
}

/** `%#v` of a `[]string`; absent (or not a list) is the nil slice. */
export const goSyntaxStrings = (v: unknown): string =>
  Array.isArray(v) ? `[]string{${v.map((s) => goQuote(typeof s === "string" ? s : "")).join(", ")}}` : "[]string(nil)"

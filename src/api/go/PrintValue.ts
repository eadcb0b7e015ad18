/**
 * Go's `%v` of a decoded JSON value (`map[string]interface{}` and friends), as upstream error texts print
 * patches and list elements: `map[image:x name:c]` (keys sorted), `[a b]`, strings bare, `<nil>`.
 * Numbers print in their shortest form, as Go's `%v` of an int64 or float64 does in the ranges bodies use.
 */
export const goPrintValue = (v: unknown): string => {
  if (v === null || v === undefined) return "<nil>"
  if (Array.isArray(v)) return `[${v.map(goPrintValue).join(" ")}]`
  if (typeof v === "object") {
    const record = v as Record<string, unknown>
    return `map[${Object.keys(record)
      .sort()
      .map((k) => `${k}:${goPrintValue(record[k])}`)
      .join(" ")}]`
  }
  return String(v)
}

/** Go's `reflect.TypeOf(v)` name for a decoded JSON value, as `ErrBadArgType` prints it (`%!s(<nil>)` for null). */
export const goJsonTypeName = (v: unknown): string => {
  if (v === null || v === undefined) return "%!s(<nil>)"
  if (Array.isArray(v)) return "[]interface {}"
  if (typeof v === "object") return "map[string]interface {}"
  if (typeof v === "number") return Number.isInteger(v) ? "int64" : "float64"
  return typeof v === "boolean" ? "bool" : "string"
}

/**
 * `JSON.stringify(value).length` without building the string: the service-time model sizes every GET answer and
 * write body by it (`ServiceTime.approximateBytes`), and at 100 GETs a second the strings built only to be measured
 * were a quarter of a capacity run's steady-state CPU, and more again in garbage collection (docs/benchmarks.md
 * "With clients"). Exact for JSON-shaped values; anything with a `toJSON` is measured by stringifying it.
 */

/** Characters `JSON.stringify` escapes: quote, backslash, controls, and surrogates (a lone one becomes `\uXXXX`). */
const escaped = /["\\\u0000-\u001f\ud800-\udfff]/

/** `JSON.stringify(value).length`; 0 where `JSON.stringify` gives undefined (undefined, functions, symbols). */
export const jsonLength = (value: unknown): number => {
  switch (typeof value) {
    case "string":
      return escaped.test(value) ? JSON.stringify(value).length : value.length + 2
    case "number":
      return Number.isFinite(value) ? String(value).length : 4
    case "boolean":
      return value ? 4 : 5
    case "object":
      if (value === null) return 4
      if (typeof (value as { toJSON?: unknown }).toJSON === "function") return JSON.stringify(value)?.length ?? 0
      if (Array.isArray(value)) {
        let length = 2 + Math.max(0, value.length - 1)
        for (const item of value) length += jsonLength(item) || 4 // what is left out of an object is `null` in an array
        return length
      }
      {
        let length = 2
        let members = 0
        const record = value as Record<string, unknown>
        for (const key of Object.keys(record)) {
          const member = jsonLength(record[key])
          if (member === 0) continue // undefined, a function or a symbol: the key is left out
          length += jsonLength(key) + 1 + member
          members++
        }
        return members > 0 ? length + members - 1 : length
      }
    default:
      return 0
  }
}

const storedLengths = new WeakMap<object, number>()

/**
 * `jsonLength` of an object the server hands out as it stores it — a GET answer is one object per stored version
 * (`TypeMeta.typedStored`), never changed (a write stores a new one) — measured once per version: GETs of random
 * pods ask for the same versions again and again, and measuring a pod with its managedFields is ~25–45 µs.
 */
export const storedJsonLength = (obj: object): number => {
  let length = storedLengths.get(obj)
  if (length === undefined) storedLengths.set(obj, (length = jsonLength(obj)))
  return length
}

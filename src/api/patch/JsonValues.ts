/** JSON values as the patch mechanisms build them: plain data keys, merged-in values without null members. */
import { isRecord } from "../Object.js"

/** Plain assignment, but `Object.defineProperty` for `__proto__`, so that it stays a plain data key. */
export const setKey = (obj: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true })
  else obj[key] = value
}

/**
 * `v` without the null members of its objects (nulls inside arrays stay), as json-patch v4 prunes a merged-in
 * value. Parts without nulls are shared, not copied: a body handed to the server is never changed afterwards.
 */
export const withoutNulls = (v: unknown): unknown => {
  if (Array.isArray(v)) {
    let copy: unknown[] | undefined
    for (let i = 0; i < v.length; i++) {
      const x = v[i]
      if (x === null) continue
      const pruned = withoutNulls(x)
      if (pruned !== x) (copy ??= v.slice())[i] = pruned
    }
    return copy ?? v
  }
  if (isRecord(v)) {
    const keys = Object.keys(v)
    let i = 0
    let first: unknown
    for (; i < keys.length; i++) {
      const x = v[keys[i]!]
      if (x === null || (first = withoutNulls(x)) !== x) break
    }
    if (i === keys.length) return v
    // Built afresh rather than copied and `delete`d: a deleted key turns an object into a slow dictionary.
    const copy: Record<string, unknown> = {}
    for (let j = 0; j < keys.length; j++) {
      const k = keys[j]!
      const x = v[k]
      if (x === null) continue
      setKey(copy, k, j < i ? x : j === i ? first : withoutNulls(x))
    }
    return copy
  }
  return v
}


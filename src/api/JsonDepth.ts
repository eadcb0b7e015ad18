/**
 * How deeply a JSON document nests, measured without recursion. Bodies are bounded well below Go's
 * `encoding/json` limit (10000) because V8's recursive `JSON.stringify` and `structuredClone` overflow the
 * stack at ~4,000 levels: an object stored deeper could never be served back (docs/limits.md).
 */

/** The deepest nesting of objects and arrays a request body may have. */
export const maxBodyNestingDepth = 1000

/**
 * The first `{` or `[` in JSON text that opens a container deeper than `limit`, or undefined. Strings are
 * skipped, so brackets inside them do not count; the text need not be valid.
 */
export const depthOverflowInText = (text: string, limit: number): { readonly offset: number; readonly char: string } | undefined => {
  let depth = 0
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) {
      // Past the closing quote, stepping over escapes.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i)
        if (d === 92) i++
        else if (d === 34) break
      }
    } else if (c === 123 || c === 91) {
      if (++depth > limit) return { offset: i, char: text[i]! }
    } else if (c === 125 || c === 93) depth--
  }
  return undefined
}

/** Whether a parsed value nests objects and arrays deeper than `limit` (a walk with an explicit stack). */
export const valueDepthExceeds = (value: unknown, limit: number): boolean => {
  const stack: Array<{ readonly value: unknown; readonly depth: number }> = [{ value, depth: 0 }]
  while (stack.length > 0) {
    const top = stack.pop()!
    const v = top.value
    if (v === null || typeof v !== "object") continue
    const depth = top.depth + 1
    if (depth > limit) return true
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child !== null && typeof child === "object") stack.push({ value: child, depth })
  }
  return false
}

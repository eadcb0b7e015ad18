/**
 * Structural equality of JSON values (keys holding `undefined` count as absent), exiting at the first difference:
 * how the server tells a no-op write (upstream stores nothing and sends no event) and managed fields tell a changed
 * leaf, without serializing either side. Loops, not `every((x) => …)`: a closure over `a` and `b` would cost every
 * call a context, and every write compares here.
 */
export const sameObject = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameObject(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const ra = a as Record<string, unknown>
  const rb = b as Record<string, unknown>
  let n = 0
  for (const key in ra) {
    if (ra[key] === undefined) continue
    n++
    if (!sameObject(ra[key], rb[key])) return false
  }
  for (const key in rb) if (rb[key] !== undefined) n--
  return n === 0
}

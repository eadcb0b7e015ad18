/**
 * A revision's decimal text: the resourceVersion the store stamps on every write (`Store.ts`). `String(revision)` asks
 * V8's number-to-string cache first, which a new revision always misses, then converts the number and puts it in the
 * cache, evicting an entry someone else may want: at 65,000 nodes that line was ~1.8 % of the steady state
 * (docs/benchmarks.md "Where a lease renewal's CPU goes"). Revisions grow one by one, so the text of all but the last
 * three digits is the same for a thousand writes in a row: it is kept, and a write's text is it joined to a
 * three-digit text from a table — one short flat string made, nothing looked up. The same text as `String(revision)`
 * for every integer from 0 up to `Number.MAX_SAFE_INTEGER`.
 */

/** "000" … "999". */
const threeDigits: ReadonlyArray<string> = Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, "0"))

/** The thousands the kept text is of (-1: none yet), and that text. */
let thousandsOf = -1
let thousandsText = ""

/** `String(revision)` for a non-negative integer revision. */
export const revisionText = (revision: number): string => {
  const thousands = Math.floor(revision / 1000)
  if (thousands === 0) return String(revision)
  if (thousands !== thousandsOf) {
    thousandsOf = thousands
    thousandsText = String(thousands)
  }
  return thousandsText + threeDigits[revision - thousands * 1000]!
}

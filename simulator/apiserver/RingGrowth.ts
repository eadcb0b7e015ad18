/**
 * A ring's column moved into a ring of another size (`ChangeLog.resize`, `RenewedColumns.resize`: a larger one when
 * full, a smaller one once mostly empty — always one that holds every retained position): the position `p` sits in slot
 * `p & (capacity - 1)` of a ring of `capacity` slots (a power of two), so the retained positions `first` to `end` lie in
 * at most two runs of consecutive slots in the old ring and in the new one. The runs are copied as runs — a typed
 * column by `TypedArray.set` (a memory copy), an object column by a plain loop over consecutive slots — not slot by slot
 * through two masks: the 65,000-node hour's history grows its lease ring to 2 M slots, 16 columns each, in its start
 * storm (its growth ~5 % of its first 25 s; most of what is left is the new columns' fresh memory,
 * docs/benchmarks.md "History").
 */

type TypedColumn = Float64Array | Int32Array | Uint8Array

/** Calls `copy(from, to, length)` for each run of the positions `first` to `end` (from slots `from`, to slots `to`). */
const eachRun = (oldCapacity: number, capacity: number, first: number, end: number, copy: (from: number, to: number, length: number) => void): void => {
  let p = first
  while (p < end) {
    const from = p & (oldCapacity - 1)
    const to = p & (capacity - 1)
    const length = Math.min(end - p, oldCapacity - from, capacity - to)
    copy(from, to, length)
    p += length
  }
}

/** `column`'s slots of the positions `first` to `end` moved to their slots in `into`, a ring of at least `end - first` slots. */
export const grownTyped = <T extends TypedColumn>(column: T, into: T, first: number, end: number): T => {
  eachRun(column.length, into.length, first, end, (from, to, length) => into.set(column.subarray(from, from + length), to))
  return into
}

/** `column`'s slots of the positions `first` to `end` in a ring of `capacity` slots, the others undefined. */
export const grownObjects = <T>(column: ReadonlyArray<T | undefined>, capacity: number, first: number, end: number): Array<T | undefined> => {
  const into: Array<T | undefined> = new Array(capacity).fill(undefined)
  eachRun(column.length, capacity, first, end, (from, to, length) => {
    for (let i = 0; i < length; i++) into[to + i] = column[from + i]
  })
  return into
}

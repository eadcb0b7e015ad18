/**
 * The order in which `clustersim compare` runs its targets in each round: rows of a Williams design
 * (a Latin square balanced for first-order carry-over; for an odd number of targets the square and its
 * mirror). Every target runs first, middle and last equally often, and follows every other target equally
 * often, so slow drift of the machine and the after-effects of the previous run fall on every side alike.
 * Plain alternation (A B, B A) does that for two targets only: with three, B would always run in the middle.
 */

/** The Williams square's rows for `n` targets (n rows if n is even, 2n if odd). */
export const williamsRows = (n: number): ReadonlyArray<ReadonlyArray<number>> => {
  if (n < 1) return []
  // first row 0, 1, n−1, 2, n−2, …; row i adds i (mod n)
  const base: Array<number> = [0]
  for (let k = 1; base.length < n; k++) {
    base.push(k)
    if (base.length < n) base.push(n - k)
  }
  const square = Array.from({ length: n }, (_, i) => base.map((b) => (b + i) % n))
  return n % 2 === 0 ? square : [...square, ...square.map((row) => [...row].reverse())]
}

/** The target indices of round `round` (0-based), cycling through the design's rows. */
export const roundOrder = (round: number, targets: number): ReadonlyArray<number> => {
  const rows = williamsRows(targets)
  return rows[round % rows.length] ?? []
}

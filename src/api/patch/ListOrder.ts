/**
 * The order of upstream's list sort in strategic merge patch (`kubernetes/apimachinery:
 * pkg/util/strategicpatch/patch.go`, `normalizeSliceOrder`): Go's `sort.SliceStable` (insertion sorts of
 * 20-item blocks, then in-place `symMerge`s; Go's `sort/zsortfunc.go`) with upstream's comparator, whose
 * every call looked both items up in the order list. Here the lookups are done once (ranks), and a list whose
 * items are all in the order list is sorted by rank at once: any stable sort gives that order.
 */

/**
 * `items` in the order upstream's sort leaves them, given each item's `ranks` entry: its first position in the
 * order list, -1 when absent. Upstream's comparator `less(a, b)` is `rank(a) < rank(b)` when both have one, and
 * `true` otherwise — not an order, so with items absent from the list the result is what Go's algorithm does,
 * step for step, in O(n log² n) swaps.
 */
export const sortedAsUpstream = <A>(items: ReadonlyArray<A>, ranks: ReadonlyArray<number>): A[] => {
  const n = items.length
  const at = Array.from({ length: n }, (_, i) => i)
  if (ranks.every((r) => r >= 0)) return at.sort((a, b) => ranks[a]! - ranks[b]! || a - b).map((i) => items[i]!)
  const less = (i: number, j: number): boolean => {
    const ri = ranks[at[i]!]!
    const rj = ranks[at[j]!]!
    return ri < 0 || rj < 0 || ri < rj
  }
  const swap = (i: number, j: number): void => {
    const t = at[i]!
    at[i] = at[j]!
    at[j] = t
  }
  stable(less, swap, n)
  return at.map((i) => items[i]!)
}

type Less = (i: number, j: number) => boolean
type Swap = (i: number, j: number) => void

// Go's `stable_func`, `insertionSort_func`, `symMerge_func`, `rotate_func` and `swapRange_func`, as written.

const stable = (less: Less, swap: Swap, n: number): void => {
  let blockSize = 20
  let a = 0
  let b = blockSize
  while (b <= n) {
    insertionSort(less, swap, a, b)
    a = b
    b += blockSize
  }
  insertionSort(less, swap, a, n)
  while (blockSize < n) {
    a = 0
    b = 2 * blockSize
    while (b <= n) {
      symMerge(less, swap, a, a + blockSize, b)
      a = b
      b += 2 * blockSize
    }
    const m = a + blockSize
    if (m < n) symMerge(less, swap, a, m, n)
    blockSize *= 2
  }
}

const insertionSort = (less: Less, swap: Swap, a: number, b: number): void => {
  for (let i = a + 1; i < b; i++) for (let j = i; j > a && less(j, j - 1); j--) swap(j, j - 1)
}

const symMerge = (less: Less, swap: Swap, a: number, m: number, b: number): void => {
  if (m - a === 1) {
    let i = m
    let j = b
    while (i < j) {
      const h = (i + j) >>> 1
      if (less(h, a)) i = h + 1
      else j = h
    }
    for (let k = a; k < i - 1; k++) swap(k, k + 1)
    return
  }
  if (b - m === 1) {
    let i = a
    let j = m
    while (i < j) {
      const h = (i + j) >>> 1
      if (!less(m, h)) i = h + 1
      else j = h
    }
    for (let k = m; k > i; k--) swap(k, k - 1)
    return
  }
  const mid = (a + b) >>> 1
  const n = mid + m
  let start: number
  let r: number
  if (m > mid) {
    start = n - b
    r = mid
  } else {
    start = a
    r = m
  }
  const p = n - 1
  while (start < r) {
    const c = (start + r) >>> 1
    if (!less(p - c, c)) start = c + 1
    else r = c
  }
  const end = n - start
  if (start < m && m < end) rotate(swap, start, m, end)
  if (a < start && start < mid) symMerge(less, swap, a, start, mid)
  if (mid < end && end < b) symMerge(less, swap, mid, end, b)
}

const rotate = (swap: Swap, a: number, m: number, b: number): void => {
  let i = m - a
  let j = b - m
  while (i !== j) {
    if (i > j) {
      swapRange(swap, m - i, m, j)
      i -= j
    } else {
      swapRange(swap, m - i, m + j - i, i)
      j -= i
    }
  }
  swapRange(swap, m - i, m, i)
}

const swapRange = (swap: Swap, a: number, b: number, n: number): void => {
  for (let i = 0; i < n; i++) swap(a + i, b + i)
}

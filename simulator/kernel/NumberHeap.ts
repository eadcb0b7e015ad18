/**
 * A binary min-heap of numbers in a plain array: the bucket keys of a time-bucketed queue (`DueQueue`, the lifecycle
 * controller's `ProbeAlarms`), where a heap of a few hundred keys beats a heap of every item.
 */

/** Adds `key` to `heap`. */
export const pushKey = (heap: Array<number>, key: number): void => {
  let i = heap.length
  heap.push(key)
  while (i > 0) {
    const parent = (i - 1) >> 1
    if (heap[parent]! <= key) break
    heap[i] = heap[parent]!
    i = parent
  }
  heap[i] = key
}

/** Removes and returns the smallest key of a non-empty `heap`. */
export const popKey = (heap: Array<number>): number => {
  const top = heap[0]!
  const last = heap.pop()!
  const n = heap.length
  if (n === 0) return top
  let i = 0
  for (;;) {
    const l = 2 * i + 1
    if (l >= n) break
    const c = l + 1 < n && heap[l + 1]! < heap[l]! ? l + 1 : l
    if (heap[c]! >= last) break
    heap[i] = heap[c]!
    i = c
  }
  heap[i] = last
  return top
}

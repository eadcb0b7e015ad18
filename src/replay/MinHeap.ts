/** A binary min-heap under an order `less` (pure, no allocation per operation beyond the array's growth). */
export class MinHeap<T> {
  private readonly h: Array<T> = []
  constructor(private readonly less: (a: T, b: T) => boolean) {}
  get size(): number {
    return this.h.length
  }
  peek(): T | undefined {
    return this.h[0]
  }
  push(x: T): void {
    const h = this.h
    h.push(x)
    for (let i = h.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1
      if (!this.less(h[i]!, h[parent]!)) break
      ;[h[i], h[parent]] = [h[parent]!, h[i]!]
      i = parent
    }
  }
  pop(): T | undefined {
    const h = this.h
    const top = h[0]
    const last = h.pop()
    if (h.length > 0 && last !== undefined) {
      h[0] = last
      for (let i = 0; ; ) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r
        if (m === i) break
        ;[h[i], h[m]] = [h[m]!, h[i]!]
        i = m
      }
    }
    return top
  }
}

/** Latency histograms of several rounds pooled into one distribution, for quantiles and resampling (ms). */
import * as hdr from "hdr-histogram-js"
import type { Empirical } from "./Statistics.js"

/** The empirical latency distribution (ms) of a histogram, for quick quantiles of resamples. */
export const empiricalOf = (base64s: ReadonlyArray<string>): Empirical & { readonly max: number } => {
  const values: Array<number> = []
  const cumulative: Array<number> = []
  let total = 0
  let max = 0
  const merged = new Map<number, number>()
  for (const b of base64s) {
    // decoded as stored: no copy into this module's bounds, only the recorded values are read
    const h = hdr.decodeFromCompressedBase64(b, 64, false) as unknown as {
      totalCount: number
      maxValue: number
      recordedValuesIterator: { reset(): void; hasNext(): boolean; next(): { valueIteratedTo: number; countAtValueIteratedTo: number } }
    }
    if (h.totalCount === 0) continue
    max = Math.max(max, h.maxValue / 1000)
    const it = h.recordedValuesIterator
    it.reset()
    while (it.hasNext()) {
      const v = it.next()
      merged.set(v.valueIteratedTo, (merged.get(v.valueIteratedTo) ?? 0) + v.countAtValueIteratedTo)
    }
  }
  for (const [v, c] of [...merged.entries()].sort((a, b) => a[0] - b[0])) {
    total += c
    values.push(v / 1000)
    cumulative.push(total)
  }
  const quantile = (u: number): number => {
    if (total === 0) return 0
    const target = Math.max(1, Math.ceil(u * total))
    let lo = 0
    let hi = cumulative.length - 1
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (cumulative[mid]! >= target) hi = mid
      else lo = mid + 1
    }
    return values[lo]!
  }
  return { count: total, quantile, max }
}

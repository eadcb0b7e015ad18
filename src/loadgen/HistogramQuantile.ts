/**
 * A quantile of a Prometheus bucket histogram, computed as PromQL's `histogram_quantile` does (prometheus
 * `promql/quantile.go` `bucketQuantile`): find the bucket holding the rank `q × count`, then interpolate linearly
 * within it (the first bucket starts at 0; a rank in the `+Inf` bucket answers the highest finite bound). The true
 * value lies anywhere in that bucket: the answer carries the bucket's bounds so a reader can see the resolution.
 */

/** Cumulative bucket counts: `counts[i]` observations ≤ `bounds[i]` (seconds), and one more count for `+Inf`. */
export interface Buckets {
  /** Finite upper bounds, ascending. */
  readonly bounds: ReadonlyArray<number>
  /** Cumulative counts; `bounds.length + 1` entries, the last one the `+Inf` bucket (the total). */
  readonly counts: ReadonlyArray<number>
}

export interface BucketQuantile {
  /** Seconds. */
  readonly value: number
  /** The bucket the rank fell in: `(lower, upper]` seconds; `upper` is undefined for the `+Inf` bucket. */
  readonly lower: number
  readonly upper: number | undefined
}

/** `histogram_quantile(q, …)` of one histogram; undefined without observations (PromQL's NaN). */
export const bucketQuantile = (q: number, h: Buckets): BucketQuantile | undefined => {
  const n = h.bounds.length
  if (h.counts.length !== n + 1 || n === 0 || Number.isNaN(q)) return undefined
  // ensureMonotonic: a scrape taken while buckets are incremented may show a bucket below its predecessor
  const counts: Array<number> = []
  for (const c of h.counts) counts.push(Math.max(c, counts[counts.length - 1] ?? 0))
  const observations = counts[n]!
  if (observations === 0) return undefined
  const rank = Math.min(1, Math.max(0, q)) * observations
  let b = 0
  while (b < n && counts[b]! < rank) b++
  if (b === n) return { value: h.bounds[n - 1]!, lower: h.bounds[n - 1]!, upper: undefined }
  if (b === 0 && h.bounds[0]! <= 0) return { value: h.bounds[0]!, lower: h.bounds[0]!, upper: h.bounds[0]! }
  const start = b === 0 ? 0 : h.bounds[b - 1]!
  const end = h.bounds[b]!
  const below = b === 0 ? 0 : counts[b - 1]!
  const inBucket = counts[b]! - below
  return { value: start + (end - start) * ((rank - below) / inBucket), lower: start, upper: end }
}

/** The histograms' sum, bucket by bucket (same bounds: one metric family's); undefined if the bounds differ. */
export const addBuckets = (hs: ReadonlyArray<Buckets>): Buckets | undefined => {
  const first = hs[0]
  if (first === undefined) return undefined
  const same = hs.every((h) => h.bounds.length === first.bounds.length && h.bounds.every((b, i) => b === first.bounds[i]))
  if (!same) return undefined
  return { bounds: first.bounds, counts: first.counts.map((_, i) => hs.reduce((s, h) => s + (h.counts[i] ?? 0), 0)) }
}

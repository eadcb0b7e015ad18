/**
 * `bucketQuantile` answers as PromQL's `histogram_quantile` (prometheus promql/quantile.go): linear interpolation in
 * the bucket holding the rank, 0 as the first bucket's start, the highest finite bound for a rank in `+Inf`.
 */
import { describe, expect, it } from "@effect/vitest"
import { addBuckets, bucketQuantile } from "../../src/loadgen/HistogramQuantile.js"

const h = { bounds: [0.05, 0.1, 0.2], counts: [10, 20, 30, 30] }

describe("bucketQuantile", () => {
  it("interpolates within the bucket holding the rank, and names that bucket", () => {
    // rank 15 of 30: the second bucket holds observations 11–20, 5 of its 10 in → 0.05 + 0.05 × 0.5
    expect(bucketQuantile(0.5, h)).toMatchObject({ lower: 0.05, upper: 0.1 })
    expect(bucketQuantile(0.5, h)!.value).toBeCloseTo(0.075, 12)
    // rank 29.7: the third bucket (21–30), 9.7 of its 10 in
    expect(bucketQuantile(0.99, h)!.value).toBeCloseTo(0.1 + 0.1 * 0.97, 12)
    // the first bucket starts at 0
    expect(bucketQuantile(0.2, h)).toMatchObject({ lower: 0, upper: 0.05 })
    expect(bucketQuantile(0.2, h)!.value).toBeCloseTo(0.03, 12)
  })

  it("answers the highest finite bound for a rank in the +Inf bucket", () => {
    expect(bucketQuantile(0.99, { bounds: [0.05, 0.1], counts: [1, 2, 100] })).toEqual({ value: 0.1, lower: 0.1, upper: undefined })
  })

  it("has no answer without observations (PromQL's NaN)", () => {
    expect(bucketQuantile(0.5, { bounds: [1], counts: [0, 0] })).toBeUndefined()
  })

  it("makes counts monotonic first, as ensureMonotonic does", () => {
    expect(bucketQuantile(0.5, { bounds: [1, 2], counts: [4, 3, 4] })).toEqual({ value: 0.5, lower: 0, upper: 1 })
  })

  it("q = 0 and q = 1 are the lower end and the top bucket's bound", () => {
    expect(bucketQuantile(0, h)!.value).toBe(0)
    expect(bucketQuantile(1, h)!.value).toBe(0.2)
  })
})

describe("addBuckets", () => {
  it("adds bucket by bucket, and refuses different bounds", () => {
    expect(addBuckets([h, h])).toEqual({ bounds: h.bounds, counts: [20, 40, 60, 60] })
    expect(addBuckets([h, { bounds: [1], counts: [1, 1] }])).toBeUndefined()
  })
})

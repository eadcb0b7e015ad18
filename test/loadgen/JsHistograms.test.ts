import { describe, expect, it } from "@effect/vitest"
import * as hdr from "hdr-histogram-js"
import { buildJsHistogram, encodeIntoCompressedBase64, JsHistogram, type JsHistogramRequest } from "../../src/loadgen/JsHistograms.js"

// JsHistograms.ts builds and encodes without the library's index: what it makes must be what the index makes.
const requests: ReadonlyArray<JsHistogramRequest> = [
  { bitBucketSize: 64, autoResize: false, lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 3 },
  { bitBucketSize: 32, autoResize: false, lowestDiscernibleValue: 1, highestTrackableValue: 3_600_000_000, numberOfSignificantValueDigits: 2 },
  { bitBucketSize: 16, autoResize: true, lowestDiscernibleValue: 1, highestTrackableValue: 2, numberOfSignificantValueDigits: 3 },
  { bitBucketSize: "packed", autoResize: true, lowestDiscernibleValue: 10, highestTrackableValue: 1_000_000, numberOfSignificantValueDigits: 4 }
]

const values = [1, 2, 3, 17, 250, 999, 1_000, 4_321, 65_536, 1_000_000, 123_456]

describe("JsHistograms", () => {
  it("builds what hdr.build builds with useWebAssembly false: class, settings, records and encoding", () => {
    for (const request of requests) {
      const ours = buildJsHistogram(request)
      const theirs = hdr.build({ ...request, useWebAssembly: false })
      expect(ours.constructor).toBe(theirs.constructor)
      expect(ours.autoResize).toBe(theirs.autoResize)
      for (const v of values) {
        if (!request.autoResize && v > request.highestTrackableValue) continue
        ours.recordValue(v)
        theirs.recordValue(v)
      }
      expect(ours.totalCount).toBe(theirs.totalCount)
      expect(ours.getValueAtPercentile(99)).toBe(theirs.getValueAtPercentile(99))
      expect(encodeIntoCompressedBase64(ours)).toBe(hdr.encodeIntoCompressedBase64(theirs))
    }
  })

  it("is the index's JsHistogram class, so instanceof agrees", () => {
    expect(JsHistogram).toBe(hdr.JsHistogram)
    expect(buildJsHistogram(requests[0]!)).toBeInstanceOf(hdr.JsHistogram)
  })
})

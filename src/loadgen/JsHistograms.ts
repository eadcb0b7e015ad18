/**
 * hdr-histogram-js's JavaScript histograms, loaded without the rest of its index. Every histogram here is built with
 * `useWebAssembly: false`, for which the library's `build` (`HistogramBuilder.js`) is the constructor of the bucket
 * size with `autoResize` set — that is all `buildJsHistogram` does. The index also loads the WebAssembly build, pako
 * and the log reader and writer, ~60 ms of CPU at every start of a process that only records (issue 39): the
 * interchange encoding, which needs them, loads the index at its first use.
 */
import { createRequire } from "node:module"
import type * as Hdr from "hdr-histogram-js"

const require = createRequire(import.meta.url)

const { constructorFromBucketSize } = require("hdr-histogram-js/dist/JsHistogramFactory.js") as typeof import("hdr-histogram-js/dist/JsHistogramFactory.js")

/** The library's `JsHistogram` class, the very one its index exports (one module instance). */
export const JsHistogram: typeof Hdr.JsHistogram = (require("hdr-histogram-js/dist/JsHistogram.js") as { default: typeof Hdr.JsHistogram }).default

/** The JavaScript histograms' options (`BuildRequest` less `useWebAssembly`), all given. */
export interface JsHistogramRequest {
  readonly bitBucketSize: Hdr.BitBucketSize
  readonly autoResize: boolean
  readonly lowestDiscernibleValue: number
  readonly highestTrackableValue: number
  readonly numberOfSignificantValueDigits: 1 | 2 | 3 | 4 | 5
}

/** `hdr.build({ ...request, useWebAssembly: false })`. */
export const buildJsHistogram = (request: JsHistogramRequest): Hdr.Histogram => {
  const make = constructorFromBucketSize(request.bitBucketSize)
  const histogram = new make(request.lowestDiscernibleValue, request.highestTrackableValue, request.numberOfSignificantValueDigits)
  histogram.autoResize = request.autoResize
  return histogram
}

/** The library's whole index (the interchange encoding), loaded at the first call. */
export const hdrIndex = (): typeof Hdr => require("hdr-histogram-js") as typeof Hdr

/**
 * hdr-histogram-js's JavaScript histograms, loaded without the rest of its index. Every histogram here is built with
 * `useWebAssembly: false`, for which the library's `build` (`HistogramBuilder.js`) is the constructor of the bucket
 * size with `autoResize` set — that is all `buildJsHistogram` does. The index also loads the WebAssembly build, pako
 * and the log reader and writer, ~20 ms of CPU at every start of a process that only records (issue 39). A
 * JavaScript histogram's interchange encoding is its own module (`JsHistogram.encoding.js`, which the index loads as
 * well), loaded at the first encoding; decoding, and a histogram of another kind, load the index then.
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

/** `hdr.encodeIntoCompressedBase64(h)`: a JavaScript histogram encodes itself once its encoding module is loaded. */
export const encodeIntoCompressedBase64 = (h: Hdr.Histogram): string => {
  if (!(h instanceof JsHistogram)) return hdrIndex().encodeIntoCompressedBase64(h)
  // the module puts the method on JsHistogram's prototype (and declares it there: hence its type here)
  require("hdr-histogram-js/dist/JsHistogram.encoding.js") as typeof import("hdr-histogram-js/dist/JsHistogram.encoding.js")
  return h.encodeIntoCompressedBase64()
}

/** The library's whole index, loaded at the first call. */
export const hdrIndex = (): typeof Hdr => require("hdr-histogram-js") as typeof Hdr

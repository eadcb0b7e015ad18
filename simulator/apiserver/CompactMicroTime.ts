/**
 * A `MicroTime` text (`YYYY-MM-DDTHH:MM:SS.ffffffZ`) kept as two small integers: its second since the epoch and its
 * µs within that second. A lease renewal's `renewTime` is kept so in the history window (`RenewedVersion.ts`):
 * ~150,000 versions of 5,000 leases each kept its text (48 bytes, promoted to the old generation with the record)
 * where two integers cost nothing beside the record (docs/benchmarks.md "Where a lease renewal's CPU goes"). Only a
 * text that is exactly the canonical rendering of its instant is read so, so `microTimeOf` gives the very text back.
 */
import { flatString } from "../../src/api/internal/V8Shapes.js"
import { decodesAsMicroTime } from "../../src/api/kinds/FieldSchema.js"

/**
 * `YYYY-MM-DDTHH:MM:SS.` of the last second read or rendered: renewals come in time order, ~500 in a second, so most
 * texts start with it and are read by comparing it.
 */
let cachedSecond = Number.NaN
let cachedPrefix = ""
/** `decodesAsMicroTime` of the texts of the cached second (`decodesInSecond`). */
let cachedDecodes = false
const prefixOf = (second: number): string => {
  if (second !== cachedSecond) {
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20)
    cachedSecond = second
    cachedDecodes = decodesAsMicroTime(flatString(cachedPrefix, "000000Z"))
  }
  return cachedPrefix
}

const digits = (text: string, from: number, to: number): number => {
  let n = 0
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i) - 48
    if (c < 0 || c > 9) return Number.NaN
    n = n * 10 + c
  }
  return n
}

/**
 * The text an agent made last as the canonical rendering of an instant (`knownMicroTime`), and its second: the lease
 * renewal that sends it is written before the agent makes another, so its `secondOf` is known without reading it
 * (~1.7 % of the control-plane hour's steady state, docs/benchmarks.md "Where a lease renewal's CPU goes").
 */
let knownText = ""
let knownSecond = Number.NaN
/** Years 1000 to 9999: the texts whose second `secondOf` reads from their four-digit year. */
const firstKnowable = Date.UTC(1000, 0, 1) / 1000
const pastKnowable = Date.UTC(10000, 0, 1) / 1000

/**
 * `text` is `microTimeOf(second, µs)` for an integer µs of 0 to 999,999 (`TimeText.micro` makes such texts):
 * `secondOf(text)` answers `second` at once. A second of another year than 1000 to 9999 is not kept.
 */
export const knownMicroTime = (text: string, second: number): void => {
  if (second >= firstKnowable && second < pastKnowable) {
    knownText = text
    knownSecond = second
  }
}

/** The second since the epoch of `text` when `microTimeOf` of it and `microsOf(text)` is `text`; NaN otherwise. */
export const secondOf = (text: string): number => (text === knownText ? knownSecond : readSecondOf(text))

/** `secondOf` read from the text itself. */
export const readSecondOf = (text: string): number => {
  if (text.length !== 27 || text.charCodeAt(26) !== 90 /* Z */ || !(digits(text, 20, 26) >= 0)) return Number.NaN
  if (cachedSecond === cachedSecond && text.startsWith(cachedPrefix)) return cachedSecond
  // another second: read from the text's fields, and taken only if it renders back to them
  const second = Date.UTC(digits(text, 0, 4), digits(text, 5, 7) - 1, digits(text, 8, 10), digits(text, 11, 13), digits(text, 14, 16), digits(text, 17, 19)) / 1000
  return Number.isInteger(second) && text.startsWith(prefixOf(second)) ? second : Number.NaN
}

/** The µs within its second of a text `secondOf` read. */
export const microsOf = (text: string): number => digits(text, 20, 26)

/** The text `secondOf` and `microsOf` read. */
export const microTimeOf = (second: number, micros: number): string => flatString(prefixOf(second), String(micros).padStart(6, "0"), "Z")

/**
 * `decodesAsMicroTime(text)` (`FieldSchema.ts`) of a text `secondOf` read as `second`: the check reads only the text's
 * form, which such a text has, and its date and clock fields, which are the second's. Known once per second, so a
 * lease renewal's renewTime is not read again character by character (docs/benchmarks.md "Where a lease renewal's
 * CPU goes").
 */
export const decodesInSecond = (second: number): boolean => {
  prefixOf(second)
  return cachedDecodes
}

/**
 * A `MicroTime` text (`YYYY-MM-DDTHH:MM:SS.ffffffZ`) kept as a small integer: its µs after the start of a nearby
 * second. A lease renewal's `renewTime` is kept so in the history window (`RenewedVersion.ts`): ~150,000 versions of
 * 5,000 leases each kept its text (48 bytes, promoted to the old generation with the record) where an integer costs
 * nothing beside the record (docs/benchmarks.md "Where a lease renewal's CPU goes"). Only a text that is exactly the
 * canonical rendering of its instant is kept as a number, so `microTimeAfter` gives the very text back.
 */
import { flatString } from "../../src/api/internal/V8Shapes.js"

/** Texts more than this far from their second stay texts (the offset stays a small integer). */
const maxSecondsApart = 1_000

/** `YYYY-MM-DDTHH:MM:SS.` of a second since the epoch, the last one asked for kept (most asks are in one second). */
let cachedSecond = Number.NaN
let cachedPrefix = ""
const prefixOf = (second: number): string => {
  if (second !== cachedSecond) {
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20)
    cachedSecond = second
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
 * `text`'s µs after the start of `second` (s since the epoch) when `microTimeAfter(second, them)` is `text`, and
 * they are fewer than `maxSecondsApart` seconds; undefined otherwise.
 */
export const microsAfter = (text: string, second: number): number | undefined => {
  if (text.length !== 27 || text.charCodeAt(26) !== 90 /* Z */) return undefined
  const micros = digits(text, 20, 26)
  if (!(micros >= 0)) return undefined
  let own = second
  if (!text.startsWith(prefixOf(own))) {
    // another second: the text's own, read from its fields, and accepted only if it renders back to them
    const ms = Date.UTC(digits(text, 0, 4), digits(text, 5, 7) - 1, digits(text, 8, 10), digits(text, 11, 13), digits(text, 14, 16), digits(text, 17, 19))
    own = ms / 1000
    if (!Number.isInteger(own) || Math.abs(own - second) >= maxSecondsApart || !text.startsWith(prefixOf(own))) return undefined
  }
  return (own - second) * 1_000_000 + micros
}

/** The text `microsAfter` read `micros` from. */
export const microTimeAfter = (second: number, micros: number): string => {
  const own = second + Math.floor(micros / 1_000_000)
  return flatString(prefixOf(own), String(micros - (own - second) * 1_000_000).padStart(6, "0"), "Z")
}

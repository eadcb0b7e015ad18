/**
 * A lease's `renewTime` as a number that orders as the monitor pass compares renewTimes: as the values themselves with
 * `>` (upstream compares `RenewTime` instants; the pass has always compared the texts, and keeps doing so exactly). A
 * canonical MicroTime text (`CompactMicroTime.secondOf`: `YYYY-MM-DDTHH:MM:SS.ffffffZ`, the very rendering of its
 * instant) has fixed-width fields, so its text order is its instant's order; its key is that instant in µs since the
 * epoch, exact in a double for years 1717 to 2223. Any other value a client may write (another form, another type, a
 * far year) is odd: its key is NaN and it is compared as the value itself. No renewTime: `noRenew`.
 */
import { microsOf, microTimeOf, secondOf } from "../../apiserver/CompactMicroTime.js"

/** The key of an absent renewTime (and of a node whose lease was never seen): below every other key. */
export const noRenew = -Infinity

/** Seconds within which `second * 1e6 + µs` is an exact integer in a double (below 2^53). */
const exactSeconds = 8e9

export const renewKeyOf = (renewTime: unknown): number => {
  if (typeof renewTime !== "string") return renewTime === undefined ? noRenew : Number.NaN
  const second = secondOf(renewTime)
  return second >= -exactSeconds && second <= exactSeconds ? second * 1e6 + microsOf(renewTime) : Number.NaN
}

/** Whether `key` is a key of a canonical text (neither odd nor `noRenew`). */
export const isCanonicalKey = (key: number): boolean => key === key && key !== noRenew

/** The text of a canonical key. */
const textOf = (key: number): string => {
  let second = Math.floor(key / 1e6)
  let micros = key - second * 1e6
  // the division may round across a second's edge
  if (micros < 0) {
    second--
    micros += 1e6
  } else if (micros >= 1e6) {
    second++
    micros -= 1e6
  }
  return microTimeOf(second, micros)
}

/** The value a key stands for: the canonical text, `odd` (the value beside an odd key), or undefined. */
export const renewValueOf = (key: number, odd: unknown): unknown => (key !== key ? odd : key === noRenew ? undefined : textOf(key))

/**
 * `renew > prior` of the values the keys stand for, `renew` defined (`odd` and `priorOdd`: the values beside odd
 * keys): the pass's rule `renew !== undefined && (prior === undefined || renew > prior)`. Two canonical keys compare as
 * numbers; anything odd as the values.
 */
export const renewsAfter = (key: number, odd: unknown, priorKey: number, priorOdd: unknown): boolean => {
  if (key === key && priorKey === priorKey) return key > priorKey
  if (priorKey === noRenew) return true
  return (renewValueOf(key, odd) as string) > (renewValueOf(priorKey, priorOdd) as string)
}

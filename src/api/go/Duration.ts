/**
 * Durations as Go writes and reads them (`time.ParseDuration`, `Duration.String()`), the form every
 * duration field of the node agent configuration uses (spec 001: "Durations are strings such as `1m`").
 *
 * Go durations are int64 nanoseconds; `parseDurationNanos` / `formatDurationNanos` keep that exactly
 * (bigint). The simulator's clock counts milliseconds, so `parseDuration` / `formatDuration` speak
 * milliseconds (fractional below 1ms).
 */
import { Either } from "effect"
import { goTimeQuote } from "./Quote.js"

export const Nanosecond = 1n
export const Microsecond = 1000n
export const Millisecond = 1_000_000n
export const Second = 1_000_000_000n
export const Minute = 60n * Second
export const Hour = 60n * Minute

const maxUint63 = 1n << 63n // the uint64 accumulator may reach 1<<63 (for -9223372036854775808ns)

const unitNanos: ReadonlyMap<string, bigint> = new Map([
  ["ns", Nanosecond],
  ["us", Microsecond],
  ["\u00b5s", Microsecond], // U+00B5 micro sign
  ["\u03bcs", Microsecond], // U+03BC Greek mu
  ["ms", Millisecond],
  ["s", Second],
  ["m", Minute],
  ["h", Hour]
])

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9"

const invalid = (orig: string) => Either.left(`time: invalid duration ${goTimeQuote(orig)}`)

/** `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, in nanoseconds, with Go's error texts. */
export const parseDurationNanos = (orig: string): Either.Either<bigint, string> => {
  let s = orig
  let neg = false
  if (s !== "" && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-"
    s = s.slice(1)
  }
  if (s === "0") return Either.right(0n)
  if (s === "") return invalid(orig)
  let d = 0n
  while (s !== "") {
    if (!(s[0] === "." || isDigit(s[0]))) return invalid(orig)
    // leading integer; more than 1<<63 overflows (Go's errLeadingInt)
    let i = 0
    let v = 0n
    while (isDigit(s[i])) {
      v = v * 10n + BigInt(s.charCodeAt(i) - 48)
      if (v > maxUint63) return invalid(orig)
      i++
    }
    const pre = i > 0
    s = s.slice(i)
    // fraction: digits beyond what fits are consumed and ignored, like Go's leadingFraction
    let f = 0n
    let scale = 1
    let post = false
    if (s !== "" && s[0] === ".") {
      s = s.slice(1)
      let j = 0
      let overflow = false
      while (isDigit(s[j])) {
        if (!overflow) {
          const next = f * 10n + BigInt(s.charCodeAt(j) - 48)
          if (f > (maxUint63 - 1n) / 10n || next > maxUint63) overflow = true
          else {
            f = next
            scale *= 10
          }
        }
        j++
      }
      post = j > 0
      s = s.slice(j)
    }
    if (!pre && !post) return invalid(orig)
    let u = 0
    while (u < s.length && s[u] !== "." && !isDigit(s[u])) u++
    if (u === 0) return Either.left(`time: missing unit in duration ${goTimeQuote(orig)}`)
    const unitName = s.slice(0, u)
    s = s.slice(u)
    const unit = unitNanos.get(unitName)
    if (unit === undefined) {
      return Either.left(`time: unknown unit ${goTimeQuote(unitName)} in duration ${goTimeQuote(orig)}`)
    }
    if (v > maxUint63 / unit) return invalid(orig)
    v *= unit
    if (f > 0n) {
      // Go computes the fraction in float64 and truncates, to be nanosecond accurate for hours
      v += BigInt(Math.trunc(Number(f) * (Number(unit) / scale)))
      if (v > maxUint63) return invalid(orig)
    }
    d += v
    if (d > maxUint63) return invalid(orig)
  }
  if (neg) return Either.right(-d)
  if (d > maxUint63 - 1n) return invalid(orig)
  return Either.right(d)
}

/** `time.ParseDuration` in milliseconds (fractional for sub-millisecond parts). */
export const parseDuration = (s: string): Either.Either<number, string> =>
  Either.map(parseDurationNanos(s), nanosToMillis)

export const nanosToMillis = (ns: bigint): number => Number(ns) / 1e6
export const millisToNanos = (ms: number): bigint => BigInt(Math.round(ms * 1e6))

/** Go's `fmtFrac`: the fraction of `v / 10^prec` without trailing zeros (and without `.` when zero). */
const fracOf = (v: bigint, prec: number): [string, bigint] => {
  let digits = ""
  let print = false
  for (let i = 0; i < prec; i++) {
    const digit = v % 10n
    print = print || digit !== 0n
    if (print) digits = digit.toString() + digits
    v /= 10n
  }
  return [print ? "." + digits : "", v]
}

/** Go's `Duration.String()`: `1h30m0s`, `1m0s`, `20s`, `1.5s`, `100ms`, `1.5µs`, `0s`. */
export const formatDurationNanos = (d: bigint): string => {
  const neg = d < 0n
  let u = neg ? -d : d
  let out: string
  if (u < Second) {
    if (u === 0n) return "0s"
    let prec: number
    let unit: string
    if (u < Microsecond) {
      prec = 0
      unit = "ns"
    } else if (u < Millisecond) {
      prec = 3
      unit = "\u00b5s"
    } else {
      prec = 6
      unit = "ms"
    }
    const [frac, whole] = fracOf(u, prec)
    out = `${whole}${frac}${unit}`
  } else {
    const [frac, whole] = fracOf(u, 9)
    u = whole
    out = `${u % 60n}${frac}s`
    u /= 60n
    if (u > 0n) {
      out = `${u % 60n}m${out}`
      u /= 60n
      if (u > 0n) out = `${u}h${out}`
    }
  }
  return neg ? "-" + out : out
}

/** Go's `Duration.String()` for a duration given in milliseconds. */
export const formatDuration = (ms: number): string => formatDurationNanos(millisToNanos(ms))


/**
 * Go's `strconv` number parsers with their error texts (`strconv.ParseInt: parsing "x": invalid syntax`), as
 * pflag and the API server report them.
 */
import { Either } from "effect"
import { goQuote } from "./Quote.js"

/** `strconv.<fn>: parsing "<s>": invalid syntax`. */
export const syntaxError = (fn: string, s: string) => `strconv.${fn}: parsing ${goQuote(s)}: invalid syntax`
export const rangeError = (fn: string, s: string) => `strconv.${fn}: parsing ${goQuote(s)}: value out of range`

/** Go's `underscoreOK`: underscores only between digits (or after a base prefix) and only with base 0. */
const underscoreOK = (digits: string): boolean => !/^_|_$|__/.test(digits)

const parseUnsignedBig = (s: string, base0: boolean): bigint | "syntax" => {
  let body = s
  let radix = 10
  if (base0) {
    const lower = body.toLowerCase()
    if (lower.startsWith("0x")) (radix = 16), (body = body.slice(2))
    else if (lower.startsWith("0b")) (radix = 2), (body = body.slice(2))
    else if (lower.startsWith("0o")) (radix = 8), (body = body.slice(2))
    else if (body.length > 1 && body.startsWith("0")) (radix = 8), (body = body.slice(1))
    if (body.includes("_")) {
      // After a base prefix (or octal's leading 0) a leading underscore is allowed: "0x_1f", "0_7".
      const prefixed = body.length < s.length
      if (!underscoreOK(prefixed ? "0" + body : body)) return "syntax"
      body = body.replaceAll("_", "")
    }
  }
  if (body.length === 0) return "syntax"
  const digit = radix === 16 ? /^[0-9a-fA-F]+$/ : radix === 8 ? /^[0-7]+$/ : radix === 2 ? /^[01]+$/ : /^[0-9]+$/
  if (!digit.test(body)) return "syntax"
  const prefix = radix === 16 ? "0x" : radix === 8 ? "0o" : radix === 2 ? "0b" : ""
  return BigInt(prefix + body)
}

/** `strconv.ParseInt(s, base, bitSize)` for base 0 (Go literal prefixes) or 10. */
export const parseGoInt = (s: string, base: 0 | 10, bitSize: 32 | 64): Either.Either<number, string> => {
  let body = s
  let neg = false
  if (body.startsWith("+") || body.startsWith("-")) (neg = body.startsWith("-")), (body = body.slice(1))
  const n = parseUnsignedBig(body, base === 0)
  if (n === "syntax") return Either.left(syntaxError("ParseInt", s))
  const v = neg ? -n : n
  const limit = 1n << BigInt(bitSize - 1)
  if (v >= limit || v < -limit) return Either.left(rangeError("ParseInt", s))
  return Either.right(Number(v))
}

/** `strconv.ParseUint(s, 10, bitSize)`. */
export const parseGoUint = (s: string, bitSize: 31 | 32): Either.Either<number, string> => {
  const n = parseUnsignedBig(s, false)
  if (n === "syntax") return Either.left(syntaxError("ParseUint", s))
  if (n >= 1n << BigInt(bitSize)) return Either.left(rangeError("ParseUint", s))
  return Either.right(Number(n))
}

/** Go's `underscoreOK`: underscores only between digits, or between a base prefix and a digit. */
const underscoresOK = (text: string): boolean => {
  let s = text
  if (s.startsWith("+") || s.startsWith("-")) s = s.slice(1)
  let saw = "^"
  let i = 0
  let hex = false
  if (s.length >= 2 && s[0] === "0" && "bBoOxX".includes(s[1]!)) {
    i = 2
    saw = "0"
    hex = s[1] === "x" || s[1] === "X"
  }
  for (; i < s.length; i++) {
    const c = s[i]!
    if ((c >= "0" && c <= "9") || (hex && /[a-fA-F]/.test(c))) saw = "0"
    else if (c === "_") {
      if (saw !== "0") return false
      saw = "_"
    } else {
      if (saw === "_") return false
      saw = "!"
    }
  }
  return saw !== "_"
}

const decimalFloat = /^(?=[._]*\d)[\d_]*\.?[\d_]*([eE][+-]?[\d_]+)?$/
const hexFloat = /^0[xX](?=[._]*[0-9a-fA-F])([0-9a-fA-F_]*)\.?([0-9a-fA-F_]*)[pP]([+-]?[\d_]+)$/

/**
 * `strconv.ParseFloat(s, bitSize)`: decimal and hexadecimal literals with Go's underscores, `inf`/`infinity`/`nan`
 * in any case (a sign only on the infinities). With bitSize 32 the range is float32's; the value is returned as read
 * (`Math.fround` it for float32 arithmetic).
 */
export const parseGoFloat = (s: string, bitSize: 32 | 64): Either.Either<number, string> => {
  const special = /^([+-])?(inf|infinity|nan)$/i.exec(s)
  if (special) {
    if (special[2]!.toLowerCase() === "nan") return special[1] ? Either.left(syntaxError("ParseFloat", s)) : Either.right(NaN)
    return Either.right(special[1] === "-" ? -Infinity : Infinity)
  }
  const negative = s.startsWith("-")
  const body = s.startsWith("+") || negative ? s.slice(1) : s
  if (s.includes("_") && !underscoresOK(s)) return Either.left(syntaxError("ParseFloat", s))
  let v: number
  const hex = hexFloat.exec(body)
  if (hex) {
    const whole = hex[1]!.replaceAll("_", "")
    const frac = hex[2]!.replaceAll("_", "")
    const mantissa = (whole === "" ? 0 : parseInt(whole, 16)) + (frac === "" ? 0 : parseInt(frac, 16) / 16 ** frac.length)
    v = mantissa * 2 ** Number(hex[3]!.replaceAll("_", ""))
  } else if (decimalFloat.test(body)) v = Number(body.replaceAll("_", ""))
  else return Either.left(syntaxError("ParseFloat", s))
  if (negative) v = -v
  if (!Number.isFinite(v) || (bitSize === 32 && !Number.isFinite(Math.fround(v)))) return Either.left(rangeError("ParseFloat", s))
  return Either.right(v)
}

/** Go's `%v` for a float64 (`strconv.FormatFloat(f, 'g', -1, 64)`): `0.8`, `1e+06`, `1.5e-05`. */
export const formatGoFloat = (f: number): string => {
  if (Number.isNaN(f)) return "NaN"
  if (!Number.isFinite(f)) return f > 0 ? "+Inf" : "-Inf"
  if (f === 0) return Object.is(f, -0) ? "-0" : "0"
  const [mantissa, expText] = f.toExponential().split("e") as [string, string]
  const exp = Number(expText)
  // shortest digits; the exponent form when exp < -4 or exp >= 6 (Go's precision for this decision)
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`
  return String(f)
}

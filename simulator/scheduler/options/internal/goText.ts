/**
 * Go's text parsers as the scheduler's flags use them (strconv, encoding/csv), with their error texts.
 * Durations come from `src/api/Duration.ts`.
 */
import { Either } from "effect"

/** Go's `%q` for the texts flags carry (printable text: JSON escaping agrees). */
export const goQuote = (s: string): string => JSON.stringify(s)

const syntaxError = (fn: string, s: string) => `strconv.${fn}: parsing ${goQuote(s)}: invalid syntax`
const rangeError = (fn: string, s: string) => `strconv.${fn}: parsing ${goQuote(s)}: value out of range`

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

const float32Max = 3.4028234663852886e38

/** `strconv.ParseFloat(s, bitSize)`: decimal and special values (hex floats are not accepted here). */
export const parseGoFloat = (s: string, bitSize: 32 | 64): Either.Either<number, string> => {
  const special = /^([+-])?(inf|infinity|nan)$/i.exec(s)
  if (special) {
    if (special[2]!.toLowerCase() === "nan") return special[1] ? Either.left(syntaxError("ParseFloat", s)) : Either.right(NaN)
    return Either.right(special[1] === "-" ? -Infinity : Infinity)
  }
  if (!/^[+-]?(\d(_?\d)*(\.(\d(_?\d)*)?)?|\.\d(_?\d)*)([eE][+-]?\d+)?$/.test(s)) {
    return Either.left(syntaxError("ParseFloat", s))
  }
  const v = Number(s.replaceAll("_", ""))
  if (!Number.isFinite(v) || (bitSize === 32 && Math.abs(v) > float32Max)) return Either.left(rangeError("ParseFloat", s))
  return Either.right(v)
}

/**
 * One record of Go's `encoding/csv` reader (comma separator, quotes per RFC 4180), as pflag reads
 * list values. Empty text is an empty list.
 */
export const readCsvRecord = (text: string): Either.Either<ReadonlyArray<string>, string> => {
  if (text === "") return Either.right([])
  const line = text.split("\n")[0]!.replace(/\r$/, "")
  const fields: Array<string> = []
  let i = 0
  for (;;) {
    if (line[i] === '"') {
      let value = ""
      let j = i + 1
      for (;;) {
        if (j >= line.length) return Either.left(`parse error on line 1, column ${j + 1}: extraneous or missing " in quoted-field`)
        if (line[j] === '"') {
          if (line[j + 1] === '"') (value += '"'), (j += 2)
          else break
        } else (value += line[j]), j++
      }
      j++
      if (j < line.length && line[j] !== ",") {
        return Either.left(`parse error on line 1, column ${j + 1}: extraneous or missing " in quoted-field`)
      }
      fields.push(value)
      if (j >= line.length) return Either.right(fields)
      i = j + 1
    } else {
      const end = line.indexOf(",", i)
      const value = end < 0 ? line.slice(i) : line.slice(i, end)
      const quote = value.indexOf('"')
      if (quote >= 0) return Either.left(`parse error on line 1, column ${i + quote + 1}: bare " in non-quoted-field`)
      fields.push(value)
      if (end < 0) return Either.right(fields)
      i = end + 1
    }
  }
}

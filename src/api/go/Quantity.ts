/**
 * Resource quantities (`100m`, `2`, `10Mi`, `1Gi`, `1e3`) as upstream `apimachinery/pkg/api/resource`
 * parses and prints them: the same grammar, suffixes, error texts, rounding (up to the nano unit,
 * away from zero) and canonical form. `10%` is not a quantity; percentages belong to eviction parsing.
 *
 * The amount is kept exactly as `unscaled × 10^scale` (bigint), so nothing is lost to floating point;
 * `value()` / `milliValue()` round away from zero like upstream's `Value()` / `MilliValue()`.
 */
import { Either } from "effect"

export type QuantityFormat = "DecimalExponent" | "BinarySI" | "DecimalSI"

export const ErrFormatWrong = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
export const ErrNumeric = "unable to parse numeric part of quantity"
export const ErrSuffix = "unable to parse quantity's suffix"

const maxInt64 = (1n << 63n) - 1n
const nanoScale = -9

const decimalSuffixes: ReadonlyMap<string, number> = new Map([
  ["n", -9],
  ["u", -6],
  ["m", -3],
  ["", 0],
  ["k", 3],
  ["M", 6],
  ["G", 9],
  ["T", 12],
  ["P", 15],
  ["E", 18]
])
const binarySuffixes: ReadonlyMap<string, number> = new Map([
  ["Ki", 10],
  ["Mi", 20],
  ["Gi", 30],
  ["Ti", 40],
  ["Pi", 50],
  ["Ei", 60]
])
const decimalSuffixOf = new Map([...decimalSuffixes].map(([s, e]) => [e, s]))
const binarySuffixOf = new Map([...binarySuffixes].map(([s, e]) => [e, s]))

const pow10 = (n: number): bigint => 10n ** BigInt(n)
const abs = (n: bigint): bigint => (n < 0n ? -n : n)

export class Quantity {
  constructor(
    /** The amount is `unscaled × 10^scale`. */
    readonly unscaled: bigint,
    readonly scale: number,
    readonly format: QuantityFormat,
    /** The text it was parsed from, kept when already canonical (upstream's cached string). */
    private readonly cached?: string
  ) {}

  sign(): -1 | 0 | 1 {
    return this.unscaled < 0n ? -1 : this.unscaled > 0n ? 1 : 0
  }

  isZero(): boolean {
    return this.unscaled === 0n
  }

  /** The amount in units of `10^scale`, rounded away from zero (upstream `ScaledValue`). */
  scaledValue(scale: number): bigint {
    const diff = this.scale - scale
    if (diff >= 0) return this.unscaled * pow10(diff)
    const d = pow10(-diff)
    const q = this.unscaled / d
    if (this.unscaled % d === 0n) return q
    return this.unscaled > 0n ? q + 1n : q - 1n
  }

  /** Whole units, rounded away from zero (upstream `Value()`). */
  value(): number {
    return Number(this.scaledValue(0))
  }

  /** Thousandths of a unit, rounded away from zero (upstream `MilliValue()`). */
  milliValue(): number {
    return Number(this.scaledValue(-3))
  }

  cmp(other: Quantity): -1 | 0 | 1 {
    const s = Math.min(this.scale, other.scale)
    const a = this.unscaled * pow10(this.scale - s)
    const b = other.unscaled * pow10(other.scale - s)
    return a < b ? -1 : a > b ? 1 : 0
  }

  equals(other: Quantity): boolean {
    return this.cmp(other) === 0
  }

  add(other: Quantity): Quantity {
    const s = Math.min(this.scale, other.scale)
    return new Quantity(this.unscaled * pow10(this.scale - s) + other.unscaled * pow10(other.scale - s), s, this.format)
  }

  sub(other: Quantity): Quantity {
    return this.add(new Quantity(-other.unscaled, other.scale, other.format))
  }

  neg(): Quantity {
    return new Quantity(-this.unscaled, this.scale, this.format)
  }

  /** Upstream `String()`: the parsed text when it was canonical, else the canonical form. */
  toString(): string {
    return this.cached ?? canonical(this)
  }

  toJSON(): string {
    return this.toString()
  }
}

/** A quantity of `value × 10^scale` in the given format (upstream `NewScaledQuantity` / `NewQuantity`). */
export const makeQuantity = (value: bigint | number, scale = 0, format: QuantityFormat = "DecimalSI"): Quantity =>
  new Quantity(BigInt(value), scale, format)

export const quantityFromMillis = (milli: bigint | number): Quantity => new Quantity(BigInt(milli), -3, "DecimalSI")

const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9"
const suffixChars = "eEinumkKMGTP"

interface Parts {
  readonly positive: boolean
  /** Sign, digits and point, without the suffix. */
  readonly value: string
  /** Integer digits without leading zeros ("0" when none). */
  readonly num: string
  readonly denom: string
  readonly suffix: string
}

/** Upstream `parseQuantityString`: a hand-written scanner, so `1.`, `.5` and `m` are accepted. */
const parseParts = (str: string): Either.Either<Parts, string> => {
  let positive = true
  let pos = 0
  const end = str.length
  if (pos < end) {
    if (str[0] === "-") {
      positive = false
      pos++
    } else if (str[0] === "+") pos++
  }
  while (pos < end && str[pos] === "0") pos++
  if (pos >= end) return Either.right({ positive, value: "0", num: "0", denom: "", suffix: "" })
  let i = pos
  while (i < end && isDigit(str[i])) i++
  let num = str.slice(pos, i)
  if (i >= end) return Either.right({ positive, value: str, num, denom: "", suffix: "" })
  pos = i
  if (num.length === 0) num = "0"
  let denom = ""
  if (str[pos] === ".") {
    pos++
    let j = pos
    while (j < end && isDigit(str[j])) j++
    denom = str.slice(pos, j)
    if (j >= end) return Either.right({ positive, value: str, num, denom, suffix: "" })
    pos = j
  }
  const value = str.slice(0, pos)
  const suffixStart = pos
  while (pos < end && suffixChars.includes(str[pos]!)) pos++
  if (pos >= end) return Either.right({ positive, value, num, denom, suffix: str.slice(suffixStart) })
  if (str[pos] === "-" || str[pos] === "+") pos++
  while (pos < end && isDigit(str[pos])) pos++
  if (pos >= end) return Either.right({ positive, value, num, denom, suffix: str.slice(suffixStart) })
  return Either.left(ErrFormatWrong)
}

interface Suffix {
  readonly base: 2 | 10
  readonly exponent: number
  readonly format: QuantityFormat
}

const int32Wrap = (n: bigint): number => Number(BigInt.asIntN(32, n))

const interpretSuffix = (suffix: string): Suffix | undefined => {
  const dec = decimalSuffixes.get(suffix)
  if (dec !== undefined) return { base: 10, exponent: dec, format: "DecimalSI" }
  const bin = binarySuffixes.get(suffix)
  if (bin !== undefined) return { base: 2, exponent: bin, format: "BinarySI" }
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E")) {
    const rest = suffix.slice(1)
    if (!/^[+-]?[0-9]+$/.test(rest)) return undefined
    const parsed = BigInt(rest)
    if (parsed > maxInt64 || parsed < -maxInt64 - 1n) return undefined
    return { base: 10, exponent: int32Wrap(parsed), format: "DecimalExponent" }
  }
  return undefined
}

/** Rounds to the nano unit, away from zero (upstream rounds tiny requests up, not to zero). */
const roundToNano = (unscaled: bigint, scale: number): [bigint, number] => {
  if (scale >= nanoScale || unscaled === 0n) return [unscaled, scale]
  const drop = nanoScale - scale
  const digits = abs(unscaled).toString().length
  if (drop > digits) return [unscaled > 0n ? 1n : -1n, nanoScale]
  const d = pow10(drop)
  const q = unscaled / d
  if (unscaled % d === 0n) return [q, nanoScale]
  return [unscaled > 0n ? q + 1n : q - 1n, nanoScale]
}

/** Upstream `resource.ParseQuantity`, with its error texts. */
export const parseQuantity = (str: string): Either.Either<Quantity, string> => {
  if (str.length === 0) return Either.left(ErrFormatWrong)
  if (str === "0") return Either.right(new Quantity(0n, 0, "DecimalSI", "0"))
  const partsOr = parseParts(str)
  if (Either.isLeft(partsOr)) return Either.left(partsOr.left)
  const p = partsOr.right
  const suffix = interpretSuffix(p.suffix)
  if (!suffix) return Either.left(ErrSuffix)

  const shifted = p.num + p.denom
  const digits = BigInt(shifted)
  const signed = p.positive ? digits : -digits

  // Upstream's int64 fast path; when it applies the amount is exact and the text may be kept.
  let precision: number
  let fastScale: number
  let mantissa = 1n
  if (suffix.format === "BinarySI") {
    fastScale = 0
    if (suffix.exponent >= 0 && p.denom.length === 0) {
      mantissa = 1n << BigInt(suffix.exponent)
      precision = 15 - p.num.length - Math.trunc((suffix.exponent * 3) / 10) - 1
    } else precision = -1
  } else {
    fastScale = suffix.exponent
    precision = 18 - (p.num.length + p.denom.length)
  }
  fastScale -= p.denom.length
  if (precision >= 0 && fastScale >= nanoScale && digits <= maxInt64 && digits * mantissa <= maxInt64) {
    const keep =
      suffix.format === "BinarySI"
        ? suffix.exponent % 10 === 0 && (digits & 7n) !== 0n
        : fastScale % 3 === 0 && !shifted.endsWith("000") && shifted[0] !== "0"
    return Either.right(new Quantity(signed * mantissa, fastScale, suffix.format, keep ? str : undefined))
  }

  if (!/[0-9]/.test(p.value)) return Either.left(ErrNumeric)
  let unscaled = signed
  let scale = -p.denom.length
  if (suffix.base === 10) scale += suffix.exponent
  else unscaled *= 1n << BigInt(suffix.exponent)
  ;[unscaled, scale] = roundToNano(unscaled, scale)
  let format = suffix.format
  if (format === "BinarySI") {
    const q = new Quantity(unscaled, scale, format)
    if (q.cmp(makeQuantity(maxInt64)) > 0) [unscaled, scale] = [maxInt64, 0]
    else if (q.cmp(makeQuantity(-maxInt64)) < 0) [unscaled, scale] = [-maxInt64, 0]
    const size = new Quantity(abs(unscaled), scale, format)
    if (size.cmp(makeQuantity(1)) < 0 && unscaled !== 0n) format = "DecimalSI"
  }
  return Either.right(new Quantity(unscaled, scale, format))
}

/** Parses or throws; for literals in code and tests. */
export const quantity = (str: string): Quantity => {
  const q = parseQuantity(str)
  if (Either.isLeft(q)) throw new Error(`invalid quantity ${JSON.stringify(str)}: ${q.left}`)
  return q.right
}

/** Upstream `CanonicalizeBytes`. */
const canonical = (q: Quantity): string => {
  if (q.isZero()) return "0"
  let format = q.format
  if (format === "BinarySI") {
    const exact = q.scaledValue(0)
    if (q.cmp(makeQuantity(-1024)) > 0 && q.cmp(makeQuantity(1024)) < 0) format = "DecimalSI"
    else if (!makeQuantity(exact).equals(q)) format = "DecimalSI"
    else {
      let amount = exact
      let exponent = 0
      while (abs(amount) >= 1024n && amount % 1024n === 0n && exponent < 60) {
        amount /= 1024n
        exponent += 10
      }
      return `${amount}${binarySuffixOf.get(exponent) ?? ""}`
    }
  }
  let amount = q.unscaled
  let exponent = q.scale
  while (abs(amount) >= 10n && amount % 10n === 0n) {
    amount /= 10n
    exponent++
  }
  while (exponent % 3 !== 0) {
    amount *= 10n
    exponent--
  }
  if (format === "DecimalExponent") return exponent === 0 ? `${amount}` : `${amount}e${exponent}`
  // Above exa there is no SI suffix; upstream would drop the suffix, here the amount grows instead.
  while (exponent > 18) {
    amount *= 1000n
    exponent -= 3
  }
  return `${amount}${decimalSuffixOf.get(exponent) ?? ""}`
}

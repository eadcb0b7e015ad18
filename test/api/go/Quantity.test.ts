import { describe, it, expect } from "@effect/vitest"
import { Either } from "effect"
import {
  ErrFormatWrong,
  ErrNumeric,
  ErrSuffix,
  makeQuantity,
  parseQuantity,
  quantity,
  quantityFromMillis
} from "../../../src/api/go/Quantity.js"

const err = (s: string) => {
  const r = parseQuantity(s)
  return Either.isLeft(r) ? r.left : `(parsed as ${r.right})`
}

describe("parseQuantity", () => {
  it("parses decimal, binary and exponent forms to whole and milli units", () => {
    expect(quantity("100m").milliValue()).toBe(100)
    expect(quantity("100m").value()).toBe(1)
    expect(quantity("2").value()).toBe(2)
    expect(quantity("2").milliValue()).toBe(2000)
    expect(quantity("10Mi").value()).toBe(10 * 1024 * 1024)
    expect(quantity("1Gi").value()).toBe(1024 ** 3)
    expect(quantity("1e3").value()).toBe(1000)
    expect(quantity("1E3").value()).toBe(1000)
    expect(quantity("1.5").milliValue()).toBe(1500)
    expect(quantity("1.5Gi").value()).toBe(1.5 * 1024 ** 3)
    expect(quantity("500u").milliValue()).toBe(1)
    expect(quantity("1k").value()).toBe(1000)
    expect(quantity("1M").value()).toBe(1_000_000)
    expect(quantity("1E").scaledValue(0)).toBe(10n ** 18n)
    expect(quantity("-1").value()).toBe(-1)
    expect(quantity("-100m").value()).toBe(-1)
    expect(quantity("+5").value()).toBe(5)
    expect(quantity(".5").milliValue()).toBe(500)
    expect(quantity("1.").value()).toBe(1)
    expect(quantity("1e-3").milliValue()).toBe(1)
    expect(quantity("0").isZero()).toBe(true)
  })

  it("keeps the format of the suffix", () => {
    expect(quantity("1Ki").format).toBe("BinarySI")
    expect(quantity("1k").format).toBe("DecimalSI")
    expect(quantity("1e3").format).toBe("DecimalExponent")
    // binary amounts below one unit become decimal
    expect(quantity("0.0001Ki").format).toBe("DecimalSI")
  })

  it("rounds below the nano unit up, away from zero", () => {
    expect(quantity("0.1n").scaledValue(-9)).toBe(1n)
    expect(quantity("-0.1n").scaledValue(-9)).toBe(-1n)
    // an exponent form stays one: 1e-20 rounds up to 1e-9
    expect(quantity("1e-20").toString()).toBe("1e-9")
  })

  it("rejects what upstream rejects, with its texts", () => {
    expect(err("")).toBe(ErrFormatWrong)
    expect(err("10%")).toBe(ErrFormatWrong)
    expect(err("abc")).toBe(ErrFormatWrong)
    expect(err(" 1")).toBe(ErrFormatWrong)
    expect(err("1 ")).toBe(ErrFormatWrong)
    expect(err("1Mi5x")).toBe(ErrFormatWrong)
    expect(err("1K")).toBe(ErrSuffix)
    expect(err("1Ki5")).toBe(ErrSuffix)
    expect(err("1ee")).toBe(ErrSuffix)
    expect(err("1mi")).toBe(ErrSuffix)
    expect(err(".e-20")).toBe(ErrNumeric)
    expect(ErrFormatWrong).toBe("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")
    expect(ErrSuffix).toBe("unable to parse quantity's suffix")
    expect(ErrNumeric).toBe("unable to parse numeric part of quantity")
  })

  it("accepts upstream's lenient corner cases", () => {
    expect(quantity("m").isZero()).toBe(true)
    expect(quantity("-").isZero()).toBe(true)
    expect(quantity(".").isZero()).toBe(true)
  })

  it("caps binary amounts at the int64 maximum", () => {
    expect(quantity("16Ei").scaledValue(0)).toBe((1n << 63n) - 1n)
  })
})

describe("Quantity formatting", () => {
  it("prints the canonical form", () => {
    const cases: Array<[string, string]> = [
      ["100m", "100m"],
      ["0.1", "100m"],
      ["1000", "1k"],
      ["1500", "1500"],
      ["1.5k", "1500"],
      ["1Gi", "1Gi"],
      ["1024Mi", "1Gi"],
      ["1536Mi", "1536Mi"],
      ["1.5Gi", "1536Mi"],
      ["1e3", "1e3"],
      ["1000e0", "1e3"],
      ["0", "0"],
      ["0Mi", "0"],
      ["-0", "0"],
      ["-100Mi", "-100Mi"],
      ["-1000", "-1k"],
      ["512", "512"],
      ["1Ki", "1Ki"],
      ["0.5Ki", "512"],
      ["10Mi", "10Mi"],
      ["1E", "1E"],
      ["1000E", "1000E"],
      ["0.0001Ki", "102400u"]
    ]
    for (const [input, out] of cases) expect([input, quantity(input).toString()]).toEqual([input, out])
  })

  it("keeps an already canonical text as written, like upstream", () => {
    expect(quantity("0100m").toString()).toBe("0100m")
  })

  it("compares and adds exactly", () => {
    expect(quantity("1Gi").cmp(quantity("1G"))).toBe(1)
    expect(quantity("1000m").equals(quantity("1"))).toBe(true)
    expect(quantity("100m").add(quantity("900m")).value()).toBe(1)
    expect(quantity("1").sub(quantity("1500m")).milliValue()).toBe(-500)
    expect(quantityFromMillis(250).toString()).toBe("250m")
    expect(makeQuantity(3).toString()).toBe("3")
    expect(quantity("-1").sign()).toBe(-1)
  })
})

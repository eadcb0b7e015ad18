/** Go's strconv parsers and float formatting (src/api/go/Strconv.ts), with Go's error texts. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { formatGoFloat, parseGoFloat, parseGoInt, parseGoUint } from "../../../src/api/go/Strconv.js"

describe("parseGoFloat", () => {
  it("decimal, hexadecimal and special values", () => {
    expect(parseGoFloat("1.5", 64)).toStrictEqual(Either.right(1.5))
    expect(parseGoFloat("-.5e1", 64)).toStrictEqual(Either.right(-5))
    expect(parseGoFloat("0x1p-2", 64)).toStrictEqual(Either.right(0.25))
    expect(parseGoFloat("0x1.8p1", 64)).toStrictEqual(Either.right(3))
    expect(parseGoFloat("-Infinity", 64)).toStrictEqual(Either.right(-Infinity))
    expect(Either.getOrThrow(parseGoFloat("NaN", 64))).toBeNaN()
    expect(parseGoFloat("-nan", 64)).toStrictEqual(Either.left('strconv.ParseFloat: parsing "-nan": invalid syntax'))
  })

  it("underscores only between digits (strconv's atof tests)", () => {
    expect(parseGoFloat("1_23.50_0_0e+1_2", 64)).toStrictEqual(Either.right(1.235e14))
    expect(parseGoFloat("0x_1_2.3_4_5p+1_2", 64)).toStrictEqual(Either.right(74565))
    for (const bad of ["_123.5e+12", "1__23.5e+12", "123_.5e+12", "123._5e+12", "123.5e+12_", "-_123.5e+12"]) {
      expect(parseGoFloat(bad, 64)).toStrictEqual(Either.left(`strconv.ParseFloat: parsing "${bad}": invalid syntax`))
    }
  })

  it("rejects what is no number, and what is out of range for the size", () => {
    for (const bad of ["", ".", "e1", "1e", "0x1", "1x", "1.1."]) expect(Either.isLeft(parseGoFloat(bad, 64)), bad).toBe(true)
    expect(parseGoFloat("1e40", 32)).toStrictEqual(Either.left('strconv.ParseFloat: parsing "1e40": value out of range'))
    expect(parseGoFloat("1e40", 64)).toStrictEqual(Either.right(1e40))
    expect(parseGoFloat("1e400", 64)).toStrictEqual(Either.left('strconv.ParseFloat: parsing "1e400": value out of range'))
  })
})

describe("parseGoInt / parseGoUint", () => {
  it("base 0 takes Go's prefixes and underscores; base 10 neither", () => {
    expect(parseGoInt("0x1f", 0, 32)).toStrictEqual(Either.right(31))
    expect(parseGoInt("0_7", 0, 32)).toStrictEqual(Either.right(7))
    expect(parseGoInt("-1_000", 0, 64)).toStrictEqual(Either.right(-1000))
    expect(parseGoInt("1_000", 10, 64)).toStrictEqual(Either.left('strconv.ParseInt: parsing "1_000": invalid syntax'))
    expect(parseGoInt("2147483648", 10, 32)).toStrictEqual(Either.left('strconv.ParseInt: parsing "2147483648": value out of range'))
    expect(parseGoUint("-1", 32)).toStrictEqual(Either.left('strconv.ParseUint: parsing "-1": invalid syntax'))
    expect(parseGoUint("4294967295", 32)).toStrictEqual(Either.right(4294967295))
  })
})

describe("formatGoFloat", () => {
  it("formats as Go's %v of a float64", () => {
    expect(formatGoFloat(0.8)).toBe("0.8")
    expect(formatGoFloat(2)).toBe("2")
    expect(formatGoFloat(123456)).toBe("123456")
    expect(formatGoFloat(1e6)).toBe("1e+06")
    expect(formatGoFloat(1234567)).toBe("1.234567e+06")
    expect(formatGoFloat(0.0001)).toBe("0.0001")
    expect(formatGoFloat(0.00001)).toBe("1e-05")
    expect(formatGoFloat(-1.5e-7)).toBe("-1.5e-07")
  })
})

import { describe, it, expect } from "@effect/vitest"
import { Either } from "effect"
import {
  formatDuration,
  formatDurationNanos,
  parseDuration,
  parseDurationNanos
} from "../../../src/api/go/Duration.js"

const ns = (s: string) => Either.getOrThrow(parseDurationNanos(s))
const err = (s: string) => Either.getLeft(parseDurationNanos(s)).pipe((o) => (o._tag === "Some" ? o.value : "(no error)"))

describe("parseDuration (Go time.ParseDuration)", () => {
  it("parses the config forms", () => {
    expect(ns("1m")).toBe(60_000_000_000n)
    expect(ns("20s")).toBe(20_000_000_000n)
    expect(ns("100ms")).toBe(100_000_000n)
    expect(ns("1h30m")).toBe(5_400_000_000_000n)
    expect(ns("1.5s")).toBe(1_500_000_000n)
    expect(ns("-1s")).toBe(-1_000_000_000n)
    expect(ns("+5m")).toBe(300_000_000_000n)
    expect(ns("0")).toBe(0n)
    expect(ns("-0")).toBe(0n)
    expect(ns("4h")).toBe(14_400_000_000_000n)
    expect(ns(".5s")).toBe(500_000_000n)
    expect(ns("1.s")).toBe(1_000_000_000n)
    expect(ns("1h2m3s4ms5us6ns")).toBe(3_723_004_005_006n)
    expect(ns("1\u00b5s")).toBe(1000n)
    expect(ns("1\u03bcs")).toBe(1000n)
    expect(ns("0.000000001s")).toBe(1n)
    expect(ns("9223372036854775807ns")).toBe(9223372036854775807n)
    expect(ns("-9223372036854775808ns")).toBe(-9223372036854775808n)
  })

  it("gives milliseconds", () => {
    expect(Either.getOrThrow(parseDuration("1m"))).toBe(60_000)
    expect(Either.getOrThrow(parseDuration("1.5us"))).toBe(0.0015)
  })

  it("reports Go's error texts", () => {
    expect(err("")).toBe('time: invalid duration ""')
    expect(err("-")).toBe('time: invalid duration "-"')
    expect(err("abc")).toBe('time: invalid duration "abc"')
    expect(err(".s")).toBe('time: invalid duration ".s"')
    expect(err("1")).toBe('time: missing unit in duration "1"')
    expect(err("1s2")).toBe('time: missing unit in duration "1s2"')
    expect(err("1x")).toBe('time: unknown unit "x" in duration "1x"')
    expect(err("1e3s")).toBe('time: unknown unit "e" in duration "1e3s"')
    expect(err("10 s")).toBe('time: unknown unit " s" in duration "10 s"')
    expect(err("1d")).toBe('time: unknown unit "d" in duration "1d"')
    expect(err("9223372036854775808ns")).toBe('time: invalid duration "9223372036854775808ns"')
    expect(err("3000000h")).toBe('time: invalid duration "3000000h"')
    expect(err("1é")).toBe('time: unknown unit "\\xc3\\xa9" in duration "1\\xc3\\xa9"')
  })
})

describe("formatDuration (Go Duration.String)", () => {
  it("formats milliseconds", () => {
    expect(formatDuration(60_000)).toBe("1m0s")
    expect(formatDuration(20_000)).toBe("20s")
    expect(formatDuration(100)).toBe("100ms")
    expect(formatDuration(5_400_000)).toBe("1h30m0s")
    expect(formatDuration(14_400_000)).toBe("4h0m0s")
    expect(formatDuration(1_500)).toBe("1.5s")
    expect(formatDuration(-1_000)).toBe("-1s")
    expect(formatDuration(0)).toBe("0s")
    expect(formatDuration(1.5)).toBe("1.5ms")
    expect(formatDuration(0.0015)).toBe("1.5\u00b5s")
    expect(formatDuration(0.000001)).toBe("1ns")
  })

  it("formats the int64 extremes", () => {
    expect(formatDurationNanos(9223372036854775807n)).toBe("2562047h47m16.854775807s")
    expect(formatDurationNanos(-9223372036854775808n)).toBe("-2562047h47m16.854775808s")
  })

  it("round-trips", () => {
    for (const s of ["1h0m0s", "2m0s", "30s", "100ms", "1.001s", "-4m30.5s"]) {
      expect(formatDurationNanos(ns(s))).toBe(s)
    }
  })
})

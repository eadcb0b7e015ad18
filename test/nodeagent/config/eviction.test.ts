import { describe, it, expect } from "@effect/vitest"
import { Either } from "effect"
import { quantity } from "../../../src/api/go/Quantity.js"
import { defaultEvictionHard } from "../../../simulator/nodeagent/config/defaults.js"
import { type EvictionConfig, parseGoFloat32, parseThresholdConfig } from "../../../simulator/nodeagent/config/eviction.js"

const errorOf = (config: EvictionConfig): string => {
  const r = parseThresholdConfig(config)
  return Either.isLeft(r) ? r.left : "(no error)"
}
const thresholdsOf = (config: EvictionConfig) => Either.getOrThrow(parseThresholdConfig(config))

describe("eviction threshold parsing (ParseThresholdConfig)", () => {
  it("parses the default hard thresholds", () => {
    expect(thresholdsOf({ evictionHard: defaultEvictionHard })).toStrictEqual([
      { signal: "memory.available", operator: "LessThan", value: { _tag: "Quantity", quantity: quantity("100Mi") }, gracePeriod: 0 },
      { signal: "nodefs.available", operator: "LessThan", value: { _tag: "Percentage", percentage: Math.fround(0.1) }, gracePeriod: 0 },
      { signal: "nodefs.inodesFree", operator: "LessThan", value: { _tag: "Percentage", percentage: Math.fround(0.05) }, gracePeriod: 0 },
      { signal: "imagefs.available", operator: "LessThan", value: { _tag: "Percentage", percentage: Math.fround(0.15) }, gracePeriod: 0 }
    ])
  })

  it("knows every signal", () => {
    const all = {
      "memory.available": "1Mi",
      "allocatableMemory.available": "1Mi",
      "nodefs.available": "1Gi",
      "nodefs.inodesFree": "1k",
      "imagefs.available": "1Gi",
      "imagefs.inodesFree": "1k",
      "pid.available": "100"
    }
    expect(thresholdsOf({ evictionHard: all }).map((t) => t.signal)).toStrictEqual(Object.keys(all))
  })

  it("rejects unknown signals in every map", () => {
    const msg = "unsupported eviction signal memory.free"
    expect(errorOf({ evictionHard: { "memory.free": "1Gi" } })).toBe(msg)
    expect(errorOf({ evictionSoft: { "memory.free": "1Gi" } })).toBe(msg)
    expect(errorOf({ evictionSoftGracePeriod: { "memory.free": "1m" } })).toBe(msg)
    expect(errorOf({ evictionMinimumReclaim: { "memory.free": "1Gi" } })).toBe(msg)
  })

  it("ignores 0% and 100%, so no grace period is needed for them", () => {
    expect(thresholdsOf({ evictionHard: { "nodefs.available": "0%", "imagefs.available": "100%" } })).toStrictEqual([])
    expect(thresholdsOf({ evictionSoft: { "nodefs.available": "0%" } })).toStrictEqual([])
    // only the exact texts are ignored
    expect(thresholdsOf({ evictionHard: { "nodefs.available": "100.0%" } })[0]?.value).toStrictEqual({ _tag: "Percentage", percentage: 1 })
  })

  it("bounds percentages", () => {
    expect(errorOf({ evictionHard: { "nodefs.available": "-5%" } })).toBe(
      "eviction percentage threshold nodefs.available must be >= 0%: -5%"
    )
    expect(errorOf({ evictionHard: { "nodefs.available": "150%" } })).toBe(
      "eviction percentage threshold nodefs.available must be <= 100%: 150%"
    )
    expect(errorOf({ evictionHard: { "nodefs.available": "ten%" } })).toBe('strconv.ParseFloat: parsing "ten": invalid syntax')
  })

  it("returns the quantity parser's error raw, and wants positive quantities", () => {
    expect(errorOf({ evictionHard: { "memory.available": "lots" } })).toBe(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )
    expect(errorOf({ evictionHard: { "memory.available": "0" } })).toBe("eviction threshold memory.available must be positive: 0")
    expect(errorOf({ evictionHard: { "memory.available": "0Mi" } })).toBe("eviction threshold memory.available must be positive: 0")
    expect(errorOf({ evictionHard: { "memory.available": "-100Mi" } })).toBe(
      "eviction threshold memory.available must be positive: -100Mi"
    )
    expect(errorOf({ evictionHard: { "memory.available": "-1000" } })).toBe("eviction threshold memory.available must be positive: -1k")
  })

  it("needs a grace period for every soft threshold", () => {
    expect(errorOf({ evictionSoft: { "memory.available": "200Mi" } })).toBe(
      "grace period must be specified for the soft eviction threshold memory.available"
    )
    expect(
      errorOf({ evictionSoft: { "memory.available": "200Mi" }, evictionSoftGracePeriod: { "nodefs.available": "1m" } })
    ).toBe("grace period must be specified for the soft eviction threshold memory.available")
    expect(
      thresholdsOf({ evictionSoft: { "memory.available": "200Mi" }, evictionSoftGracePeriod: { "memory.available": "1m30s" } })
    ).toStrictEqual([
      { signal: "memory.available", operator: "LessThan", value: { _tag: "Quantity", quantity: quantity("200Mi") }, gracePeriod: 90_000 }
    ])
  })

  it("checks grace periods", () => {
    expect(errorOf({ evictionSoftGracePeriod: { "memory.available": "soon" } })).toBe('time: invalid duration "soon"')
    expect(errorOf({ evictionSoftGracePeriod: { "memory.available": "-1m" } })).toBe(
      "invalid eviction grace period specified: -1m, must be a positive value"
    )
  })

  it("checks and attaches minimum reclaim to hard and soft thresholds", () => {
    expect(errorOf({ evictionMinimumReclaim: { "nodefs.available": "0%" } })).toBe(
      "eviction percentage minimum reclaim nodefs.available must be positive: 0%"
    )
    expect(errorOf({ evictionMinimumReclaim: { "nodefs.available": "-1%" } })).toBe(
      "eviction percentage minimum reclaim nodefs.available must be positive: -1%"
    )
    expect(errorOf({ evictionMinimumReclaim: { "memory.available": "-1Mi" } })).toBe(
      "negative eviction minimum reclaim specified for memory.available"
    )
    expect(errorOf({ evictionMinimumReclaim: { "memory.available": "1 Mi" } })).toBe(
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    )
    const ts = thresholdsOf({
      evictionHard: { "memory.available": "100Mi" },
      evictionSoft: { "memory.available": "300Mi" },
      evictionSoftGracePeriod: { "memory.available": "30s" },
      evictionMinimumReclaim: { "memory.available": "0", "nodefs.available": "150%" }
    })
    expect(ts.map((t) => [t.gracePeriod, t.minReclaim])).toStrictEqual([
      [0, { _tag: "Quantity", quantity: quantity("0") }],
      [30_000, { _tag: "Quantity", quantity: quantity("0") }]
    ])
  })

  it("copies hard memory.available to allocatableMemory.available when pods are enforced", () => {
    const ts = thresholdsOf({
      evictionHard: { "memory.available": "100Mi", "nodefs.available": "10%" },
      evictionSoft: { "memory.available": "300Mi" },
      evictionSoftGracePeriod: { "memory.available": "30s" },
      enforceNodeAllocatable: ["pods"]
    })
    expect(ts.map((t) => [t.signal, t.gracePeriod])).toStrictEqual([
      ["memory.available", 0],
      ["nodefs.available", 0],
      ["memory.available", 30_000],
      ["allocatableMemory.available", 0]
    ])
    expect(ts[3]?.value).toStrictEqual({ _tag: "Quantity", quantity: quantity("100Mi") })
    expect(thresholdsOf({ evictionHard: { "memory.available": "100Mi" }, enforceNodeAllocatable: [] })).toHaveLength(1)
  })

  it("reports the first bad entry in document order", () => {
    expect(errorOf({ evictionHard: { "memory.available": "0", "nodefs.available": "200%" } })).toBe(
      "eviction threshold memory.available must be positive: 0"
    )
    // hard thresholds are parsed before soft ones, grace periods and minimum reclaim
    expect(errorOf({ evictionMinimumReclaim: { x: "1" }, evictionHard: { y: "1" } })).toBe("unsupported eviction signal y")
  })
})

describe("Go float parsing for percentages", () => {
  it("accepts Go's float syntax and rejects the rest", () => {
    expect(parseGoFloat32("10")).toStrictEqual(Either.right(10))
    expect(parseGoFloat32("1e1")).toStrictEqual(Either.right(10))
    expect(parseGoFloat32(".5")).toStrictEqual(Either.right(0.5))
    expect(parseGoFloat32("+Inf")).toStrictEqual(Either.right(Infinity))
    expect(parseGoFloat32("0x1p-2")).toStrictEqual(Either.right(0.25))
    // underscores between digits, as Go's float literals (strconv's atof tests: "1_23.50_0_0e+1_2" is 1.235e+14)
    expect(parseGoFloat32("1_0")).toStrictEqual(Either.right(10))
    expect(parseGoFloat32("1__0")).toStrictEqual(Either.left('strconv.ParseFloat: parsing "1__0": invalid syntax'))
    expect(parseGoFloat32("")).toStrictEqual(Either.left('strconv.ParseFloat: parsing "": invalid syntax'))
    expect(parseGoFloat32("1e40")).toStrictEqual(Either.left('strconv.ParseFloat: parsing "1e40": value out of range'))
  })
})

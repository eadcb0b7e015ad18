import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { goJsonSize, jsonPatch, maxJsonPatchCopyBytes } from "../../../src/api/patch/JsonPatch.js"
import { makeWorkBudget } from "../../../src/api/patch/WorkBudget.js"

const unprocessable = { code: 422, reason: "Invalid", message: "the server rejected our request due to an error in our request", details: {} }
const statusOf = (r: Either.Either<unknown, { status: unknown }>) => (Either.isLeft(r) ? r.left.status : undefined)

describe("goJsonSize", () => {
  it("is the length of Go's json.Marshal output: compact, HTML and line separators escaped, UTF-8", () => {
    expect(goJsonSize({ a: [1, true, null, "x"], b: {} }, Infinity)).toBe(JSON.stringify({ a: [1, true, null, "x"], b: {} }).length)
    // "<>&" are \u003c\u003e\u0026 in Go; \n stays 2 bytes; \u0001 is 6; é is 2 bytes, € 3, 😀 4, a lone surrogate U+FFFD's 3.
    expect(goJsonSize("<>&", Infinity)).toBe(2 + 18)
    expect(goJsonSize("\n\u0001", Infinity)).toBe(2 + 2 + 6)
    expect(goJsonSize("é€😀\ud800", Infinity)).toBe(2 + 2 + 3 + 4 + 3)
    expect(goJsonSize("\u2028", Infinity)).toBe(2 + 6)
  })

  it("stops past its cap", () => {
    const big = Array.from({ length: 100_000 }, () => "xxxxxxxx")
    expect(goJsonSize(big, 100)).toBeGreaterThan(100)
    expect(goJsonSize(big, Infinity)).toBe(JSON.stringify(big).length)
  })
})

describe("JSON patch copy limit (json-patch AccumulatedCopySizeLimit, 3 MiB)", () => {
  // A value of exactly 1 MiB as Go writes it: the quotes count.
  const mib = "v".repeat(1024 * 1024 - 2)
  const copies = (n: number) => [{ op: "add", path: "/b", value: mib }, ...Array.from({ length: n }, (_, i) => ({ op: "copy", from: "/b", path: `/c${i}` }))]

  it("allows copies adding up to exactly the limit and refuses one byte more with the generic 422", () => {
    expect(maxJsonPatchCopyBytes).toBe(3145728)
    expect(Either.isRight(jsonPatch({}, copies(3)))).toBe(true)
    expect(statusOf(jsonPatch({}, [...copies(3), { op: "add", path: "/one", value: 1 }, { op: "copy", from: "/one", path: "/two" }]))).toMatchObject(unprocessable)
    expect(statusOf(jsonPatch({}, copies(4)))).toMatchObject(unprocessable)
  })

  it("counts a copied null as 0 bytes, as json-patch v4's nil node", () => {
    const nulls = [...copies(3), { op: "add", path: "/n", value: null }, ...Array.from({ length: 100 }, (_, i) => ({ op: "copy", from: "/n", path: `/n${i}` }))]
    expect(Either.isRight(jsonPatch({}, nulls))).toBe(true)
  })

  it("refuses a doubling bomb before building it, leaving the target as it was", () => {
    const target = { data: { k: "v" } }
    const bomb = [
      { op: "add", path: "/b", value: { a: Array.from({ length: 1000 }, (_, i) => i) } },
      ...Array.from({ length: 30 }, (_, i) => ({ op: "copy", from: "/b", path: `/b/c${i}` }))
    ]
    expect(statusOf(jsonPatch(target, bomb))).toMatchObject(unprocessable)
    expect(target).toEqual({ data: { k: "v" } })
  })
})

describe("JSON patch work budget", () => {
  it("pays for the items each move shifts; past the budget the 422 names it in a cause", () => {
    const target = { b: Array.from({ length: 1000 }, (_, i) => i) }
    const moves = Array.from({ length: 100 }, () => ({ op: "move", from: "/b/0", path: "/b/-" }))
    // 100 removals at the front shift 999 items each; the paths cost 16 steps a byte.
    expect(Either.isRight(jsonPatch(target, moves, makeWorkBudget(120_000)))).toBe(true)
    expect(statusOf(jsonPatch(target, moves, makeWorkBudget(90_000)))).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      code: 422,
      reason: "Invalid",
      message: "the server rejected our request due to an error in our request",
      details: {
        causes: [
          {
            reason: "UnexpectedServerResponse",
            message: "the patch takes more than 90000 steps of work to apply (clustersim's bound on one request's CPU time, docs/limits.md)"
          }
        ]
      }
    })
  })

  it("applies 10,000 moves over a 10,000-item array within the default budget, in order", () => {
    const target = { b: Array.from({ length: 10_000 }, (_, i) => i) }
    const moves = Array.from({ length: 10_000 }, () => ({ op: "move", from: "/b/9999", path: "/b/0" }))
    const out = jsonPatch(target, moves)
    expect(Either.isRight(out) && (out.right as { b: number[] }).b).toEqual(target.b)
  })
})

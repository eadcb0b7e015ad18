import { describe, expect, it } from "@effect/vitest"
import { roundOrder, williamsRows } from "../../src/compare/RoundOrder.js"

/** How often each target runs at each position, and how often each ordered pair runs back to back. */
const balance = (rows: ReadonlyArray<ReadonlyArray<number>>, n: number) => {
  const positions = Array.from({ length: n }, () => Array<number>(n).fill(0))
  const follows = new Map<string, number>()
  for (const row of rows)
    row.forEach((t, p) => {
      positions[t]![p]!++
      if (p > 0) follows.set(`${row[p - 1]}>${t}`, (follows.get(`${row[p - 1]}>${t}`) ?? 0) + 1)
    })
  return { positions, follows }
}

describe("round order", () => {
  it("two targets alternate: A B, B A, A B", () => {
    expect([0, 1, 2].map((r) => roundOrder(r, 2))).toEqual([[0, 1], [1, 0], [0, 1]])
  })

  it("three targets: six rows, each target at each position twice, each ordered pair adjacent twice (no target always in the middle)", () => {
    const rows = williamsRows(3)
    expect(rows).toHaveLength(6)
    const { positions, follows } = balance(rows, 3)
    expect(positions).toEqual([[2, 2, 2], [2, 2, 2], [2, 2, 2]])
    expect([...follows.values()]).toEqual(Array(6).fill(2))
    expect(follows.size).toBe(6)
  })

  it("four targets: a square of four rows, each position once, each ordered pair adjacent once", () => {
    const rows = williamsRows(4)
    expect(rows).toHaveLength(4)
    const { positions, follows } = balance(rows, 4)
    expect(positions.every((p) => p.every((c) => c === 1))).toBe(true)
    expect(follows.size).toBe(12)
    expect([...follows.values()].every((c) => c === 1)).toBe(true)
  })

  it("every row is a permutation of the targets", () => {
    for (let n = 1; n <= 7; n++) for (const row of williamsRows(n)) expect([...row].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i))
  })
})

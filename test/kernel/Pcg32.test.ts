/** The simulator's PCG32 draws exactly what Effect's `PCGRandom` draws for the same seed (the result hashes rest on it). */
import { describe, expect, it } from "@effect/vitest"
import { PCGRandom } from "effect/Utils"
import { Pcg32 } from "../../simulator/kernel/Pcg32.js"

describe("Pcg32", () => {
  it("draws Effect's PCGRandom's numbers, bit for bit, for seeds across the 32-bit range", () => {
    for (const seed of [0, 1, 2, 42, 0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff, 123456789, 3141592653]) {
      const theirs = new PCGRandom(seed)
      const ours = new Pcg32(seed)
      const mismatches: Array<number> = []
      for (let i = 0; i < 100_000 && mismatches.length < 3; i++) if (ours.number() !== theirs.number()) mismatches.push(i)
      expect(mismatches, `seed ${seed}`).toEqual([])
    }
  })

  it("takes a seed as PCGRandom does: its 32-bit unsigned value", () => {
    for (const seed of [-1, 2 ** 32 + 5, 1.5]) {
      const theirs = new PCGRandom(seed)
      const ours = new Pcg32(seed)
      expect([ours.number(), ours.number()]).toEqual([theirs.number(), theirs.number()])
    }
  })
})

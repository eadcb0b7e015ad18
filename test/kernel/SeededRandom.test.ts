import { describe, expect, it } from "@effect/vitest"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Random from "effect/Random"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"

const draws = (rng: SeededRandom.SeededRandomService, n: number) => Array.from({ length: n }, () => rng.next())

describe("SeededRandom", () => {
  it("same seed ⇒ same draws; another seed ⇒ other draws", () => {
    const a = draws(SeededRandom.make(42), 100)
    expect(draws(SeededRandom.make(42), 100)).toEqual(a)
    expect(draws(SeededRandom.make(43), 100)).not.toEqual(a)
    expect(a.every((x) => x >= 0 && x < 1)).toBe(true)
  })

  it("is roughly uniform", () => {
    const rng = SeededRandom.make(1)
    const buckets = new Array<number>(10).fill(0)
    for (let i = 0; i < 100_000; i++) buckets[Math.floor(rng.next() * 10)]!++
    for (const b of buckets) expect(Math.abs(b - 10_000)).toBeLessThan(500)
  })

  it("between and intBetween stay in range and hit both ends of an int range", () => {
    const rng = SeededRandom.make(5)
    const ints = new Set<number>()
    for (let i = 0; i < 10_000; i++) {
      const x = rng.between(-3, 7)
      expect(x).toBeGreaterThanOrEqual(-3)
      expect(x).toBeLessThan(7)
      ints.add(rng.intBetween(2, 6))
    }
    expect([...ints].sort()).toEqual([2, 3, 4, 5])
  })

  it("jitter follows client-go wait.Jitter: d + rand·factor·d, factor ≤ 0 means 1", () => {
    const rng = SeededRandom.make(9)
    const lease = Array.from({ length: 2_000 }, () => Duration.toMillis(rng.jitter("10 seconds", 0.04)))
    expect(Math.min(...lease)).toBeGreaterThanOrEqual(10_000)
    expect(Math.max(...lease)).toBeLessThan(10_400)
    expect(Math.max(...lease)).toBeGreaterThan(10_390)
    const full = Array.from({ length: 2_000 }, () => Duration.toMillis(rng.jitter(1_000, 0)))
    expect(Math.min(...full)).toBeGreaterThanOrEqual(1_000)
    expect(Math.max(...full)).toBeGreaterThan(1_950)
    // Same value as computed by hand from the same stream.
    const x = SeededRandom.make(9).next()
    expect(Duration.toMillis(SeededRandom.make(9).jitter("10 seconds", 0.04))).toBeCloseTo(10_000 + x * 400, 6)
  })

  it("split gives independent, reproducible streams", () => {
    const root = SeededRandom.make(11)
    const a = draws(root.split("node-1"), 20)
    expect(draws(SeededRandom.make(11).split("node-1"), 20)).toEqual(a)
    expect(draws(root.split("node-2"), 20)).not.toEqual(a)
    expect(draws(root, 20)).not.toEqual(a)
    // Splitting does not consume from the parent.
    expect(draws(root, 5)).toEqual(draws(SeededRandom.make(11), 25).slice(20))
  })

  it("folds any number into a 32-bit seed", () => {
    expect(SeededRandom.toSeed(7)).toBe(7)
    const big = SeededRandom.toSeed(2 ** 40 + 3)
    expect(Number.isInteger(big) && big >= 0 && big <= 0xffffffff).toBe(true)
    expect(SeededRandom.toSeed(0.5)).toBe(SeededRandom.toSeed(0.5))
    expect(SeededRandom.toSeed(0.5)).not.toBe(SeededRandom.toSeed(0.25))
  })

  it.effect("layer provides SeededRandom and a seeded Effect Random", () =>
    Effect.gen(function*() {
      const program = Effect.gen(function*() {
        const rng = yield* SeededRandom.SeededRandom
        return [rng.next(), yield* Random.next, yield* Random.nextIntBetween(0, 1_000_000)] as const
      })
      const a = yield* Effect.provide(program, SeededRandom.layer(21))
      const b = yield* Effect.provide(program, SeededRandom.layer(21))
      const c = yield* Effect.provide(program, SeededRandom.layer(22))
      expect(b).toEqual(a)
      expect(c).not.toEqual(a)
      expect(a[0]).toBe(SeededRandom.make(21).next())
    }))
})

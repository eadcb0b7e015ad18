/**
 * The uids the server and the seeding write (`SystemMeta.uuidV4`, `ClusterSetup.fastUid`) are written straight into
 * one string for speed (docs/benchmarks.md); they must stay the very uids the joined-and-sliced forms gave, from the
 * same draws, or every same-seed result would change. The reference forms below are those forms, kept here.
 */
import { describe, expect, it } from "@effect/vitest"
import { PCGRandom } from "effect/Utils"
import { uuidV4 } from "../../simulator/apiserver/SystemMeta.js"
import { fastUid } from "../../simulator/cluster/ClusterSetup.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"

const referenceUuidV4 = (random: () => number): string => {
  const hex: string[] = []
  for (let i = 0; i < 32; i++) hex.push(Math.floor(random() * 16).toString(16))
  hex[12] = "4"
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  const h = hex.join("")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

const hex = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"))
const hex32 = (random: SeededRandom.SeededRandomService): string => {
  const n = Math.floor(random.next() * 0x100000000)
  return hex[n >>> 24]! + hex[(n >>> 16) & 0xff]! + hex[(n >>> 8) & 0xff]! + hex[n & 0xff]!
}
const referenceFastUid = (random: SeededRandom.SeededRandomService): string => {
  const a = hex32(random)
  const b = hex32(random)
  const c = hex32(random)
  const d = hex32(random)
  const variant = ((parseInt(c[0]!, 16) & 0x3) | 0x8).toString(16)
  return [a, "-", b.slice(0, 4), "-4", b.slice(5, 8), "-", variant, c.slice(1, 4), "-", c.slice(4, 8), d].join("")
}

const v4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

describe("uids", () => {
  it("uuidV4 gives the reference uid from the same 32 draws, for 5,000 uids of several seeds", () => {
    for (const seed of [1, 7, 0xdeadbeef]) {
      const ours = new PCGRandom(seed)
      const theirs = new PCGRandom(seed)
      const got: string[] = []
      const want: string[] = []
      for (let i = 0; i < 5_000; i++) {
        got.push(uuidV4(() => ours.number()))
        want.push(referenceUuidV4(() => theirs.number()))
      }
      expect(got).toEqual(want)
      expect(got.every((uid) => v4.test(uid))).toBe(true)
      // the same number of draws: the streams are still in step
      expect(ours.number()).toBe(theirs.number())
    }
  })

  it("uuidV4 covers every digit in every place (the edges of the draws included)", () => {
    for (const r of [0, 0.0625, 0.5, 0.9375, 0.999999999]) expect(uuidV4(() => r)).toBe(referenceUuidV4(() => r))
    const digits = new Set<string>()
    const random = new PCGRandom(3)
    for (let i = 0; i < 200; i++) for (const c of uuidV4(() => random.number()).replaceAll("-", "")) digits.add(c)
    expect([...digits].sort().join("")).toBe("0123456789abcdef")
  })

  it("fastUid gives the reference uid from the same four draws, for 5,000 uids of several seeds", () => {
    for (const seed of [1, 7, 0xdeadbeef]) {
      const ours = SeededRandom.make(seed).split("pods")
      const theirs = SeededRandom.make(seed).split("pods")
      const got: string[] = []
      const want: string[] = []
      for (let i = 0; i < 5_000; i++) {
        got.push(fastUid(ours))
        want.push(referenceFastUid(theirs))
      }
      expect(got).toEqual(want)
      expect(got.every((uid) => v4.test(uid))).toBe(true)
      expect(ours.next()).toBe(theirs.next())
    }
  })
})

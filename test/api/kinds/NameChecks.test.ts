/**
 * The allocation-free checks a label goes through first (`isQualifiedNameOk`, `isLabelValueOk`) must pass exactly the
 * strings the message-building checks (`isQualifiedName`, `isValidLabelValue`) find nothing wrong with: a label
 * they let through is never validated again.
 */
import { describe, expect, it } from "@effect/vitest"
import { isLabelValueOk, isQualifiedName, isQualifiedNameOk, isValidLabelValue } from "../../../src/api/kinds/Names.js"

const pieces = ["a", "Z", "0", "9", "-", "_", ".", "/", "é", " ", "kubernetes.io", "example.com", "x".repeat(63), "y".repeat(64), "a".repeat(250), "A-b_c.d", "-a", "a-", "..", ""]

/** Strings from the alphabet the rules care about: edges, separators, lengths around the limits, non-ASCII. */
const samples = (): string[] => {
  const out = new Set<string>(pieces)
  for (const p of pieces) for (const q of pieces) {
    out.add(p + q)
    // as a prefix, then as a name under a prefix
    out.add(`${p}${q}a/name`)
    out.add(`a${p}${q}.io/name`)
    out.add(`example.com/${p}${q}`)
    for (const r of pieces) out.add(p + q + r)
  }
  // deterministic pseudo-random strings over the same alphabet
  let x = 12345
  const chars = "aZ09-_./é"
  for (let i = 0; i < 20_000; i++) {
    let s = ""
    const n = (x = (x * 1103515245 + 12345) >>> 0) % 12
    for (let j = 0; j < n; j++) s += chars[(x = (x * 1103515245 + 12345) >>> 0) % chars.length]
    out.add(s)
  }
  return [...out]
}

describe("name checks without messages", () => {
  const all = samples()

  it("isQualifiedNameOk passes exactly what isQualifiedName finds nothing wrong with", () => {
    const differing = all.filter((s) => isQualifiedNameOk(s) !== (isQualifiedName(s).length === 0))
    expect(differing).toEqual([])
    // both verdicts occur, with and without a prefix
    expect(isQualifiedNameOk("kubernetes.io/hostname")).toBe(true)
    expect(isQualifiedNameOk("kubernetes.io/")).toBe(false)
    expect(isQualifiedNameOk("Kubernetes.io/a")).toBe(false)
    expect(isQualifiedNameOk("a/b/c")).toBe(false)
    expect(isQualifiedNameOk(`${"a".repeat(254)}/b`)).toBe(false)
  })

  it("isLabelValueOk passes exactly what isValidLabelValue finds nothing wrong with", () => {
    const differing = all.filter((s) => isLabelValueOk(s) !== (isValidLabelValue(s).length === 0))
    expect(differing).toEqual([])
    expect(isLabelValueOk("")).toBe(true)
    expect(isLabelValueOk("x".repeat(64))).toBe(false)
  })
})

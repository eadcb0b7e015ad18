/**
 * A revision's text made from its kept thousands and a three-digit table (simulator/apiserver/RevisionText.ts) is
 * `String(revision)`, revision by revision as the store counts, across every thousand and power of ten met, and after
 * a jump back or forward (two stores of one process counting apart).
 */
import { describe, expect, it } from "@effect/vitest"
import { revisionText } from "../../simulator/apiserver/RevisionText.js"

describe("revisionText", () => {
  it("is String(revision), one revision after the other and after jumps", () => {
    for (let revision = 0; revision < 25_000; revision++) expect(revisionText(revision)).toBe(String(revision))
    for (const from of [99_990, 999_995, 1_000_000 - 1_001, 123_456_789, 2 ** 31 - 5, 2 ** 32 - 3, 999_999_999_995, 7, 4_500, 4_499, 1e15 - 3, Number.MAX_SAFE_INTEGER - 2])
      for (let revision = from; revision < from + 12 && revision <= Number.MAX_SAFE_INTEGER; revision++) expect(revisionText(revision)).toBe(String(revision))
  })
})

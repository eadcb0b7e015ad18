/** `clustersim replay`'s bounded heap growth (app/cli/HeapGrowth.ts): a user's own heap flags stand. */
import { describe, expect, it } from "@effect/vitest"
import { heapChosenByUser } from "../../app/cli/HeapGrowth.js"

describe("heapChosenByUser", () => {
  it("sees the heap's size or growth chosen in Node's flags or NODE_OPTIONS, either spelling", () => {
    expect(heapChosenByUser([], undefined)).toBe(false)
    expect(heapChosenByUser(["--enable-source-maps"], "--trace-warnings")).toBe(false)
    expect(heapChosenByUser(["--max-old-space-size=512"], undefined)).toBe(true)
    expect(heapChosenByUser(["--max_old_space_size=512"], undefined)).toBe(true)
    expect(heapChosenByUser([], "--trace-warnings --max-old-space-size=2048")).toBe(true)
    expect(heapChosenByUser([], "--heap-growing-percent=20")).toBe(true)
    expect(heapChosenByUser(["--max-heap-size=300"], "")).toBe(true)
    // a semi-space flag sizes the young generation only: the old one's growth is still ours to bound
    expect(heapChosenByUser(["--max-semi-space-size=64"], undefined)).toBe(false)
  })
})

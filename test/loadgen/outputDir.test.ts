/** Where a run's and a comparison's output go by default: `runs/`, apart from the sources in `reports/`. */
import { describe, expect, it } from "@effect/vitest"
import { defaultCompareDir, defaultOutDir, outputRoot } from "../../src/loadgen/Artifact.js"

const at = new Date("2026-11-25T22:30:00.123Z")

describe("default output directories", () => {
  it("a run: runs/<timestamp>-<name>; a comparison: runs/compare/<timestamp>", () => {
    expect(outputRoot).toBe("runs")
    expect(defaultOutDir("quickstart", at)).toBe("runs/2026-11-25T22-30-00Z-quickstart")
    expect(defaultCompareDir(at)).toBe("runs/compare/2026-11-25T22-30-00Z")
  })
})

/**
 * The coordinator's pure parts of `--workers` (app/cli/GeneratorWorkers.ts): the default worker count and the merge
 * of the workers' action reports. The workers as processes are test/system/cli/workers.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { defaultWorkers } from "../../app/cli/GeneratorWorkers.js"
import { mergeActions } from "../../src/loadgen/WorkerMerge.js"
import type { ActionReport } from "../../src/loadgen/Artifact.js"

describe("generator workers, the coordinator's arithmetic", () => {
  it("defaults to the machine's cores, one fewer beside a server on this machine, never none", () => {
    expect(defaultWorkers(8, false)).toBe(8)
    expect(defaultWorkers(8, true)).toBe(7)
    expect(defaultWorkers(1, true)).toBe(1)
  })

  it("merges one report per (phase, action), in the first worker's order, counts summed key by key", () => {
    const report = (phase: string, action: string, counts: Record<string, number>): ActionReport => ({ phase, action, type: "watch", counts })
    const merged = mergeActions([
      [report("load", "w", { opened: 2 }), report("load", "x", { opened: 1 })],
      [report("load", "w", { opened: 3, dropped: 1 }), report("tail", "w", { opened: 4 })]
    ])
    expect(merged).toEqual([
      { phase: "load", action: "w", type: "watch", counts: { opened: 5, dropped: 1 } },
      { phase: "load", action: "x", type: "watch", counts: { opened: 1 } },
      { phase: "tail", action: "w", type: "watch", counts: { opened: 4 } }
    ])
  })
})

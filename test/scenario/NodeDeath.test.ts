/** The shipped node-death scenario passes on its cluster thresholds: exactly the stopped and partitioned nodes leave Ready. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runCommand } from "../../app/cli/run.js"

describe("scenarios/cluster/node-death.yaml", () => {
  it("passes: 5 nodes leave Ready (Unknown), the 3 partitioned come back, the pause fails lease writes", async () => {
    const out: Array<string> = []
    const r = await Effect.runPromise(
      runCommand({ file: "scenarios/cluster/node-death.yaml", target: { _tag: "in-process" }, outDir: mkdtempSync(join(tmpdir(), "node-death-")), tty: false, stdout: (s) => void out.push(s), stderr: () => {} })
    )
    expect(r.exitCode).toBe(0)
    const observed = Object.fromEntries(r.artifact!.thresholds.map((t) => [t.threshold, [t.observed, t.passed]]))
    expect(observed).toMatchObject({
      not_ready_nodes: [5, true],
      "ready_transitions{status:Unknown}": [5, true],
      "ready_transitions{status:True}": [3, true],
      lease_failures: [expect.any(Number), true]
    })
    expect(out.join("")).toContain("✓ not_ready_nodes: count == 5 (observed 5)")
  }, 300_000)
})

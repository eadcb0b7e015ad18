import { Effect } from "effect"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { runCommand } from "../../app/cli/run.js"

describe("run with a seed given twice", () => {
  it("--set seed=5 with --seed 7 is refused (exit 2) before anything runs: run.json would record 5 for a run seeded 7", async () => {
    const err: Array<string> = []
    const r = await Effect.runPromise(
      runCommand({ file: "scenarios/quickstart.yaml", sets: ["seed=5"], seed: 7, target: { _tag: "in-process" }, outDir: mkdtempSync(join(tmpdir(), "seed-twice-")), tty: false, stdout: () => {}, stderr: (s) => void err.push(s) })
    )
    expect(r.exitCode).toBe(2)
    expect(err.join("")).toBe("clustersim: --set seed=5 with --seed 7: give the seed once\n")
  })
})

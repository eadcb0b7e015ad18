/** Without a terminal (CI, a pipe) a run's progress comes as whole lines on stderr: percent, of the total, ETA. */
import { Effect } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { runCommand } from "../../app/cli/run.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-progress-"))

describe("progress without a terminal", () => {
  it("a load run writes a line per phase with percent of the phases' total, ETA, phase, rate, errors", async () => {
    const file = join(dir, "two-phases.yaml")
    writeFileSync(
      file,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: two-phases }
setup:
  namespaces: [p]
  objects: [{ name: cms, resource: configmaps, namespace: p, count: 3 }]
phases:
  - name: first
    duration: 1s
    actions: [{ type: constant-arrival-rate, name: get, rate: 20, request: { verb: get, objects: cms } }]
  - name: second
    duration: 1500ms
    actions: [{ type: constant-arrival-rate, name: get, rate: 20, request: { verb: get, objects: cms } }]
`
    )
    const err: Array<string> = []
    const r = await Effect.runPromise(runCommand({ file, target: { _tag: "in-process" }, outDir: join(dir, "out"), tty: false, stdout: () => {}, stderr: (s) => void err.push(s) }))
    expect(r.exitCode).toBe(0)
    const lines = err.join("").split("\n").filter((l) => l.startsWith("["))
    expect(lines.length).toBeGreaterThanOrEqual(2)
    for (const l of lines) expect(l).toMatch(/^\[ {0,2}\d{1,3}%\] \d+s \/ 3s · ETA (\d+ s|—) · phase [a-z]+ · \d+ ops\/s · \d+ ops · \d+ errors$/)
    // a line per phase: each phase the run went through is named
    expect(lines.some((l) => l.includes("· phase second ·"))).toBe(true)
    // no terminal: no carriage returns or escape codes
    expect(err.join("")).not.toMatch(/\r|\x1b/)
  })
})

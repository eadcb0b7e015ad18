/**
 * `--set` and `${VAR}` reach the generator workers: each worker process reads the scenario file itself, so the
 * coordinator sends it the overrides and the variables' values; the workers' shares of the overridden rates add up
 * to the overridden plan.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const scenario = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: what-if-workers }
setup:
  objects:
    - { name: cms, resource: configmaps, count: 6, template: { data: { k: v } } }
phases:
  - name: load
    duration: 3s
    actions:
      - type: constant-arrival-rate
        name: gets
        rate: 20
        maxInFlight: 1000
        request: { verb: get, objects: cms }
      - type: constant-arrival-rate
        name: lists
        rate: \${WHATIF_LIST_RATE}
        maxInFlight: 1000
        request: { verb: list, resource: configmaps }
outcome: { maxErrorRate: 0 }
`

const runCli = (args: ReadonlyArray<string>, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("error", reject)
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

describe("what-if inputs with generator workers", () => {
  it("--workers 2 with --set and ${VAR}: every worker runs the effective scenario", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clustersim-whatif-workers-"))
    const file = join(dir, "s.yaml")
    writeFileSync(file, scenario)
    const r = await runCli(["run", file, "--workers", "2", "--set", "phases[0].actions[0].rate=30", "--out", join(dir, "out")], { WHATIF_LIST_RATE: "4" })
    expect(r.code, r.stderr).toBe(0)
    const artifact = JSON.parse(readFileSync(join(dir, "out", "run.json"), "utf8"))
    expect(artifact.health.workers).toHaveLength(2)
    expect(artifact.scenario.sets).toEqual(["phases[0].actions[0].rate=30"])
    expect(artifact.scenario.variables).toEqual(["WHATIF_LIST_RATE"])
    // 30/s and 4/s for 3 s, split between the workers: a worker on the file's 20/s would make it 75
    expect(artifact.actions.find((a: { action: string }) => a.action === "gets").executor.planned).toBe(90)
    expect(artifact.actions.find((a: { action: string }) => a.action === "lists").executor.planned).toBe(12)
  }, 240_000)
})

/**
 * `--workers` and the embedded server's own process, end to end through the CLI as its own process: the run's
 * rate split across two generator processes adds up to the plan, their recordings merge into one artifact, each
 * worker's health is reported, and the server ran in a process of its own (gone after the run).
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const scenario = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: two-workers }
setup:
  objects:
    - { name: cms, resource: configmaps, count: 6, template: { data: { k: v } } }
phases:
  - name: load
    duration: 3s
    actions:
      - { type: constant-arrival-rate, name: gets, rate: 20, maxInFlight: 1000, request: { verb: get, objects: cms } }
      - { type: constant-arrival-rate, name: pb, rate: 10, maxInFlight: 1000, request: { verb: get, objects: cms, encoding: protobuf } }
outcome: { maxErrorRate: 0 }
`

const runCli = (args: ReadonlyArray<string>): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("error", reject)
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

describe("generator workers", () => {
  it("--workers 2 on the embedded server: the shares sum to the plan, one merged artifact, each worker's health", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clustersim-workers-"))
    const file = join(dir, "s.yaml")
    writeFileSync(file, scenario)
    const r = await runCli(["run", file, "--workers", "2", "--out", join(dir, "out")])
    expect(r.code, r.stderr).toBe(0)
    const artifact = JSON.parse(readFileSync(join(dir, "out", "run.json"), "utf8"))
    expect(artifact.target.kind).toBe("embedded")
    const gets = artifact.actions.find((a: { action: string }) => a.action === "gets")
    expect(gets.executor.planned).toBe(60)
    expect(gets.executor.started + gets.executor.dropped).toBe(60)
    const series = artifact.series.find((s: { key: { name?: string } }) => s.key.name === "gets")
    expect(series.count + series.dropped).toBe(60)
    expect(series.errors).toBe(0)
    const pb = artifact.actions.find((a: { action: string }) => a.action === "pb")
    expect(pb.executor.planned).toBe(30)
    // protobuf answers are smaller than JSON ones for the same objects
    expect(pb.counts.bytesIn / pb.executor.completed).toBeLessThan(gets.counts.bytesIn / gets.executor.completed)
    expect(artifact.health.workers).toHaveLength(2)
    expect(r.stdout).toContain("generator (2 workers")
    // the embedded server was a process of its own: its port is closed once the run is over
    await expect(fetch(`${artifact.target.url}/version`)).rejects.toThrow()
  }, 240_000)

  it("--workers with the in-process target is refused: exit 2, naming the flag", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clustersim-workers-"))
    const file = join(dir, "s.yaml")
    writeFileSync(file, scenario)
    const r = await runCli(["run", file, "--workers", "2", "--target", "in-process", "--out", join(dir, "out")])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain("--workers 2: generator workers need a target they reach over HTTP in their own processes (embedded or a URL), not in-process")
  }, 120_000)
})

/**
 * SIGINT and SIGTERM stop `clustersim run` in its own process — a simulated cluster (which runs in slices so
 * the signal is seen) and a load run against the embedded server — and the partial artifact is written:
 * exit 130 for SIGINT, 143 for SIGTERM.
 */
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"

const dir = mkdtempSync(join(tmpdir(), "clustersim-signals-"))

interface Stopped {
  readonly code: number | null
  readonly msAfterSignal: number
  readonly artifact: Record<string, any>
}

/** Starts the CLI, sends `signal` once stderr shows `marker` (the run is under way), waits for the exit. */
const runAndSignal = (scenario: string, args: ReadonlyArray<string>, marker: string, signal: "SIGINT" | "SIGTERM"): Promise<Stopped> =>
  new Promise((resolve, reject) => {
    const name = `${signal}-${Math.random().toString(36).slice(2)}`
    const file = join(dir, `${name}.yaml`)
    const out = join(dir, name)
    writeFileSync(file, scenario)
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", "run", file, "--out", out, ...args], { stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    let sentAt: number | undefined
    child.stderr.on("data", (d: Buffer) => {
      stderr += d.toString()
      if (sentAt === undefined && stderr.includes(marker)) {
        sentAt = Date.now()
        child.kill(signal)
      }
    })
    child.on("error", reject)
    child.on("exit", (code) => {
      if (sentAt === undefined) return reject(new Error(`exited (${code}) before the run was under way:\n${stderr}`))
      try {
        resolve({ code, msAfterSignal: Date.now() - sentAt, artifact: JSON.parse(readFileSync(join(out, "run.json"), "utf8")) })
      } catch (e) {
        reject(new Error(`no artifact: ${(e as Error).message}\n${stderr}`))
      }
    })
  })

const cluster = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: long-cluster }
duration: 2h
cluster: { nodes: 200, podsPerNode: 2 }
phases:
  - name: lists
    duration: 2h
    actions:
      - { type: constant-arrival-rate, rate: 5, request: { verb: list, resource: nodes, limit: 100 } }
`

const load = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: long-load }
setup:
  objects:
    - { name: cms, resource: configmaps, count: 20 }
phases:
  - name: gets
    duration: 10m
    actions:
      - { type: constant-arrival-rate, rate: 50, request: { verb: get, objects: cms } }
`

const exitCodes = { SIGINT: 130, SIGTERM: 143 } as const

describe("signals stop a run and write the partial artifact", () => {
  it("a simulated cluster: SIGINT → 130, SIGTERM → 143, the cluster result covers the virtual time reached", async () => {
    // the first progress line comes after 1 virtual minute or 5 s of wall time, whichever is first
    const runs = await Promise.all((["SIGINT", "SIGTERM"] as const).map((s) => runAndSignal(cluster, [], " virtual · ETA", s).then((r) => [s, r] as const)))
    for (const [signal, r] of runs) {
      expect(r.code, signal).toBe(exitCodes[signal])
      // bounded, not a speed test: the run stops within a slice (~50 ms of wall time) and then writes its reports
      expect(r.msAfterSignal, signal).toBeLessThan(15_000)
      expect(r.artifact).toMatchObject({ partial: true, outcome: "interrupted", interruptedBy: signal, exitCode: exitCodes[signal] })
      expect(r.artifact.cluster.stopped).toBe(true)
      expect(r.artifact.cluster.durationMs).toBeGreaterThan(0)
      expect(r.artifact.cluster.durationMs).toBeLessThan(2 * 3_600_000)
      expect(r.artifact.series.find((x: { key: { name: string } }) => x.key.name === "constant-arrival-rate-0").count).toBeGreaterThan(0)
    }
  }, 240_000)

  it("a load run on the embedded server: SIGINT → 130, SIGTERM → 143, the series so far in the artifact", async () => {
    // the progress line of the load phase (non-TTY: one per phase)
    const runs = await Promise.all((["SIGINT", "SIGTERM"] as const).map((s) => runAndSignal(load, ["--target", "embedded"], "phase gets", s).then((r) => [s, r] as const)))
    for (const [signal, r] of runs) {
      expect(r.code, signal).toBe(exitCodes[signal])
      expect(r.msAfterSignal, signal).toBeLessThan(15_000)
      expect(r.artifact).toMatchObject({ partial: true, outcome: "interrupted", interruptedBy: signal, exitCode: exitCodes[signal] })
      expect(r.artifact.target.kind).toBe("embedded")
      expect(r.artifact.series.some((x: { key: { metric: string } }) => x.key.metric === "setup")).toBe(true)
    }
  }, 240_000)
})

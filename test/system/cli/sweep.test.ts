/**
 * `clustersim sweep` with its points as processes (app/cli/sweep.ts): a small cluster with a node death, a partition,
 * APF and the scheduler, swept over 2 points one at a time and two at once, gives each point the same result
 * fingerprint, and that is the fingerprint of a plain `run --set` of the point; the table lists the points in point
 * order whatever order they finished in; a SIGTERM stops the running points, which write what they measured, and the
 * sweep still writes sweep.json; a load scenario's points run one at a time by default.
 */
import { Effect } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { runCommand } from "../../../app/cli/run.js"
import { sweepCommand } from "../../../app/cli/sweep.js"
import type { RunArtifact } from "../../../src/loadgen/Artifact.js"
import { artifactFingerprint } from "../../../src/loadgen/ArtifactFingerprint.js"
import type { SweepResult } from "../../../src/compare/SweepResult.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-sweep-"))
const file = join(dir, "faults.yaml")
writeFileSync(
  file,
  `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: sweep-determinism }
seed: 3
duration: 3m
cluster:
  nodes: 12
  podsPerNode: 4
  zones: [zone-a, zone-b]
  shape: { cpu: "8", memory: 32Gi }
  nodeLifecycle: { monitorPeriod: 5s, gracePeriod: 40s, defaultTolerationSeconds: 30 }
  serviceTime: { apf: true }
scheduler:
  batches:
    - { namePrefix: web, at: 10s, count: 30, rate: 10, cpu: 250m, memory: 256Mi }
faults:
  - { type: stop-nodes, at: 30s, nodes: [node-3] }
  - { type: partition, at: 60s, for: 60s, count: 2 }
phases: []
thresholds:
  "not_ready_nodes": ["count >= 1"]
`
)

const sweep = async (workers: number | undefined, out: string, scenario = file, varies = ["cluster.nodes=10,12"]) => {
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  const code = await Effect.runPromise(
    sweepCommand({
      file: scenario,
      varies,
      sets: [],
      ...(workers !== undefined ? { workers } : {}),
      targetArgs: [],
      outDir: out,
      interrupt: Effect.never,
      stdout: (s) => void stdout.push(s),
      stderr: (s) => void stderr.push(s)
    })
  )
  const result = JSON.parse(readFileSync(join(out, "sweep.json"), "utf8")) as SweepResult
  return { code, result, stdout: stdout.join(""), stderr: stderr.join("") }
}

/** A plain `run --set` of the point, in this process. */
const plainRun = async (set: string) => {
  const out = mkdtempSync(join(dir, "plain-"))
  const r = await Effect.runPromise(runCommand({ file, target: { _tag: "embedded", serverProcess: "own" }, outDir: out, sets: [set], tty: false, stdout: () => {}, stderr: () => {} }))
  expect(r.exitCode).toBe(0)
  return artifactFingerprint(JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as RunArtifact)
}

const children: Array<ChildProcess> = []
afterAll(() => children.forEach((c) => c.exitCode === null && c.kill("SIGKILL")))

describe("clustersim sweep", () => {
  it("the same fingerprint per point with 1 worker and with 2, each a plain run --set's", async () => {
    const one = await sweep(1, join(dir, "one"))
    const two = await sweep(2, join(dir, "two"))
    for (const s of [one, two]) {
      expect(s.code, s.stderr).toBe(0)
      expect(s.result.points.map((p) => [p.index, p.values, p.verdict, p.fingerprintMode])).toEqual([
        [1, ["10"], "PASS", "simulated"],
        [2, ["12"], "PASS", "simulated"]
      ])
      expect(s.stderr).toMatch(/^\[sweep 1\/2\] cluster\.nodes=10 PASS in \d+\.\d s$/m)
      // the table in point order
      expect(s.stdout).toMatch(/\n1 +10 +PASS .*\n2 +12 +PASS /)
      expect(existsSync(join(dir, s === one ? "one" : "two", "sweep.html"))).toBe(true)
    }
    expect(two.result.workers).toBe(2)
    const fingerprints = one.result.points.map((p) => p.fingerprint)
    expect(fingerprints[0]).not.toBe(fingerprints[1])
    expect(two.result.points.map((p) => p.fingerprint)).toEqual(fingerprints)
    expect([await plainRun("cluster.nodes=10"), await plainRun("cluster.nodes=12")]).toEqual(fingerprints)
    // the figures come from the runs: a node died, two were partitioned
    expect(one.result.points[0]!.figures.find((f) => f.label === "nodes that left Ready")?.value).toBe(3)
  }, 180_000)

  it("a load scenario runs on the real clock: its points one at a time unless --workers says otherwise", async () => {
    const load = join(dir, "load.yaml")
    writeFileSync(
      load,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: sweep-load }
phases:
  - name: get
    duration: 1s
    actions:
      - { type: constant-arrival-rate, name: get, rate: 5, request: { verb: get, resource: namespaces, name: default } }
`
    )
    const s = await sweep(undefined, join(dir, "load"), load, ["phases.0.actions.0.rate=5,10"])
    expect(s.code, s.stderr).toBe(0)
    expect(s.stderr).toContain("sweep of 2 points (phases[0].actions[0].rate: 2), 1 at a time (a load scenario on the real clock: --workers N to run N at once), seed 1")
    expect(s.result.workers).toBe(1)
    expect(s.result.points.map((p) => [p.verdict, p.fingerprintMode])).toEqual([["PASS", "load-only"], ["PASS", "load-only"]])
  }, 120_000)

  it("SIGTERM: the running point stops and writes its partial artifact, the sweep writes sweep.json and exits 143", async () => {
    const out = join(dir, "stopped")
    // 2,000 nodes for 10 virtual hours: a point runs for a minute, long enough to be stopped
    const args = ["sweep", file, "--set", "cluster.nodes=2000", "--vary", "duration=10h,11h", "--workers", "1", "--out", out]
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] })
    children.push(child)
    let stderr = ""
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()))
    child.stdout!.resume()
    // the point's run is under way once its progress line is in its log
    const log = join(out, "1-duration=10h", "stderr.log")
    const started = Date.now()
    while (!(existsSync(log) && /virtual/.test(readFileSync(log, "utf8"))) && Date.now() - started < 60_000) await new Promise((r) => setTimeout(r, 200))
    child.kill("SIGTERM")
    const code = await new Promise<number | null>((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.on("exit", (c) => resolve(c))))
    expect(code, stderr).toBe(143)
    const result = JSON.parse(readFileSync(join(out, "sweep.json"), "utf8")) as SweepResult
    expect(result.interruptedBy).toBe("SIGTERM")
    expect(result.points.map((p) => [p.verdict, p.exitCode])).toEqual([["STOPPED", 143], ["NOT RUN", undefined]])
    const partial = JSON.parse(readFileSync(join(out, "1-duration=10h", "run.json"), "utf8")) as RunArtifact
    expect([partial.partial, partial.outcome, partial.interruptedBy]).toEqual([true, "interrupted", "SIGTERM"])
  }, 120_000)
})

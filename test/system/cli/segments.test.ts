/**
 * Execution segments end to end through the CLI as processes (docs/distributed.md), against `clustersim serve` in a
 * process of its own: `run --segments 2` meets through the target, runs exactly the plan between its two segments
 * and merges them; a segment killed mid-run (by SIGKILL too) fails the merged run naming it, a Ctrl-C interrupts it;
 * the local run's rendezvous ConfigMap is removed at its end; a segment that never arrives fails the
 * others at the rendezvous deadline; a real-time cluster's nodes split between the segments by their names' hash.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ownerOfName, segments } from "../../../src/loadgen/ExecutionSegment.js"

const children: ChildProcess[] = []
afterAll(() => children.forEach((c) => c.exitCode === null && c.kill("SIGTERM")))

const cli = (args: ReadonlyArray<string>, env: Record<string, string> = {}) => {
  const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
  children.push(child)
  return child
}

const finished = (child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve, reject) => {
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()))
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()))
    child.on("error", reject)
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

/** `run --segments 2` of the scenario as a process, its out directory named `name`. */
const localSegments = (name: string) => {
  const file = join(dir, `${name}.yaml`)
  writeFileSync(file, scenario("60s"))
  const out = join(dir, name)
  const run = cli(["run", file, "--target", url, "--segments", "2", "--out", out])
  return { out, run, done: finished(run) }
}

/** What the process wrote to stderr once `done` holds for it. */
const stderrUntil = (child: ChildProcess, done: (seen: string) => boolean): Promise<string> =>
  new Promise((resolve) => {
    let seen = ""
    child.stderr!.on("data", (d: Buffer) => {
      seen += d.toString()
      if (done(seen)) resolve(seen)
    })
  })

const scenario = (timeout: string) => `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: segments }
seed: 5
generator:
  rendezvous: { namespace: distributed, margin: 2s, timeout: ${timeout} }
setup:
  namespaces: [load]
  objects:
    - { name: cms, resource: configmaps, namespace: load, count: 20, template: { data: { k: v } } }
phases:
  - name: steady
    duration: 6s
    actions:
      - { type: constant-arrival-rate, name: gets, rate: 25, maxInFlight: 1000, request: { verb: get, objects: cms } }
outcome: { maxErrorRate: 0 }
`

let url = ""
const dir = mkdtempSync(join(tmpdir(), "clustersim-segments-"))
beforeAll(async () => {
  const server = cli(["serve", "--port", "0"])
  url = await new Promise<string>((resolve, reject) => {
    let stdout = ""
    server.stdout!.on("data", (d: Buffer) => {
      stdout += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(stdout)
      if (m) resolve(m[1]!)
    })
    server.on("exit", (code) => reject(new Error(`serve exited ${code}`)))
  })
}, 60_000)

describe("execution segments across processes", () => {
  it("run --segments 2: the two shares are the plan, merged into one artifact with each segment's row", async () => {
    const file = join(dir, "ok.yaml")
    writeFileSync(file, scenario("60s"))
    const raw = join(dir, "ok-raw")
    mkdirSync(raw)
    const r = await finished(cli(["run", file, "--target", url, "--segments", "2", "--out", join(dir, "ok")], { CLUSTERSIM_RAW_LATENCIES: raw }))
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/\[segment 1\/2\] /)
    const merged = JSON.parse(readFileSync(join(dir, "ok", "run.json"), "utf8"))
    const gets = merged.series.find((s: { key: { name?: string } }) => s.key.name === "gets")
    // 25/s for 6 s: 150 iterations, each started by exactly one segment
    expect(gets.count + gets.dropped).toBe(150)
    expect(gets.errors).toBe(0)
    expect(merged.actions.find((a: { action: string }) => a.action === "gets").executor.planned).toBe(150)
    expect(merged.segments.map((s: { index: number; requests: number; outcome: string }) => [s.index, s.outcome])).toEqual([
      [0, "pass"],
      [1, "pass"]
    ])
    const seg1 = JSON.parse(readFileSync(join(dir, "ok", "segment-1", "run.json"), "utf8"))
    const seg2 = JSON.parse(readFileSync(join(dir, "ok", "segment-2", "run.json"), "utf8"))
    expect(seg1.segment.startAtMs).toBe(seg2.segment.startAtMs)
    const share = (a: { series: Array<{ key: { name?: string }; count: number; dropped: number }> }) => {
      const s = a.series.find((x) => x.key.name === "gets")!
      return s.count + s.dropped
    }
    expect([share(seg1), share(seg2)]).toEqual([75, 75])
    // only the first segment ran the setup
    expect(seg1.series.some((s: { key: { metric: string } }) => s.key.metric === "setup")).toBe(true)
    expect(seg2.series.some((s: { key: { metric: string } }) => s.key.metric === "setup")).toBe(false)
    // the merged histogram's percentiles are the exact quantiles of every raw latency of both processes, within HDR's
    // precision (3 significant digits); an exact quantile as HDR defines it: the smallest sample with q of all at or below
    const samples = Float64Array.from(
      readdirSync(raw).flatMap((f) => readFileSync(join(raw, f), "utf8").split("\n").filter((l) => l !== "").map(Number))
    ).sort()
    expect(readdirSync(raw)).toHaveLength(2)
    expect(samples.length).toBe(gets.latency.count)
    const exact = (q: number) => samples[Math.max(0, Math.ceil(q * samples.length) - 1)]!
    for (const [q, merged] of [[0.5, gets.latency.p50], [0.99, gets.latency.p99]] as const) expect(Math.abs(merged - exact(q)) / exact(q)).toBeLessThan(0.01)
    expect(r.stdout).toContain("segments (2, merged):")
    expect(r.stdout).toContain("PASS (exit 0)")
  }, 180_000)

  it("k6's unequal segments: 0:1/4, 1/4:3/4 and 3/4:1 of one sequence are the plan, striped 38 + 75 + 37", async () => {
    const file = join(dir, "unequal.yaml")
    writeFileSync(file, scenario("60s"))
    const parts = ["0:1/4", "1/4:3/4", "3/4:1"]
    const runs = await Promise.all(
      parts.map((part, i) =>
        finished(cli(["run", file, "--target", url, "--segment", part, "--segment-sequence", "0,1/4,3/4,1", "--rendezvous", "unequal-test", "--out", join(dir, "unequal", `s${i}`)]))
      )
    )
    for (const r of runs) expect(r.code, r.stderr).toBe(0)
    const share = (i: number) => {
      const a = JSON.parse(readFileSync(join(dir, "unequal", `s${i}`, "run.json"), "utf8"))
      const s = a.series.find((x: { key: { name?: string } }) => x.key.name === "gets")
      return [a.segment.sequence, s.count + s.dropped]
    }
    // of every 4 iterations the middle half owns 2 (positions 0 and 2), the quarters 1 each (1 and 3): k6's striping
    expect([0, 1, 2].map(share)).toEqual([["0,1/4,3/4,1", 38], ["0,1/4,3/4,1", 75], ["0,1/4,3/4,1", 37]])
    const m = await finished(cli(["merge", ...[0, 1, 2].map((i) => join(dir, "unequal", `s${i}`)), "--out", join(dir, "unequal", "merged")]))
    expect(m.code, m.stderr).toBe(0)
    const merged = JSON.parse(readFileSync(join(dir, "unequal", "merged", "run.json"), "utf8"))
    const gets = merged.series.find((s: { key: { name?: string } }) => s.key.name === "gets")
    expect(gets.count + gets.dropped).toBe(150)
    expect(merged.actions.find((a: { action: string }) => a.action === "gets").executor.planned).toBe(150)
    expect(m.stdout).toMatch(/1\/4:3\/4 +completed +75 /)
  }, 180_000)

  it("a segment killed mid-run: the merged run fails, naming it", async () => {
    const file = join(dir, "kill.yaml")
    writeFileSync(file, scenario("60s"))
    const one = cli(["run", file, "--target", url, "--segment", "1/2", "--rendezvous", "kill-test", "--out", join(dir, "kill", "s1")])
    const two = cli(["run", file, "--target", url, "--segment", "2/2", "--rendezvous", "kill-test", "--out", join(dir, "kill", "s2")])
    const doneOne = finished(one)
    const doneTwo = finished(two)
    // killed once its phase runs: it writes nothing
    await new Promise<void>((resolve) => {
      let seen = ""
      two.stderr!.on("data", (d: Buffer) => {
        seen += d.toString()
        if (/phase steady/.test(seen)) resolve()
      })
    })
    two.kill("SIGKILL")
    expect((await doneOne).code).toBe(0)
    await doneTwo
    expect(existsSync(join(dir, "kill", "s2", "run.json"))).toBe(false)
    const m = await finished(cli(["merge", join(dir, "kill", "s1"), "--out", join(dir, "kill", "merged")]))
    expect(m.code, m.stderr).toBe(1)
    expect(m.stdout).toContain("RUN ERROR: segment 2/2 is missing: no artifact of it was given (exit 1)")
    const merged = JSON.parse(readFileSync(join(dir, "kill", "merged", "run.json"), "utf8"))
    expect(merged.outcome).toBe("run-error")
    expect(merged.segments.map((s: { outcome: string }) => s.outcome)).toEqual(["pass", "missing"])
  }, 180_000)

  it("run --segments 2 with a segment killed by SIGKILL (the OOM killer): the run waits for the other, merges and fails naming it", async () => {
    const { out, run, done } = localSegments("sigkill")
    await stderrUntil(run, (seen) => /\[segment 2\/2\] .*phase steady/.test(seen))
    // the segment's own process (its --out names it): killed as the OOM killer does, it writes nothing
    const pid = Number(execFileSync("pgrep", ["-f", "--", `--out ${join(out, "segment-2")}`], { encoding: "utf8" }).trim().split("\n")[0])
    process.kill(pid, "SIGKILL")
    const r = await done
    expect(r.code, r.stderr).toBe(1)
    expect(r.stderr).toContain("clustersim: segment 2/2 was killed (SIGKILL) before it wrote its artifact")
    expect(r.stdout).toContain("RUN ERROR: segment 2/2 is missing: no artifact of it was given (exit 1)")
    const merged = JSON.parse(readFileSync(join(out, "run.json"), "utf8"))
    expect(merged.outcome).toBe("run-error")
    expect(merged.segments.map((s: { outcome: string }) => s.outcome)).toEqual(["pass", "missing"])
  }, 180_000)

  it("Ctrl-C on run --segments 2: passed on to each segment, the merged run is interrupted (exit 130), not failed", async () => {
    const { out, run, done } = localSegments("sigint")
    const seen = await stderrUntil(run, (seen) => /\[segment 1\/2\] .*phase steady/.test(seen) && /\[segment 2\/2\] .*phase steady/.test(seen))
    const id = /meeting at rendezvous (\S+)/.exec(seen)![1]!
    const rendezvousConfigMaps = async () =>
      ((await (await fetch(`${url}/api/v1/namespaces/distributed/configmaps`)).json()) as { items: Array<{ metadata: { name: string } }> }).items.map((c) => c.metadata.name).filter((n) => n.startsWith("clustersim-rendezvous-local-"))
    expect(await rendezvousConfigMaps()).toContain(`clustersim-rendezvous-${id}`)
    run.kill("SIGINT")
    const r = await done
    expect(r.code, r.stderr).toBe(130)
    expect(r.stdout).toContain("INTERRUPTED: partial results")
    const merged = JSON.parse(readFileSync(join(out, "run.json"), "utf8"))
    expect([merged.outcome, merged.interruptedBy, merged.runError]).toEqual(["interrupted", "SIGINT", undefined])
    expect(merged.segments.map((s: { outcome: string }) => s.outcome)).toEqual(["interrupted", "interrupted"])
    // the run's rendezvous ConfigMap is gone once it ended (and the other local runs' of this file)
    expect(await rendezvousConfigMaps()).toEqual([])
  }, 180_000)

  it("a segment that never arrives: the others fail at the rendezvous deadline, naming it", async () => {
    const file = join(dir, "alone.yaml")
    writeFileSync(file, scenario("3s"))
    const r = await finished(cli(["run", file, "--target", url, "--segment", "1/2", "--rendezvous", "alone-test", "--out", join(dir, "alone")]))
    expect(r.code).toBe(1)
    const artifact = JSON.parse(readFileSync(join(dir, "alone", "run.json"), "utf8"))
    expect(artifact.runError).toBe("rendezvous distributed/clustersim-rendezvous-alone-test: segment 2/2 did not register within 3s (registered: 1/2)")
  }, 120_000)

  it("run --segments 2 of a real-time cluster: each node's agent, lease and pod in its owner only; merged counts are the sums", async () => {
    const file = join(dir, "realtime.yaml")
    writeFileSync(
      file,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: realtime-segments }
seed: 7
duration: 10s
generator:
  rendezvous: { namespace: distributed, margin: 2s, timeout: 60s }
cluster:
  nodes: 8
  startSpread: 1s
  podsPerNode: 1
  nodeAgent:
    config: { nodeStatusUpdateFrequency: 2s, nodeLeaseDurationSeconds: 4 }
phases: []
`
    )
    const r = await finished(cli(["run", file, "--target", url, "--segments", "2", "--out", join(dir, "rt")]))
    expect(r.code, r.stderr).toBe(0)
    const names = Array.from({ length: 8 }, (_, i) => `node-${i}`)
    // the stable hash: node-5 and node-7 are the first segment's, the rest the second's
    const owned = segments(2).map((s) => names.filter((n) => ownerOfName(n, s) === s.index))
    expect(owned).toEqual([["node-5", "node-7"], ["node-0", "node-1", "node-2", "node-3", "node-4", "node-6"]])
    const read = (path: string) => JSON.parse(readFileSync(join(dir, "rt", path, "run.json"), "utf8"))
    const [seg1, seg2, merged] = [read("segment-1"), read("segment-2"), read(".")]
    expect(seg1.segment.startAtMs).toBe(seg2.segment.startAtMs)
    for (const [seg, own] of [[seg1, owned[0]!], [seg2, owned[1]!]] as const) {
      // its own nodes registered, leased (1 s renewals for ~10 s) and their pods created, nobody else's
      expect([seg.cluster.nodes, seg.cluster.realTime.registered + seg.cluster.realTime.adopted, seg.cluster.pods]).toEqual([own.length, own.length, own.length])
      expect(seg.cluster.heartbeats.leaseWrites).toBeGreaterThanOrEqual(own.length * 5)
      expect(seg.cluster.realTime.errorsByCode).toEqual({})
    }
    // the second segment watches its own nodes only; the first watches all (its lifecycle controller is the run's)
    expect(Object.keys(seg2.cluster.readyTimeline).sort()).toEqual(owned[1])
    const sum = (f: (a: typeof seg1) => number) => f(seg1) + f(seg2)
    expect(merged.cluster.nodes).toBe(8)
    expect(merged.cluster.pods).toBe(8)
    expect(merged.cluster.realTime.registered + merged.cluster.realTime.adopted).toBe(8)
    expect(merged.cluster.heartbeats.leaseWrites).toBe(sum((a) => a.cluster.heartbeats.leaseWrites))
    expect(merged.cluster.nodeStatus.patches).toBe(sum((a) => a.cluster.nodeStatus.patches))
    expect(merged.cluster.leaseRenewLatency.count).toBe(sum((a) => a.cluster.leaseRenewLatency.count))
    expect(Object.keys(merged.cluster.readyTimeline).sort()).toEqual([...names].sort())
    expect(merged.thresholds.find((t: { threshold: string }) => t.threshold === "outcome:node-agent-requests")).toMatchObject({ passed: true })
    expect(merged.segments.map((s: { outcome: string }) => s.outcome)).toEqual(["pass", "pass"])
    // on the server: every node once, its lease renewed, its pod Running (written by the owner's agent: no other has it)
    const list = async (path: string) => ((await (await fetch(`${url}${path}`)).json()) as { items: Array<{ metadata: { name: string }; spec?: { nodeName?: string; renewTime?: string }; status?: { phase?: string } }> }).items
    expect((await list("/api/v1/nodes")).map((n) => n.metadata.name).sort()).toEqual([...names].sort())
    const leases = await list("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases")
    expect(leases.map((l) => l.metadata.name).sort()).toEqual([...names].sort())
    const pods = (await list("/api/v1/namespaces/default/pods")).filter((p) => /^node-\d+-pod-0$/.test(p.metadata.name))
    expect(pods.map((p) => [p.metadata.name, p.spec?.nodeName, p.status?.phase]).sort()).toEqual(names.map((n) => [`${n}-pod-0`, n, "Running"]).sort())
  }, 180_000)
})

import { Effect } from "effect"
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { runCommand } from "../../app/cli/run.js"
import type { TargetFlag } from "../../app/cli/target.js"
import { validateFiles } from "../../app/cli/validate.js"
import { decodeHistogram } from "../../src/loadgen/LatencyRecorder.js"
import { sha256 } from "../../src/loadgen/Artifact.js"
import { closedPort, versionOnlyServer } from "../support/unreachable.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-run-"))
let n = 0
const file = (text: string): string => {
  const f = join(dir, `s${n++}.yaml`)
  writeFileSync(f, text)
  return f
}

const tiny = (threshold: string) => `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: tiny
seed: 7
setup:
  namespaces: [t]
  objects:
    - { name: cms, resource: configmaps, namespace: t, count: 20, template: { data: { k: v } } }
phases:
  - name: p1
    duration: 1s
    actions:
      - { type: constant-arrival-rate, name: get, rate: 50, request: { verb: get, objects: cms } }
      - { type: constant-arrival-rate, name: list, rate: 5, request: { verb: list, resource: configmaps, namespace: t, limit: 5 } }
      - { type: constant-arrival-rate, name: churn, rate: 10, request: { verb: churn, resource: configmaps, namespace: t, keep: 3 } }
      - { type: watch, name: w, resource: configmaps, namespace: t, count: 2 }
thresholds:
  "latency{metric:api_call,operation:GET}": ["${threshold}"]
  "errors{metric:api_call}": ["rate == 0"]
`

const run = (f: string, target: TargetFlag = { _tag: "in-process" }, outDir = join(dir, `out${n++}`)) => {
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  return Effect.runPromise(
    runCommand({ file: f, target, outDir, tty: false, stdout: (s) => void stdout.push(s), stderr: (s) => void stderr.push(s) })
  ).then((r) => ({ ...r, stdout: stdout.join(""), stderr: stderr.join(""), outDir }))
}

describe("clustersim run", () => {
  it("passes a tiny scenario against in-process: exit 0, artifact with decodable histograms and the scenario hash", async () => {
    const f = file(tiny("p(99) < 5s"))
    const r = await run(f)
    expect(r.exitCode).toBe(0)
    expect(r.stdout).toContain("PASS (exit 0)")
    const a = JSON.parse(readFileSync(join(r.outDir, "run.json"), "utf8"))
    expect(a.format).toBe("clustersim/run-v2")
    expect(a.scenario.sha256).toBe(sha256(readFileSync(f, "utf8")))
    expect(a.scenario.text).toBe(readFileSync(f, "utf8"))
    expect(a.seed).toBe(7)
    expect(a.target).toEqual({ kind: "in-process" })
    expect(a.environment.node).toBe(process.version)
    expect(a.partial).toBe(false)
    const get = a.series.find((s: { key: { metric: string; operation: string } }) => s.key.metric === "api_call" && s.key.operation === "GET")
    expect(get.count).toBe(50)
    const h = decodeHistogram(get.latencyHistogram)
    expect(h.totalCount).toBe(50)
    expect(h.maxValue / 1000).toBeCloseTo(get.latency.max, 0)
    expect(decodeHistogram(get.serviceTimeHistogram).totalCount).toBe(50)
    const keys = a.series.map((s: { key: { metric: string; operation: string } }) => `${s.key.metric} ${s.key.operation}`).sort()
    expect(keys).toEqual(expect.arrayContaining(["api_call LIST", "api_call POST", "api_call DELETE", "iteration CHURN", "setup POST", "watch_event WATCH"]))
    expect(a.intervals.length).toBeGreaterThan(0)
    // the GET intervals' histograms add up to the GET series
    const getIntervals = a.intervals.filter((iv: { key: { metric: string; operation: string } }) => iv.key.metric === "api_call" && iv.key.operation === "GET")
    expect(getIntervals.length).toBeGreaterThan(0)
    expect(getIntervals.reduce((n: number, iv: { latencyHistogram: string }) => n + decodeHistogram(iv.latencyHistogram).totalCount, 0)).toBe(50)
    expect(a.thresholds.every((t: { passed: boolean }) => t.passed)).toBe(true)
    // saturated exactly when a limit was broken, and then it says which
    expect(a.health.saturated).toBe(a.health.reasons.length > 0)
    expect(a.health.loopLag.samples).toBeGreaterThan(0)
    expect(existsSync(join(r.outDir, "latency.svg"))).toBe(true)
  })

  it("exits 99 when a threshold is breached, and says which", async () => {
    const r = await run(file(tiny("p(99) < 1us")))
    expect(r.exitCode).toBe(99)
    expect(r.stdout).toContain("✗ latency{metric:api_call,operation:GET}: p(99) < 1us")
    expect(r.stdout).toContain("FAIL: thresholds breached (exit 99)")
  })

  it("exits 2 on an invalid file, naming line and column", async () => {
    const r = await run(file(tiny("p(99) < 1s").replace("rate: 50", "rate: fifty")))
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toMatch(/s\d+\.yaml:14:\d+: phases\[0\]\.actions\[0\]\.rate: Expected number, actual "fifty"/)
  })

  it("validate and run refuse bad scheduler, eviction and node agent sections with every error located, exit 2", async () => {
    const f = file(`apiVersion: clustersim/v1
kind: Scenario
metadata: { name: sections }
phases: []
cluster:
  nodes: 2
  nodeAgent: { config: { eventBurst: -1, nodeLeaseDurationSeconds: -1 } }
scheduler: { replicas: "two", batches: [], nodes: [{ count: 1 }] }
eviction: { node: { memory: 4Gi, name: spare }, pods: [], extra: 1 }
`)
    const expected = [
      `${f}:7:38: cluster.nodeAgent.config.eventBurst: invalid configuration: eventBurst (--event-burst) -1 must not be a negative number`,
      `${f}:7:68: cluster.nodeAgent.config.nodeLeaseDurationSeconds: invalid configuration: nodeLeaseDurationSeconds must be greater than 0`,
      `${f}:8:24: scheduler.replicas: Expected number, actual "two"`,
      `${f}:9:59: eviction.extra: unknown field`
    ]
    const err: Array<string> = []
    expect(validateFiles([f], () => {}, (s) => void err.push(s))).toBe(2)
    expect(err.join("").trim().split("\n")).toEqual(expected)
    const r = await run(f)
    expect(r.exitCode).toBe(2)
    expect(r.stderr.trim().split("\n")).toEqual(expected)
  })

  it("exits 2 when server-side failure steps meet a real server; exit 1, the connection refused, when nothing listens", async () => {
    const text = tiny("p(99) < 1s").replace("      - { type: watch", "      - { type: compact, at: 0s }\n      - { type: watch")
    // a server that answers (its /version) but has no /clustersim/ endpoints
    const server = await versionOnlyServer()
    const r = await run(file(text), { _tag: "url", options: { baseUrl: server.url } }).finally(server.close)
    expect(r.exitCode).toBe(2)
    expect(r.stderr).toContain("this target has no /clustersim/ admin endpoints): phases[0].actions[3] (compact)")
    // nothing listening: the connection failed — not "no admin endpoints"
    const port = await closedPort()
    const down = await run(file(text), { _tag: "url", options: { baseUrl: `http://127.0.0.1:${port}` } })
    expect(down.exitCode).toBe(1)
    expect(down.stderr).toBe(`clustersim: cannot reach the target: connection refused: http://127.0.0.1:${port}\n`)
  })

  it("writes a partial artifact when interrupted", async () => {
    const f = file(tiny("p(99) < 5s").replace("duration: 1s", "duration: 30s"))
    const outDir = join(dir, "interrupted")
    const r = await Effect.runPromise(
      runCommand({ file: f, target: { _tag: "in-process" }, outDir, tty: false, stdout: () => {}, stderr: () => {}, interrupt: Effect.sleep("1500 millis") })
    )
    expect(r.exitCode).toBe(130)
    const a = JSON.parse(readFileSync(join(outDir, "run.json"), "utf8"))
    expect(a.partial).toBe(true)
    expect(a.interruptedBy).toBe("SIGINT")
    expect(a.outcome).toBe("interrupted")
    expect(a.series.length).toBeGreaterThan(0)
  })

  it("informers relist after compaction and dropped watches on the embedded server", async () => {
    const text = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: relist }
server: { bookmarkInterval: 5m }
setup:
  namespaces: [quiet, busy]
  objects:
    - { name: q, resource: configmaps, namespace: quiet, count: 30 }
    - { name: b, resource: configmaps, namespace: busy, count: 10 }
phases:
  - name: p
    duration: 5s
    actions:
      - { type: informers, resource: configmaps, namespace: quiet, count: 3 }
      - { type: constant-arrival-rate, rate: 20, request: { verb: patch, objects: b } }
      - { type: compact, at: 1s }
      - { type: drop-watches, at: 1s }
`
    const r = await run(file(text), { _tag: "embedded" })
    expect(r.exitCode).toBe(0)
    expect(r.artifact!.relists).toBeGreaterThan(0)
    expect(r.artifact!.target.kind).toBe("embedded")
    expect(r.artifact!.target.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    // Over HTTP the generator counts the bytes it moved (lists and watch streams in, nothing much out).
    expect(r.artifact!.health!.bytesIn).toBeGreaterThan(1000)
    expect(r.stdout).toMatch(/relists: [1-9]/)
    // the informer's relist phases and triggers stay in the artifact (src/informer/RelistPhases.ts)
    const recorded = (metric: string) => new Set(r.artifact!.series.filter((s) => s.key.metric === metric && s.count > 0).map((s) => s.key.operation))
    expect([...recorded("relist")].sort()).toEqual(["backoff", "first_response", "pages", "replace", "total"])
    expect([...recorded("initial_list")].sort()).toEqual(["first_response", "pages", "replace", "total"])
    expect(recorded("relist_trigger").size).toBeGreaterThan(0)
  })

  it("runs the phases as the workload of a simulated cluster, on virtual time", async () => {
    const text = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: cl }
duration: 2m
cluster: { nodes: 3, podsPerNode: 1 }
setup:
  objects:
    - { name: cms, resource: configmaps, count: 10 }
phases:
  - name: p
    duration: 60s
    actions:
      - { type: constant-arrival-rate, rate: 10, request: { verb: get, objects: cms } }
      - { type: constant-arrival-rate, rate: 1, request: { verb: list, resource: pods } }
`
    const started = Date.now()
    const r = await run(file(text), { _tag: "embedded" })
    expect(r.exitCode).toBe(0)
    expect(Date.now() - started).toBeLessThan(30_000) // 60 s of load in virtual time
    expect(r.artifact!.target.kind).toBe("simulated-cluster")
    expect(r.artifact!.cluster).toBeDefined()
    const get = r.artifact!.series.find((s) => s.key.operation === "GET")!
    expect(get.count).toBe(600)
    expect(r.artifact!.series.find((s) => s.key.operation === "LIST")!.key.scope).toBe("cluster")
  })

  it("validate: exit 0 for the shipped scenarios, 2 with located errors otherwise", () => {
    const out: Array<string> = []
    const err: Array<string> = []
    expect(validateFiles(["scenarios/quickstart.yaml"], (s) => void out.push(s), (s) => void err.push(s))).toBe(0)
    expect(out.join("")).toContain('valid Scenario "quickstart"')
    const bad = file("apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: x }\nphases: []\nextra: 1\n")
    expect(validateFiles([bad], () => {}, (s) => void err.push(s))).toBe(2)
    expect(err.join("")).toContain(`${bad}:5:1: extra: unknown field`)
  })

  it("validate: NodeAgentConfiguration files go through the node agent's checker", () => {
    const out: Array<string> = []
    const err: Array<string> = []
    expect(validateFiles(["scenarios/nodeagent/default.yaml"], (s) => void out.push(s), (s) => void err.push(s))).toBe(0)
    expect(out.join("")).toContain("valid NodeAgentConfiguration")
    const bad = file("apiVersion: nodeagent.config.platform.io/v1beta1\nkind: NodeAgentConfiguration\nport: x\n")
    expect(validateFiles([bad], () => {}, (s) => void err.push(s))).toBe(2)
    expect(err.join("")).toContain(bad)
  })
})

/**
 * `clustersim replay` against an out-of-process `clustersim serve` (docs/replay.md): a RequestResponse-level log of
 * kubectl-like traffic replays with the recorded codes and leaves the objects the log left; a Metadata-level log
 * replays without 404s because of seeding (and with them, failing, without it); a 2-minute log at --speed 10 keeps its
 * compressed schedule (its scheduling error is a speed figure: docs/benchmarks.md); a remote target is refused.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import type { ReplayReport, RunArtifact } from "../../../src/loadgen/Artifact.js"
import { auditEvent, type EventSpec, lines } from "../../replay/auditEvents.js"

const dir = mkdtempSync(join(tmpdir(), "replay-system-"))

const serve = () =>
  new Promise<{ child: ChildProcess; url: string }>((resolve, reject) => {
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", "serve", "--port", "0"], { stdio: ["ignore", "pipe", "pipe"] })
    let out = ""
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString()
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve({ child, url: m[1]! })
    })
    child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${out}`)))
  })

const stop = (child: ChildProcess) => new Promise<void>((resolve) => (child.once("exit", () => resolve()), child.kill("SIGTERM")))

const cli = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number; stdout: string; stderr: string; ms: number }>((resolve) => {
    const started = Date.now()
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", ...args], { stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (d: Buffer) => void (stdout += d.toString()))
    child.stderr!.on("data", (d: Buffer) => void (stderr += d.toString()))
    child.once("exit", (code) => resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started }))
  })

const replayOf = (out: string): ReplayReport => {
  const a = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as RunArtifact
  return a.actions.find((x) => x.replay)!.replay!
}

const ref = (resource: string, namespace: string | undefined, name?: string) => ({ resource, apiVersion: "v1", ...(namespace ? { namespace } : {}), ...(name ? { name } : {}) })

/** kubectl create ns / create cm / get / patch / get -o yaml / list / watch / get missing / delete, in RequestResponse or Metadata level. */
const kubectlSession = (level: "RequestResponse" | "Metadata"): Array<EventSpec> => {
  const cm = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm1", namespace: "team-a" }, data: { a: "1" } }
  const pre = { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "pre", namespace: "prod", resourceVersion: "77", uid: "u-1" }, data: { x: "y" } }
  const base = { level }
  return [
    { ...base, at: 0, verb: "create", uri: "/api/v1/namespaces?fieldManager=kubectl-create", code: 201, ref: ref("namespaces", undefined, "team-a"), requestObject: { apiVersion: "v1", kind: "Namespace", metadata: { name: "team-a" } } },
    { ...base, at: 200, verb: "get", uri: "/api/v1/namespaces/prod/configmaps/pre", code: 200, ref: ref("configmaps", "prod", "pre"), responseObject: pre },
    { ...base, at: 400, verb: "create", uri: "/api/v1/namespaces/team-a/configmaps?fieldManager=kubectl-create", code: 201, ref: ref("configmaps", "team-a", "cm1"), requestObject: cm },
    { ...base, at: 600, verb: "get", uri: "/api/v1/namespaces/team-a/configmaps/cm1", code: 200, ref: ref("configmaps", "team-a", "cm1") },
    { ...base, at: 800, verb: "patch", uri: "/api/v1/namespaces/team-a/configmaps/cm1?fieldManager=kubectl-patch", code: 200, ref: ref("configmaps", "team-a", "cm1"), requestObject: { data: { b: "2" } } },
    { ...base, at: 900, verb: "patch", uri: "/api/v1/namespaces/prod/configmaps/pre?fieldManager=kubectl-patch", code: 200, ref: ref("configmaps", "prod", "pre"), requestObject: { data: { z: "3" } } },
    { ...base, at: 1000, verb: "list", uri: "/api/v1/namespaces/team-a/configmaps?limit=500", code: 200, ref: ref("configmaps", "team-a") },
    { ...base, at: 1200, verb: "watch", uri: "/api/v1/namespaces/team-a/configmaps?watch=true&resourceVersion=41", code: 200, stage: "ResponseStarted", id: `w-${level}`, ref: ref("configmaps", "team-a") },
    { ...base, at: 1300, verb: "get", uri: "/api/v1/namespaces/team-a/configmaps/missing", code: 404, ref: ref("configmaps", "team-a", "missing") },
    { ...base, at: 1500, verb: "delete", uri: "/api/v1/namespaces/team-a/configmaps/cm1", code: 200, ref: ref("configmaps", "team-a", "cm1") },
    { ...base, at: 1200, verb: "watch", uri: "/api/v1/namespaces/team-a/configmaps?watch=true&resourceVersion=41", code: 200, id: `w-${level}`, latencyMs: 800, ref: ref("configmaps", "team-a") }
  ]
}

const writeLog = (name: string, events: ReadonlyArray<EventSpec>): string => {
  const path = join(dir, name)
  writeFileSync(path, lines(events.map(auditEvent)))
  return path
}

describe("clustersim replay against clustersim serve", () => {
  let server: { child: ChildProcess; url: string }
  beforeAll(async () => void (server = await serve()), 60_000)
  afterAll(async () => server && (await stop(server.child)))

  const get = async (path: string) => {
    const res = await fetch(`${server.url}${path}`)
    return { code: res.status, body: (await res.json()) as { data?: Record<string, string> } }
  }

  it("replays a RequestResponse log with the recorded codes, and leaves the objects the log left", async () => {
    const log = writeLog("session.log", kubectlSession("RequestResponse"))
    const out = join(dir, "rr")
    const r = await cli(["replay", "--target", server.url, "--namespace-prefix", "rr", "--out", out, log])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^PASS \(exit 0\)$/m)
    const rep = replayOf(out)
    expect(rep.requests).toMatchObject({ planned: 10, sent: 10, matched: 10, mismatched: 0, connectionErrors: 0, synthesized: 0, longRunning: 1 })
    expect(rep.seeding).toMatchObject({ namespaces: 1, objects: 1, synthesized: 0, failed: 0 })
    expect(rep.groups.map((g) => `${g.verb} ${g.resource} ${g.user} ${g.count}`).sort()).toEqual(
      ["create configmaps admin 1", "create namespaces admin 1", "delete configmaps admin 1", "get configmaps admin 3", "list configmaps admin 1", "patch configmaps admin 2", "watch configmaps admin 1"].sort()
    )
    // the objects: the seeded one patched, the created one deleted, the namespace created
    expect(await get("/api/v1/namespaces/rr-prod/configmaps/pre")).toMatchObject({ code: 200, body: { data: { x: "y", z: "3" } } })
    expect((await get("/api/v1/namespaces/rr-team-a/configmaps/cm1")).code).toBe(404)
    expect((await get("/api/v1/namespaces/rr-team-a")).code).toBe(200)
  }, 120_000)

  it("replays a Metadata-level log without 404s when seeded; unseeded, its reads are 404s and the run fails", async () => {
    const log = writeLog("metadata.log", kubectlSession("Metadata"))
    const out = join(dir, "md")
    const r = await cli(["replay", "--target", server.url, "--namespace-prefix", "md", "--out", out, log])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const rep = replayOf(out)
    expect(rep.requests).toMatchObject({ sent: 10, matched: 10, mismatched: 0, synthesized: 4 })
    expect(rep.seeding).toMatchObject({ namespaces: 1, objects: 1, synthesized: 1, failed: 0 })
    expect(r.stdout).toContain("seeded: 1 namespace, 1 object (1 synthesized)")

    const bare = join(dir, "md-bare")
    const b = await cli(["replay", "--target", server.url, "--namespace-prefix", "bare", "--no-seed", "--out", bare, log])
    expect(b.code, b.stdout + b.stderr).toBe(99)
    expect(b.stdout).not.toMatch(/^PASS/m)
    const missing = replayOf(bare).mismatches.find((m) => m.recorded === 200 && m.replayed === 404)!
    expect(missing.count).toBe(2)
    expect(missing.examples[0]).toMatchObject({ verb: "get", uri: "/api/v1/namespaces/bare-prod/configmaps/pre", line: 2 })
    expect(b.stdout).toContain("recorded 200 → replayed 404: 2×")
    expect(b.stdout).toMatch(/✗ outcome:replay-matches \[phase=replay,name=replay\]: failed replayed requests == 0 \(observed 2\)/)
  }, 120_000)

  it("reports what it replayed when interrupted: Ctrl-C writes the partial artifact with the replay's report", async () => {
    // a GET every 100 ms for 8 s; SIGINT 2 s after the replay phase starts
    const log = writeLog(
      "interrupted.log",
      Array.from({ length: 80 }, (_, i) => ({ level: "Metadata" as const, at: i * 100, verb: "get", uri: "/api/v1/namespaces/int/configmaps/c", code: 200, ref: ref("configmaps", "int", "c") }))
    )
    const out = join(dir, "interrupted")
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", "replay", "--target", server.url, "--out", out, log], { stdio: ["ignore", "pipe", "pipe"] })
    let text = ""
    const collect = (d: Buffer) => void (text += d.toString())
    child.stdout!.on("data", collect)
    child.stderr!.on("data", collect)
    const code = await new Promise<number>((resolve) => {
      const poll = setInterval(() => {
        if (!/phase replay/.test(text)) return
        clearInterval(poll)
        setTimeout(() => child.kill("SIGINT"), 2000)
      }, 50)
      child.once("exit", (c) => (clearInterval(poll), resolve(c ?? -1)))
    })
    expect(code, text).toBe(130)
    const rep = replayOf(out)
    expect(rep.requests.sent, text).toBeGreaterThan(5)
    expect(rep.requests.sent).toBeLessThan(80)
    expect(rep.requests.matched).toBe(rep.requests.sent)
    expect(rep.seeding).toMatchObject({ namespaces: 1, objects: 1, synthesized: 1, failed: 0 })
    expect(rep.logs).toEqual([{ file: log, lines: 80, events: 80 }])
    expect(text).toMatch(/replay replay\/replay: .*interrupted\.log \(80 lines, 80 events\)/)
  }, 120_000)

  it("refuses a log that is a pipe before anything starts: a replay reads its logs twice", async () => {
    const fifo = join(dir, "a-pipe")
    execFileSync("mkfifo", [fifo])
    const r = await cli(["replay", "--target", server.url, "--out", join(dir, "never"), fifo])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`clustersim: LOG ${fifo}: is a pipe, not a regular file: a replay reads its logs twice (what to seed, then the requests); save it to a file first\n`)
  }, 60_000)

  it("serve --audit-log-path - writes only events on stdout, its own lines on stderr: the captured stdout is a log", async () => {
    const policy = join(dir, "policy.yaml")
    writeFileSync(policy, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
    const child = spawn("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", "serve", "--port", "0", "--audit-log-path", "-", "--audit-policy-file", policy], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout!.on("data", (d: Buffer) => void (stdout += d.toString()))
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr!.on("data", (d: Buffer) => {
        stderr += d.toString()
        const m = /listening on (http:\/\/\S+)/.exec(stderr)
        if (m) resolve(m[1]!)
      })
      child.once("exit", (code) => reject(new Error(`serve exited (${code}): ${stdout} ${stderr}`)))
    })
    expect((await fetch(`${url}/api/v1/namespaces/default/configmaps`)).status).toBe(200)
    await new Promise((r) => setTimeout(r, 300))
    await stop(child)
    const stdoutLines = stdout.split("\n").filter((l) => l !== "")
    expect(stdoutLines.length).toBeGreaterThan(0)
    for (const l of stdoutLines) expect(JSON.parse(l), l).toMatchObject({ kind: "Event", apiVersion: "audit.k8s.io/v1" })
    expect(stdoutLines.map((l) => JSON.parse(l).requestURI)).toContain("/api/v1/namespaces/default/configmaps")
  }, 120_000)

  it("replays a 2-minute log at --speed 10 on its compressed schedule, every request once, the scheduling error reported", async () => {
    // 20 GETs a second for two minutes, a little jitter; the replay: 200 a second for 12 s
    const events: Array<EventSpec> = []
    for (let i = 0; i < 2400; i++) events.push({ at: i * 50 + (i % 7), verb: "get", uri: "/api/v1/namespaces/default/configmaps/none", code: 404, ref: ref("configmaps", "default", "none"), level: "Metadata" })
    const log = writeLog("timing.log", events)
    const out = join(dir, "timing")
    const r = await cli(["replay", "--target", server.url, "--speed", "10", "--out", out, log])
    expect(r.code, r.stdout + r.stderr).toBe(0)
    const a = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as RunArtifact
    const rep = replayOf(out)
    expect(rep.requests).toMatchObject({ planned: 2400, sent: 2400, matched: 2400 })
    // the schedule: the last request planned at 119.95 s / 10; the run around it reads the log and seeds first
    // an open model never starts early: the last request is planned at 119.95 s / 10 (how late starts were is a speed
    // figure, measured in docs/benchmarks.md, not asserted here)
    expect(rep.durationMs).toBeGreaterThanOrEqual(11_995)
    expect(a.durationMs).toBeGreaterThan(rep.durationMs)
    expect(rep.scheduling.p99).toBeGreaterThanOrEqual(rep.scheduling.p50)
    // recorded 200 a second for the 12 compressed seconds; every request replayed once
    expect(rep.throughput.recorded.slice(0, 12)).toEqual(Array(12).fill(200))
    expect(rep.throughput.replayed.reduce((n, x) => n + x, 0)).toBe(2400)
  }, 120_000)

  it("refuses a target that is not a loopback address unless --allow-remote", async () => {
    const log = writeLog("remote.log", kubectlSession("Metadata"))
    const r = await cli(["replay", "--target", "http://192.0.2.1:6443", log])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(
      "clustersim replay: http://192.0.2.1:6443 is not a loopback address, and a replayed log sends its creates, updates and deletes again (a production log deletes what it deleted); pass --allow-remote to replay there anyway"
    )
  }, 60_000)
})

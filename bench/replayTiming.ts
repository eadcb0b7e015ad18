/**
 * Timing of a replay (issue 41: a 10-minute log at `--speed 10` finishes in ~60 s with scheduling error p99 ≤ 5 ms).
 * Writes a RequestResponse-level audit log of `--minutes` (default 10) of traffic at `--rate` requests a second
 * (default 30): kubectl- and controller-like GETs (a few of them 404s), LISTs of a namespace (~20 KiB answers
 * recorded), creates, updates, deletes of what was created, and watches held 10–60 s, over 20 namespaces; the lines
 * in completion order as the log backend writes them, a tenth flushed up to 1 s late. Then starts `clustersim serve`
 * in its own process and runs `clustersim replay --speed S` (default 10) against it, in its own process, as a user
 * would. Prints the wall time of the replay command and of its schedule, the scheduling error (p50, p99, max, starts
 * more than 5 and 10 ms late, from its run.json) and the 1-minute load average during it. Run compiled:
 * `npm run build && node dist/bench/replayTiming.js [--minutes M] [--rate R] [--speed S] [--probe]`.
 */
import { spawn } from "node:child_process"
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { loadavg, tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { microTimeOfMs } from "../src/api/audit/EventTime.js"
import type { ReplayReport, RunArtifact } from "../src/loadgen/Artifact.js"

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const minutes = flag("minutes", 10)
const rate = flag("rate", 30)
const speed = flag("speed", 10)
/**
 * `--probe`: the replay's process also reports its own stalls — the event loop's delay and the collector's pauses
 * (./_replayProbe.ts) — and, from `--trace-gc-nvp`, the bytes it allocated per request sent.
 */
const probe = process.argv.includes("--probe")
/** Node flags for the replay's process (`--node-flag --cpu-prof`, repeatable), for profiling it. */
const nodeFlags = process.argv.flatMap((a, i) => (process.argv[i - 1] === "--node-flag" ? [a] : []))
const root = fileURLToPath(new URL("../..", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "replay-timing-"))
const logPath = join(dir, "audit.log")

/** mulberry32: the same log every run. */
const random = (() => {
  let a = 41
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
})()
const pick = <T>(xs: ReadonlyArray<T>): T => xs[Math.floor(random() * xs.length)]!

const t0 = Date.parse("2026-01-01T10:00:00Z")
const namespaces = Array.from({ length: 20 }, (_, i) => `team-${i}`)
const existing = 20
const users = [
  { username: "system:serviceaccount:kube-system:replicaset-controller", groups: ["system:serviceaccounts", "system:serviceaccounts:kube-system", "system:authenticated"], agent: "kube-controller-manager/v1.30.0" },
  { username: "system:serviceaccount:ci:runner", groups: ["system:serviceaccounts", "system:serviceaccounts:ci", "system:authenticated"], agent: "ci-runner/2.1" },
  { username: "alice@example.com", groups: ["developers", "system:authenticated"], agent: "kubectl/v1.30.0 (linux/amd64)" }
]
let rv = 1000
const configMap = (ns: string, name: string) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: ns, uid: `00000000-0000-4000-8000-${String(rv).padStart(12, "0")}`, resourceVersion: String(rv++), creationTimestamp: "2026-01-01T09:00:00Z", labels: { app: ns, tier: "web" } },
  data: { "settings.yaml": `replicas: 3\nimage: registry.example.com/${ns}/web:1.${rv % 50}\n` + "# padding\n".repeat(40) }
})

interface Line {
  readonly order: number
  readonly text: string
}

/** The log's events, written in the order the backend would flush them. */
const generate = (): Array<Line> => {
  const out: Array<Line> = []
  const spanMs = minutes * 60_000
  const created = new Map<string, Array<{ name: string; atMs: number }>>(namespaces.map((ns) => [ns, []]))
  let id = 0
  const emit = (o: {
    at: number
    latencyMs: number
    verb: string
    uri: string
    code: number
    ns: string
    name?: string
    stage?: string
    auditID?: string
    requestObject?: unknown
    responseObject?: unknown
  }) => {
    const user = users[id % users.length]!
    const auditID = o.auditID ?? `00000000-0000-4000-9000-${String(++id).padStart(12, "0")}`
    const stageMs = o.at + o.latencyMs
    const event = {
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: "RequestResponse",
      auditID,
      stage: o.stage ?? "ResponseComplete",
      requestURI: o.uri,
      verb: o.verb,
      user: { username: user.username, groups: user.groups },
      sourceIPs: ["10.0.3.7"],
      userAgent: user.agent,
      objectRef: { resource: "configmaps", namespace: o.ns, ...(o.name ? { name: o.name } : {}), apiVersion: "v1" },
      responseStatus: { metadata: {}, code: o.code },
      ...(o.requestObject !== undefined ? { requestObject: o.requestObject } : {}),
      ...(o.responseObject !== undefined ? { responseObject: o.responseObject } : {}),
      requestReceivedTimestamp: microTimeOfMs(t0 + o.at),
      stageTimestamp: microTimeOfMs(t0 + stageMs),
      annotations: { "authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "" }
    }
    // a tenth of the lines flushed late (a backend's batch), up to a second
    out.push({ order: stageMs + (random() < 0.1 ? random() * 1000 : 0), text: JSON.stringify(event) })
    return auditID
  }
  const n = Math.round((spanMs / 1000) * rate)
  for (let i = 0; i < n; i++) {
    const at = (i / n) * spanMs + random() * (1000 / rate)
    const ns = pick(namespaces)
    const base = `/api/v1/namespaces/${ns}/configmaps`
    const r = random()
    const old = `cm-${Math.floor(random() * existing)}`
    if (r < 0.4) {
      const missing = random() < 0.05
      const name = missing ? `gone-${i}` : old
      emit({ at, latencyMs: 2 + random() * 8, verb: "get", uri: `${base}/${name}`, code: missing ? 404 : 200, ns, name, responseObject: missing ? undefined : configMap(ns, name) })
    } else if (r < 0.55) {
      const items = Array.from({ length: existing }, (_, k) => configMap(ns, `cm-${k}`))
      emit({ at, latencyMs: 20 + random() * 180, verb: "list", uri: `${base}?limit=500`, code: 200, ns, responseObject: { kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: String(rv) }, items } })
    } else if (r < 0.67) {
      const name = `new-${i}`
      const obj = configMap(ns, name)
      emit({ at, latencyMs: 5 + random() * 15, verb: "create", uri: `${base}?fieldManager=kubectl-create`, code: 201, ns, name, requestObject: { ...obj, metadata: { name, namespace: ns } }, responseObject: obj })
      created.get(ns)!.push({ name, atMs: at })
    } else if (r < 0.85) {
      const obj = configMap(ns, old)
      emit({ at, latencyMs: 5 + random() * 15, verb: "update", uri: `${base}/${old}?fieldManager=kubectl-edit`, code: 200, ns, name: old, requestObject: obj, responseObject: obj })
    } else if (r < 0.95) {
      // a delete of something this log created at least 2 s before; else a read of an existing one
      const mine = created.get(ns)!
      const k = mine.findIndex((c) => c.atMs < at - 2000)
      if (k >= 0) {
        const [c] = mine.splice(k, 1)
        emit({ at, latencyMs: 5 + random() * 10, verb: "delete", uri: `${base}/${c!.name}`, code: 200, ns, name: c!.name, responseObject: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" } })
      } else emit({ at, latencyMs: 2 + random() * 8, verb: "get", uri: `${base}/${old}`, code: 200, ns, name: old, responseObject: configMap(ns, old) })
    } else {
      const holdMs = 10_000 + random() * 50_000
      const uri = `${base}?allowWatchBookmarks=true&resourceVersion=${rv}&watch=true`
      const auditID = emit({ at, latencyMs: 1, verb: "watch", uri, code: 200, ns, stage: "ResponseStarted" })
      emit({ at, latencyMs: holdMs, verb: "watch", uri, code: 200, ns, auditID })
    }
  }
  return out.sort((a, b) => a.order - b.order)
}

const writeLog = async (lines: ReadonlyArray<Line>) => {
  const file = createWriteStream(logPath)
  for (const l of lines) if (!file.write(l.text + "\n")) await new Promise<void>((r) => file.once("drain", () => r()))
  await new Promise<void>((r) => (file.end(), file.once("close", () => r())))
}

const lines = generate()
await writeLog(lines)
console.log(`log: ${logPath}, ${minutes} min at ${rate}/s recorded, ${lines.length} lines, ${(statSync(logPath).size / 1048576).toFixed(1)} MiB`)

const serve = spawn(process.execPath, ["dist/app/cli/main.js", "serve", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
const url = await new Promise<string>((resolve, reject) => {
  let out = ""
  serve.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString()
    const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out)
    if (m) resolve(m[1]!)
  })
  serve.once("exit", (code) => reject(new Error(`serve exited (${code}): ${out}`)))
})

const loads: Array<number> = []
const sampleLoad = () => void loads.push(loadavg()[0]!)
sampleLoad()
const sampler = setInterval(sampleLoad, 5000)
const out = join(dir, "out")
const started = performance.now()
const probeOut = join(dir, "probe.json")
const probeFlags = probe ? ["--import", fileURLToPath(new URL("./_replayProbe.js", import.meta.url)), "--trace-gc-nvp"] : []
/** Bytes the replay's process allocated (the sum of `allocated=` over its collections, `--trace-gc-nvp`). */
let allocated = 0
const code = await new Promise<number>((resolve) => {
  const child = spawn(process.execPath, [...nodeFlags, ...probeFlags, "dist/app/cli/main.js", "replay", "--target", url, "--speed", String(speed), "--namespace-prefix", "timing", "--out", out, logPath], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, ...(probe ? { REPLAY_PROBE_OUT: probeOut } : {}) }
  })
  let text = ""
  let partial = ""
  child.stdout!.on("data", (d: Buffer) => {
    if (!probe) return void (text += d.toString())
    const lines = (partial + d.toString()).split("\n")
    partial = lines.pop()!
    for (const l of lines) {
      const m = / allocated=(\d+) /.exec(l)
      if (m !== null) allocated += Number(m[1])
      else text += l + "\n"
    }
  })
  child.once("exit", (c) => {
    if (c !== 0) console.log(text)
    resolve(c ?? -1)
  })
})
const wallS = (performance.now() - started) / 1000
clearInterval(sampler)
sampleLoad()
serve.kill("SIGTERM")

const artifact = JSON.parse(readFileSync(join(out, "run.json"), "utf8")) as RunArtifact
const r = artifact.actions.find((a) => a.replay)!.replay! as ReplayReport
const s = r.scheduling
const mean = loads.reduce((a, b) => a + b, 0) / loads.length
console.log(
  `replay: exit ${code}, ${r.requests.sent} sent (${r.requests.longRunning} watches), ${r.requests.matched} matched, ${r.requests.mismatched} mismatched, ${r.requests.dropped} dropped; ` +
    `command ${wallS.toFixed(1)} s, schedule ${(r.durationMs / 1000).toFixed(1)} s (the log's span over the speed: ${((minutes * 60) / speed).toFixed(0)} s, then the watches' holds)`
)
console.log(
  `scheduling error: p50 ${s.p50} ms, p99 ${s.p99} ms, max ${s.max} ms; ${s.lateOver5ms ?? "?"} of ${s.count} starts > 5 ms late, ${s.late} > 10 ms (goal: p99 ≤ 5 ms)`
)
for (const m of r.mismatches.slice(0, 5)) console.log(`  mismatch recorded ${m.recorded} → replayed ${m.replayed}: ${m.count}× e.g. ${m.examples.map((e) => `${e.verb} ${e.uri}`).join(", ")}`)
if (probe) {
  const p = JSON.parse(readFileSync(probeOut, "utf8")) as {
    loopDelay: Record<string, number>
    gc: Record<string, { count: number; totalMs: number; maxMs: number; over5: number }>
  }
  const d = p.loopDelay
  console.log(`the replay's event loop (1 ms ticks, ${d.count}): delay p50 ${d.p50} ms, p99 ${d.p99} ms, p99.9 ${d.p999} ms, max ${d.max} ms; ~${d.over5ms} ticks > 5 ms late`)
  for (const [kind, g] of Object.entries(p.gc)) console.log(`  gc ${kind}: ${g.count}, ${g.totalMs} ms in all, max ${g.maxMs} ms, ${g.over5} > 5 ms`)
  console.log(`  allocated: ${(allocated / 1048576).toFixed(0)} MiB, ${(allocated / r.requests.sent / 1024).toFixed(1)} KiB per request sent (the whole process: reading, planning, sending, reporting)`)
}
console.log(`load average (1 min) during the replay: ${Math.min(...loads).toFixed(2)}–${Math.max(...loads).toFixed(2)}, mean ${mean.toFixed(2)} (${loads.length} samples)`)
if (process.argv.includes("--keep")) console.log(`kept: ${dir}`)
else rmSync(dir, { recursive: true, force: true })
process.exit(code === 0 ? 0 : 1)

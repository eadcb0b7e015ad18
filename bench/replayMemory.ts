/**
 * Memory of a replay (issue 41: a 1 GiB log replays in ≤ 300 MiB RSS). Writes a RequestResponse-level audit log of
 * `--mib` MiB (default 1024) to a temporary file — an hour of kubectl- and controller-like traffic over 5,000
 * objects in 50 namespaces, ~1 KiB objects, a tenth of the lines out of order by up to 2 s — then runs the whole
 * replay (both passes, seeding, the schedule, the report) at `--speed` (default 100,000: as fast as it goes) against
 * a client that answers at once, so what is measured is the replay's own memory, not a server's. Prints the log's
 * size, events, the replay's wall time and the process's peak RSS (VmHWM). Run compiled:
 * `npm run build && node dist/bench/replayMemory.js [--mib N] [--speed S] [--gzip] [--log FILE] [--default-heap]`.
 */
import { createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createGzip } from "node:zlib"
import { Effect, Layer } from "effect"
import { microTimeOfMs as formatMicroTime } from "../src/api/audit/EventTime.js"
import { ApiClient } from "../src/client/ApiClient.js"
import type { ApiClientService } from "../src/client/ApiClientService.js"
import type { RawRequest } from "../src/client/Capabilities.js"
import { LatencyRecorder } from "../src/loadgen/LatencyRecorder.js"
import { runReplay } from "../src/replay/Replay.js"
import { boundHeapGrowth } from "../app/cli/HeapGrowth.js"

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const mib = flag("mib", 1024)
const speed = flag("speed", 100_000)
const gzip = process.argv.includes("--gzip")
/** An existing log to replay instead of writing one (`--keep` printed its path). */
const given = (() => {
  const i = process.argv.indexOf("--log")
  return i >= 0 ? process.argv[i + 1] : undefined
})()

const peakMiB = () => Math.round(Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 102.4) / 10

const dir = mkdtempSync(join(tmpdir(), "replay-bench-"))
const path = given ?? join(dir, gzip ? "audit.log.gz" : "audit.log")

/** The log, written a line at a time with backpressure (never held whole). */
const writeLog = async (): Promise<number> => {
  const file = createWriteStream(gzip ? `${path}.tmp` : path)
  const out = gzip ? createGzip() : file
  if (gzip) out.pipe(file)
  const t0 = Date.parse("2026-01-01T10:00:00Z")
  const filler = "x".repeat(600)
  const verbs = ["get", "get", "get", "list", "watch", "update", "patch", "create", "delete"]
  let written = 0
  let events = 0
  const target = mib * 1024 * 1024
  for (let i = 0; written < target; i++) {
    const verb = verbs[i % verbs.length]!
    const ns = `ns-${i % 50}`
    const name = `cm-${i % 5000}`
    const at = (i * 3_600_000) / 1_000_000 + (i % 10 === 0 ? -(i % 2000) : 0)
    const obj = { apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: ns, resourceVersion: String(i), uid: `u-${i % 5000}` }, data: { blob: filler } }
    const collection = verb === "list" || verb === "watch" || verb === "create"
    const event = {
      kind: "Event",
      apiVersion: "audit.k8s.io/v1",
      level: "RequestResponse",
      auditID: `00000000-0000-0000-0000-${String(i).padStart(12, "0")}`,
      stage: verb === "watch" ? "ResponseStarted" : "ResponseComplete",
      requestURI: `/api/v1/namespaces/${ns}/configmaps${collection ? (verb === "watch" ? "?watch=true&resourceVersion=0" : "") : `/${name}`}`,
      verb,
      user: { username: `system:serviceaccount:${ns}:controller`, groups: ["system:serviceaccounts", "system:authenticated"] },
      sourceIPs: ["10.0.0.7"],
      userAgent: "controller/v1.30.0",
      objectRef: { resource: "configmaps", namespace: ns, ...(collection && verb !== "create" ? {} : { name }), apiVersion: "v1" },
      responseStatus: { metadata: {}, code: verb === "create" ? 201 : 200 },
      ...(verb === "update" || verb === "create" ? { requestObject: obj } : {}),
      ...(verb === "get" || verb === "update" ? { responseObject: obj } : {}),
      requestReceivedTimestamp: formatMicroTime(t0 + Math.max(0, at)),
      stageTimestamp: formatMicroTime(t0 + Math.max(0, at) + 3)
    }
    const line = JSON.stringify(event) + "\n"
    written += line.length
    events++
    if (!out.write(line)) await new Promise<void>((r) => out.once("drain", () => r()))
  }
  await new Promise<void>((r) => (out.end(), file.once("close", () => r())))
  if (gzip) {
    const { renameSync } = await import("node:fs")
    renameSync(`${path}.tmp`, path)
  }
  return events
}

const events = given === undefined ? await writeLog() : undefined
const bytes = statSync(path).size
console.log(`log: ${path}, ${(bytes / 1048576).toFixed(0)} MiB${gzip ? " gzip" : ""}${events === undefined ? "" : `, ${events} events`}; RSS peak after writing it ${peakMiB()} MiB`)

/**
 * Memory over the replay, sampled every 250 ms: RSS and the V8 heap (used and reserved), printed as the peak of each
 * tenth of the run, so a memory that grows with the log shows as a rising line, not only as its peak.
 */
const samples: Array<{ t: number; rss: number; heapUsed: number; heapTotal: number; external: number }> = []
const toMiB = (b: number) => Math.round(b / 104857.6) / 10
const sample = () => {
  const m = process.memoryUsage()
  samples.push({ t: Date.now(), rss: toMiB(m.rss), heapUsed: toMiB(m.heapUsed), heapTotal: toMiB(m.heapTotal), external: toMiB(m.external + m.arrayBuffers) })
}
const sampler = setInterval(sample, 250)
sampler.unref()
const cpuAtStart = process.cpuUsage()

/** A target that answers every request at once with 200: the replay's own work and memory only. */
const instant: ApiClientService = {
  raw: { origin: "http://127.0.0.1:1", send: (q: RawRequest) => Effect.succeed(q.longRunning ? { code: 200, close: () => {}, ended: Promise.resolve() } : { code: 200 }) }
} as unknown as ApiClientService

// as `clustersim replay` runs (app/cli/HeapGrowth.ts); `--default-heap` leaves V8's own growth, for comparison
if (!process.argv.includes("--default-heap")) boundHeapGrowth()
const started = Date.now()
const report = await Effect.runPromise(
  runReplay({
    logs: [path],
    filter: {},
    speed,
    scale: 1,
    impersonate: false,
    seed: true,
    loop: false,
    windowMs: 10_000,
    maxInFlight: 10_000,
    allowRemote: false
  }).pipe(Effect.provide(Layer.merge(Layer.succeed(ApiClient, instant), Layer.effect(LatencyRecorder, LatencyRecorder.make()))))
)
const wall = (Date.now() - started) / 1000
clearInterval(sampler)
sample()
const cpu = process.cpuUsage(cpuAtStart)
const cpuS = (cpu.user + cpu.system) / 1e6
console.log(
  `replay: ${report.requests.sent} sent, ${report.requests.dropped} dropped, ${report.seeding.objects} seeded, ${report.badInput.total} bad lines, ` +
    `${report.selection.lateBeyondWindow} late beyond the window, in ${wall.toFixed(1)} s (${(bytes / 1048576 / wall).toFixed(1)} MiB/s over two passes)`
)
console.log(`CPU: ${cpuS.toFixed(1)} s (${(bytes / 1048576 / cpuS).toFixed(1)} MiB of log per CPU s over two passes)`)
const tenths = 10
console.log("memory over the replay (peak of each tenth, MiB): time s, RSS, heap used, heap reserved, external+buffers")
for (let k = 0; k < tenths; k++) {
  const part = samples.slice(Math.floor((k * samples.length) / tenths), Math.floor(((k + 1) * samples.length) / tenths))
  if (part.length === 0) continue
  const max = (f: (x: (typeof samples)[number]) => number) => Math.max(...part.map(f))
  console.log(
    `  ${((part[part.length - 1]!.t - started) / 1000).toFixed(1).padStart(7)}  ${String(max((x) => x.rss)).padStart(6)}  ${String(max((x) => x.heapUsed)).padStart(6)}  ${String(max((x) => x.heapTotal)).padStart(6)}  ${String(max((x) => x.external)).padStart(6)}`
  )
}
const heapPeak = Math.max(...samples.map((x) => x.heapUsed))
console.log(`peak RSS: ${peakMiB()} MiB, peak heap used ${heapPeak} MiB (goal for a 1 GiB log: ≤ 300 MiB RSS)`)
if (process.argv.includes("--keep") || given !== undefined) console.log(`kept: ${path}`)
if (!process.argv.includes("--keep")) rmSync(dir, { recursive: true, force: true })

/**
 * The long fuzz run (issue 14): `npm run fuzz -- [--requests N] [--seed S] [--concurrency C]`. Starts
 * `clustersim serve` in its own process, sends N seeded hostile requests (bench/fuzz/requests.ts) and
 * reports crashes (the server process exiting), hangs, dropped connections, unexpected 5xx, non-Status
 * error answers, and the server's RSS before and after. Exit code 1 on any finding.
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { runFuzz } from "./fuzz/runFuzz.js"

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  const value = i >= 0 ? Number(process.argv[i + 1]) : fallback
  if (!Number.isSafeInteger(value) || value < 1) throw new Error(`--${name}: a whole number ≥ 1, got ${process.argv[i + 1]}`)
  return value
}

const requests = flag("requests", 10_000)
const seed = flag("seed", 14)
const concurrency = flag("concurrency", 16)
const root = fileURLToPath(new URL("../..", import.meta.url))

const rssMiB = (pid: number): number => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024

const child = spawn(process.execPath, ["dist/app/cli/main.js", "serve", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
let exited: string | undefined
child.on("exit", (code, signal) => (exited = `exited with ${signal ?? code}`))
const url = await new Promise<string>((resolve, reject) => {
  let out = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString()
    const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out)
    if (m) resolve(m[1]!)
  })
  child.on("exit", () => reject(new Error(`clustersim serve ${exited}`)))
})
const rssBefore = rssMiB(child.pid!)
console.log(`fuzz: ${requests} requests, seed ${seed}, concurrency ${concurrency}, against ${url} (pid ${child.pid}, RSS ${rssBefore.toFixed(1)} MiB)`)
const step = Math.max(1, Math.floor(requests / 10))
const report = await runFuzz({
  baseUrl: url,
  requests,
  seed,
  concurrency,
  onProgress: (done) => {
    if (done % step === 0) console.log(`  ${done} done${exited ? `; server ${exited}` : `; server RSS ${rssMiB(child.pid!).toFixed(1)} MiB`}`)
  }
})
const rssAfter = exited ? undefined : rssMiB(child.pid!)
child.kill("SIGTERM")
const count = (kind: string) => report.findings.filter((f) => f.kind === kind).length
console.log(
  JSON.stringify(
    {
      requests: report.requests,
      seconds: Math.round(report.durationMs / 100) / 10,
      crashes: exited ? 1 : 0,
      hangs: count("hang"),
      dropped: count("dropped"),
      unexpected5xx: count("unexpected 5xx"),
      nonStatusErrors: count("non-Status error"),
      rssMiB: { before: Math.round(rssBefore * 10) / 10, after: rssAfter === undefined ? null : Math.round(rssAfter * 10) / 10 },
      byStatus: report.byStatus,
      slowestMs: report.slowest.slice(0, 3)
    },
    null,
    2
  )
)
for (const f of report.findings.slice(0, 20)) console.log(`${f.kind}: ${f.request} → ${f.detail.slice(0, 200)}`)
process.exit(exited || report.findings.length > 0 ? 1 : 0)

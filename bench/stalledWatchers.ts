/**
 * Memory of stalled watchers (issue 14): `clustersim serve` in its own process, N watch streams whose
 * clients never read, then M config-map writes each fanned out to all of them. Reports the server's RSS
 * before, at its peak and after, and how many watches the server closed for falling behind
 * (`watchBufferSize` events or the byte bound, docs/limits.md). Run compiled:
 * `npm run build && node dist/bench/stalledWatchers.js [--watchers N] [--events M] [--bytes B]`.
 */
import { spawn } from "node:child_process"
import { readFileSync } from "node:fs"
import * as net from "node:net"
import { fileURLToPath } from "node:url"
import { Agent, request } from "undici"

const flag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  return i >= 0 ? Number(process.argv[i + 1]) : fallback
}
const watchers = flag("watchers", 1000)
const events = flag("events", 2000)
const bytes = flag("bytes", 2048)
const root = fileURLToPath(new URL("../..", import.meta.url))

const memory = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const mib = (field: string) => Math.round(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 102.4) / 10
  return { rss: mib("VmRSS"), peak: mib("VmHWM") }
}

const child = spawn(process.execPath, ["dist/app/cli/main.js", "serve", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
const url = await new Promise<string>((resolve) => {
  let out = ""
  child.stdout!.on("data", (chunk: Buffer) => {
    out += chunk.toString()
    const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out)
    if (m) resolve(m[1]!)
  })
})
const { hostname, port } = new URL(url)
const before = memory(child.pid!)

// Stalled clients: send the watch request, never read (node stops reading past its 16 KiB buffer).
const sockets = await Promise.all(
  Array.from({ length: watchers }, () => new Promise<net.Socket>((resolve) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`GET /api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=3600 HTTP/1.1\r\nHost: x\r\n\r\n`)
      resolve(socket)
    })
    socket.on("error", () => {})
  }))
)
await new Promise((r) => setTimeout(r, 1000))
const watching = memory(child.pid!)

const agent = new Agent({ connections: 8 })
const started = performance.now()
let next = 0
await Promise.all(Array.from({ length: 8 }, async () => {
  while (next < events) {
    const i = next++
    const res = await request(`${url}/api/v1/namespaces/default/configmaps`, {
      dispatcher: agent,
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: `cm-${i}` }, data: { pad: "x".repeat(bytes) } })
    })
    await res.body.dump()
  }
}))
const writeSeconds = (performance.now() - started) / 1000
await new Promise((r) => setTimeout(r, 2000))
const stalled = memory(child.pid!)

// Resume reading: a stream the server ended carries the last chunk `\r\n0\r\n\r\n` after its events (the
// headers end in `\r\n\r\n` as well, and `Keep-Alive: timeout=90` before it).
const ended = await Promise.all(sockets.map((socket) => new Promise<boolean>((resolve) => {
  let tail = ""
  let idle = setTimeout(() => resolve(false), 5000)
  socket.on("data", (d: Buffer) => {
    tail = (tail + d.toString("latin1")).slice(-16)
    clearTimeout(idle)
    if (tail.endsWith("\r\n0\r\n\r\n")) return resolve(true)
    idle = setTimeout(() => resolve(false), 5000)
  })
  socket.on("close", () => resolve(tail.endsWith("\r\n0\r\n\r\n")))
  socket.resume()
})))
const after = memory(child.pid!)
sockets.forEach((s) => s.destroy())
await agent.close()
child.kill("SIGTERM")
console.log(JSON.stringify({
  watchers,
  events,
  eventBytes: bytes,
  writeSeconds: Math.round(writeSeconds * 10) / 10,
  closedForFallingBehind: ended.filter(Boolean).length,
  rssMiB: { idle: before.rss, watching: watching.rss, stalled: stalled.rss, peak: stalled.peak, afterDrain: after.rss }
}, null, 2))

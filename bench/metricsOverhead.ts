/**
 * What the Prometheus instrumentation costs `clustersim serve` (issue 38: ≤ 5 % of GET throughput): two servers in
 * their own processes on loopback, one with metrics (the default: request, flowcontrol and etcd metrics) and one with
 * `--no-metrics`, each given closed-loop GETs of one pod on 32 keep-alive connections in alternated rounds (on, off,
 * off, on, …) so the machine's drift hits both alike; per side the median round. Ratio = on ÷ off, goal ≥ 0.95.
 * Throughput on a shared machine swings with its other load, so each round also reads the server's CPU time
 * (`/proc/PID/task/T/schedstat`): CPU per request is what bounds a one-event-loop server's throughput, and is
 * steadier than req/s under foreign load; its ratio (off ÷ on) is reported beside.
 * On a busy machine use more, longer rounds and read the CPU ratio; the load average before and after is printed.
 * Run compiled: `npm run build && node dist/bench/metricsOverhead.js [--quick] [--rounds N] [--seconds S]`.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { loadavg } from "node:os"
import { fileURLToPath } from "node:url"
import { performance } from "node:perf_hooks"
import { Pool, request } from "undici"

const quick = process.argv.includes("--quick")
/** `--NAME N`: a positive number, or the default. */
const numberFlag = (name: string, fallback: number): number => {
  const i = process.argv.indexOf(`--${name}`)
  const n = i < 0 ? NaN : Number(process.argv[i + 1])
  if (i >= 0 && !(n > 0)) throw new Error(`--${name} takes a positive number`)
  return i < 0 ? fallback : n
}
const root = fileURLToPath(new URL("../..", import.meta.url))
const cli = fileURLToPath(new URL("../app/cli/main.js", import.meta.url))

const startServe = (extra: ReadonlyArray<string>): Promise<{ url: string; child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "serve", "--port", "0", ...extra], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out)
      if (m) resolve({ url: m[1]!, child })
    })
    child.on("exit", (code) => reject(new Error(`serve ${extra.join(" ")} exited with ${code}`)))
  })

const pod = {
  metadata: { name: "bench", labels: { app: "bench" } },
  spec: { nodeName: "node-1", containers: [{ name: "app", image: "registry.example/app:1.0", resources: { requests: { cpu: "100m", memory: "128Mi" } } }] }
}
const path = "/api/v1/namespaces/default/pods/bench"

/**
 * CPU seconds a process has used, all its threads (the event loop, GC helpers): `/proc/PID/task/T/schedstat`'s run
 * time in ns. `/proc/PID/stat`'s utime + stime count 10 ms ticks, ±3 % of a short round's; the fallback.
 */
const cpuSeconds = (pid: number): number => {
  try {
    let ns = 0
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, "utf8").split(" ")[0])
      } catch {
        // the thread ended meanwhile
      }
    }
    if (ns > 0) return ns / 1e9
  } catch {
    // no schedstat here
  }
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

/** Closed-loop GETs on `connections` connections for `seconds`: requests per second and server CPU µs per request. */
const getLoad = async (url: string, seconds: number, connections: number, pid: number): Promise<{ rps: number; cpuUs: number }> => {
  const cpuBefore = cpuSeconds(pid)
  const pool = new Pool(url, { connections, pipelining: 1 })
  let count = 0
  const deadline = performance.now() + seconds * 1000
  const worker = async () => {
    while (performance.now() < deadline) {
      const res = await pool.request({ path, method: "GET" })
      await res.body.arrayBuffer()
      if (res.statusCode !== 200) throw new Error(`GET ${path}: ${res.statusCode}`)
      count++
    }
  }
  const began = performance.now()
  await Promise.all(Array.from({ length: connections }, worker))
  const elapsed = (performance.now() - began) / 1000
  const cpu = cpuSeconds(pid) - cpuBefore
  await pool.close()
  return { rps: count / elapsed, cpuUs: (cpu / count) * 1e6 }
}

const median = (xs: ReadonlyArray<number>) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length % 2 === 1 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

const main = async () => {
  const on = await startServe([])
  const off = await startServe(["--no-metrics"]).catch((e: unknown) => {
    on.child.kill("SIGINT")
    throw e
  })
  try {
    for (const s of [on, off]) {
      const res = await request(`${s.url}/api/v1/namespaces/default/pods`, { method: "POST", body: JSON.stringify(pod), headers: { "content-type": "application/json" } })
      await res.body.text()
      if (res.statusCode !== 201) throw new Error(`POST pod: ${res.statusCode}`)
    }
    const metricsStatus = [(await request(`${on.url}/metrics`)).statusCode, (await request(`${off.url}/metrics`)).statusCode]
    if (metricsStatus[0] !== 200 || metricsStatus[1] !== 404) throw new Error(`/metrics answered ${metricsStatus.join(" and ")}; expected 200 (on) and 404 (off)`)
    const connections = 32
    const seconds = numberFlag("seconds", quick ? 1 : 3)
    const rounds = numberFlag("rounds", quick ? 4 : 8)
    const loadBefore = loadavg()
    // warm up both (the JIT, the metrics' label sets)
    for (let i = 0; i < 2; i++) for (const s of [on, off]) await getLoad(s.url, seconds, connections, s.child.pid!)
    const onRounds: Array<{ rps: number; cpuUs: number }> = []
    const offRounds: Array<{ rps: number; cpuUs: number }> = []
    for (let round = 0; round < rounds; round++) {
      // ABBA order: neither side always goes first
      const order = round % 2 === 0 ? [on, off] : [off, on]
      for (const s of order) (s === on ? onRounds : offRounds).push(await getLoad(s.url, seconds, connections, s.child.pid!))
    }
    const onRps = median(onRounds.map((r) => r.rps))
    const offRps = median(offRounds.map((r) => r.rps))
    const onCpu = median(onRounds.map((r) => r.cpuUs))
    const offCpu = median(offRounds.map((r) => r.cpuUs))
    const ratio = onRps / offRps
    const cpuRatio = offCpu / onCpu
    const loadAverage = { before: loadBefore.map((l) => Number(l.toFixed(2))), after: loadavg().map((l) => Number(l.toFixed(2))) }
    console.log(
      `GET one pod (median of ${rounds} alternated rounds of ${seconds} s, ${connections} connections): metrics on ${onRps.toFixed(0)} req/s, ${onCpu.toFixed(1)} µs server CPU/request | ` +
        `--no-metrics ${offRps.toFixed(0)} req/s, ${offCpu.toFixed(1)} µs | throughput ratio ${ratio.toFixed(3)}, CPU ratio ${cpuRatio.toFixed(3)} (goal ≥ 0.95); load average ${loadAverage.before.join(" ")} before, ${loadAverage.after.join(" ")} after`
    )
    console.log(JSON.stringify({ bench: "metricsOverhead", onRounds, offRounds, onRps, offRps, onCpuUs: onCpu, offCpuUs: offCpu, ratio, cpuRatio, connections, seconds, rounds, loadAverage }))
  } finally {
    on.child.kill("SIGINT")
    off.child.kill("SIGINT")
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})

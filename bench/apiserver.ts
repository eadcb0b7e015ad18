/**
 * API server benchmarks (issues 2, 3 and 15), against `clustersim serve` in its own process on loopback:
 *  1. GET of one pod: req/s, p50, p99, next to a bare node:http server returning the same bytes (ratio, goal ≥ 0.7),
 *     and the same GET asking for protobuf;
 *  2. LIST of 10,000 pods in pages of 500 (total time), then unpaged as JSON and as protobuf: bytes on the wire,
 *     request-to-decoded time at the client, and the encode (server side) and decode (client side) times alone;
 *  3. one write delivered to 1,000 HTTP watch streams: delivery latency p50/p99 (goal p99 ≤ 100 ms), server RSS.
 * Run compiled: `npm run build && node dist/bench/apiserver.js [--quick]`.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { performance } from "node:perf_hooks"
import * as hdr from "hdr-histogram-js"
import { Agent, Pool, request } from "undici"
import { Either } from "effect"
import { decodeObject, encodeObject } from "../src/api/protobuf/Envelope.js"

const quick = process.argv.includes("--quick")
const root = fileURLToPath(new URL("../..", import.meta.url))

/** Starts a child that prints `… listening on http://HOST:PORT` and resolves its URL. */
const startProcess = (args: string[]): Promise<{ url: string; child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out)
      if (m) resolve({ url: m[1]!, child })
    })
    child.on("exit", (code) => reject(new Error(`${args.join(" ")} exited with ${code}`)))
  })

const rssOf = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0)
  return { rssMiB: kb("VmRSS") / 1024, peakMiB: kb("VmHWM") / 1024 }
}

const histogram = () => hdr.build({ lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: 3 })

/** Closed-loop GETs on `connections` keep-alive connections for `seconds`; latency in µs. */
const getLoad = async (url: string, path: string, seconds: number, connections: number, headers?: Record<string, string>) => {
  const pool = new Pool(url, { connections, pipelining: 1 })
  const h = histogram()
  let count = 0
  const deadline = performance.now() + seconds * 1000
  const worker = async () => {
    while (performance.now() < deadline) {
      const start = performance.now()
      const res = await pool.request({ path, method: "GET", headers })
      await res.body.arrayBuffer()
      h.recordValue(Math.max(1, Math.round((performance.now() - start) * 1000)))
      count++
    }
  }
  const began = performance.now()
  await Promise.all(Array.from({ length: connections }, worker))
  const elapsed = (performance.now() - began) / 1000
  await pool.close()
  return { rps: count / elapsed, p50ms: h.getValueAtPercentile(50) / 1000, p99ms: h.getValueAtPercentile(99) / 1000 }
}

const post = async (url: string, path: string, body: unknown, dispatcher?: Agent) => {
  const res = await request(url + path, {
    method: "POST",
    body: JSON.stringify(body),
    headers: { "content-type": "application/json" },
    ...(dispatcher ? { dispatcher } : {})
  })
  const text = await res.body.text()
  if (res.statusCode >= 300) throw new Error(`POST ${path}: ${res.statusCode} ${text}`)
  return JSON.parse(text) as { metadata: { resourceVersion: string } }
}

const pod = (name: string) => ({
  metadata: { name, labels: { app: "bench", tier: "web" } },
  spec: { nodeName: "node-1", containers: [{ name: "app", image: "registry.example/app:1.0", resources: { requests: { cpu: "100m", memory: "128Mi" } } }] },
  status: { phase: "Running", podIP: "10.0.0.1" }
})

const benchGet = async (serverUrl: string) => {
  await post(serverUrl, "/api/v1/namespaces/default/pods", pod("bench"))
  const path = "/api/v1/namespaces/default/pods/bench"
  const sample = await request(serverUrl + path)
  const bytes = Buffer.from(await sample.body.arrayBuffer())
  const bare = await startProcess([fileURLToPath(new URL("./bareServer.js", import.meta.url)), bytes.toString("base64")])
  const seconds = quick ? 1 : 4
  const connections = 32
  try {
    await getLoad(serverUrl, path, 1, connections) // warm up both
    await getLoad(bare.url, path, 1, connections)
    // Interleaved rounds, best of each: the machine's noise hits both sides alike.
    const best = (a: Awaited<ReturnType<typeof getLoad>> | undefined, b: Awaited<ReturnType<typeof getLoad>>) => (a && a.rps >= b.rps ? a : b)
    let sim: Awaited<ReturnType<typeof getLoad>> | undefined
    let baseline: Awaited<ReturnType<typeof getLoad>> | undefined
    let protobuf: Awaited<ReturnType<typeof getLoad>> | undefined
    for (let round = 0; round < 3; round++) {
      sim = best(sim, await getLoad(serverUrl, path, seconds, connections))
      baseline = best(baseline, await getLoad(bare.url, path, seconds, connections))
      protobuf = best(protobuf, await getLoad(serverUrl, path, seconds, connections, { accept: protobufAccept }))
    }
    const protobufSample = await request(serverUrl + path, { headers: { accept: protobufAccept } })
    const protobufBytes = (await protobufSample.body.arrayBuffer()).byteLength
    return {
      clustersim: sim!,
      bareNodeHttp: baseline!,
      ratio: sim!.rps / baseline!.rps,
      bodyBytes: bytes.length,
      protobuf: { ...protobuf!, bodyBytes: protobufBytes },
      connections,
      seconds,
      rounds: 3
    }
  } finally {
    bare.child.kill()
  }
}

const benchList = async (serverUrl: string, total: number) => {
  const agent = new Agent({ connections: 64 })
  const names = Array.from({ length: total }, (_, i) => `p-${String(i).padStart(5, "0")}`)
  for (let i = 0; i < names.length; i += 64) await Promise.all(names.slice(i, i + 64).map((n) => post(serverUrl, "/api/v1/namespaces/bench/pods", pod(n), agent)))
  const runs: number[] = []
  let pages = 0
  for (let r = 0; r < 3; r++) {
    const start = performance.now()
    let token: string | undefined
    let items = 0
    pages = 0
    do {
      const res = await request(`${serverUrl}/api/v1/namespaces/bench/pods?limit=500${token ? `&continue=${encodeURIComponent(token)}` : ""}`, { dispatcher: agent })
      const list = (await res.body.json()) as { items: unknown[]; metadata: { continue?: string } }
      items += list.items.length
      token = list.metadata.continue
      pages++
    } while (token)
    runs.push(performance.now() - start)
    if (items !== total) throw new Error(`listed ${items} of ${total}`)
  }
  await agent.close()
  runs.sort((a, b) => a - b)
  return { pods: total, pageSize: 500, pages, medianMs: runs[1]!, runsMs: runs }
}

const protobufAccept = "application/vnd.kubernetes.protobuf"

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

/** Best-effort CPU time of `f` in ms: the median of `runs` calls. */
const timed = (runs: number, f: () => unknown) => {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    f()
    times.push(performance.now() - start)
  }
  return median(times)
}

/** The unpaged LIST of the pods `benchList` created, as JSON and as protobuf (runs interleaved). */
const benchListEncodings = async (serverUrl: string, total: number) => {
  const path = "/api/v1/namespaces/bench/pods"
  const fetchList = async (accept: string) => {
    const start = performance.now()
    const res = await request(serverUrl + path, { headers: { accept } })
    const bytes = Buffer.from(await res.body.arrayBuffer())
    const received = performance.now()
    const decoded = accept === protobufAccept ? Either.getOrThrow(decodeObject(bytes)).object : (JSON.parse(bytes.toString("utf8")) as object)
    const done = performance.now()
    if (((decoded as { items?: unknown[] }).items ?? []).length !== total) throw new Error(`listed a wrong number of pods as ${accept}`)
    return { bytes, decoded, receivedMs: received - start, totalMs: done - start }
  }
  const runs = { json: [] as number[], protobuf: [] as number[] }
  const received = { json: [] as number[], protobuf: [] as number[] }
  let samples: { json: Awaited<ReturnType<typeof fetchList>>; protobuf: Awaited<ReturnType<typeof fetchList>> } | undefined
  await fetchList("application/json") // warm up both
  await fetchList(protobufAccept)
  for (let r = 0; r < 5; r++) {
    const json = await fetchList("application/json")
    const protobuf = await fetchList(protobufAccept)
    runs.json.push(json.totalMs)
    runs.protobuf.push(protobuf.totalMs)
    received.json.push(json.receivedMs)
    received.protobuf.push(protobuf.receivedMs)
    samples = { json, protobuf }
  }
  // The codec alone, on the list just received: what the server spends encoding and the client decoding.
  const list = samples!.json.decoded
  const encodeJsonMs = timed(5, () => Buffer.from(JSON.stringify(list) + "\n"))
  const encodeProtobufMs = timed(5, () => Either.getOrThrow(encodeObject(list as Record<string, unknown>)))
  const decodeJsonMs = timed(5, () => JSON.parse(samples!.json.bytes.toString("utf8")))
  const decodeProtobufMs = timed(5, () => Either.getOrThrow(decodeObject(samples!.protobuf.bytes)))
  return {
    pods: total,
    json: { bytes: samples!.json.bytes.length, medianMs: median(runs.json), receivedMedianMs: median(received.json), encodeMs: encodeJsonMs, decodeMs: decodeJsonMs },
    protobuf: {
      bytes: samples!.protobuf.bytes.length,
      medianMs: median(runs.protobuf),
      receivedMedianMs: median(received.protobuf),
      encodeMs: encodeProtobufMs,
      decodeMs: decodeProtobufMs
    },
    runs: 5
  }
}

const benchWatch = async (serverUrl: string, watchers: number, writes: number) => {
  const agent = new Agent({ connections: watchers + 8, pipelining: 0, headersTimeout: 0, bodyTimeout: 0 })
  const list = (await (await request(`${serverUrl}/api/v1/namespaces/default/configmaps`)).body.json()) as { metadata: { resourceVersion: string } }
  const h = histogram()
  const acked = new Map<string, number>()
  let received = 0
  const pending: Array<() => void> = []
  const streams = await Promise.all(
    Array.from({ length: watchers }, async () => {
      const res = await request(`${serverUrl}/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}`, {
        dispatcher: agent
      })
      let buffer = ""
      res.body.setEncoding("utf8")
      res.body.on("data", (chunk: string) => {
        const now = performance.now()
        buffer += chunk
        let nl: number
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl)
          buffer = buffer.slice(nl + 1)
          const event = JSON.parse(line) as { object: { metadata: { name: string } } }
          const at = acked.get(event.object.metadata.name)
          // An event can arrive before the writer sees its own ack; count it from the ack time either way.
          h.recordValue(Math.max(1, Math.round((now - (at ?? now)) * 1000)))
          if (++received % watchers === 0) pending.shift()?.()
        }
      })
      return res
    })
  )
  await new Promise((r) => setTimeout(r, 500))
  for (let i = 0; i < writes; i++) {
    const delivered = new Promise<void>((r) => pending.push(r))
    const start = performance.now()
    const name = `w-${i}`
    const write = post(serverUrl, "/api/v1/namespaces/default/configmaps", { metadata: { name }, data: { i: String(i) } })
    await write
    acked.set(name, performance.now())
    void start
    await delivered
  }
  const after = { p50ms: h.getValueAtPercentile(50) / 1000, p99ms: h.getValueAtPercentile(99) / 1000, maxMs: h.maxValue / 1000 }
  for (const s of streams) s.body.destroy()
  await agent.destroy()
  return { watchers, writes, deliveries: received, ...after }
}

const main = async () => {
  const server = await startProcess([fileURLToPath(new URL("../app/cli/main.js", import.meta.url)), "serve", "--port", "0"])
  try {
    await post(server.url, "/api/v1/namespaces", { metadata: { name: "bench" } })
    const get = await benchGet(server.url)
    console.log(
      `GET one pod (${get.bodyBytes} B, ${get.connections} connections, best of ${get.rounds} × ${get.seconds} s): clustersim ${get.clustersim.rps.toFixed(0)} req/s ` +
        `p50 ${get.clustersim.p50ms.toFixed(2)} ms p99 ${get.clustersim.p99ms.toFixed(2)} ms | bare node:http ${get.bareNodeHttp.rps.toFixed(0)} req/s ` +
        `p50 ${get.bareNodeHttp.p50ms.toFixed(2)} ms p99 ${get.bareNodeHttp.p99ms.toFixed(2)} ms | ratio ${get.ratio.toFixed(2)} (goal ≥ 0.70)`
    )
    console.log(
      `GET one pod as protobuf (${get.protobuf.bodyBytes} B): ${get.protobuf.rps.toFixed(0)} req/s p50 ${get.protobuf.p50ms.toFixed(2)} ms p99 ${get.protobuf.p99ms.toFixed(2)} ms`
    )
    const list = await benchList(server.url, quick ? 2_000 : 10_000)
    console.log(`LIST ${list.pods} pods in pages of ${list.pageSize} (${list.pages} pages): median ${list.medianMs.toFixed(0)} ms (runs ${list.runsMs.map((r) => r.toFixed(0)).join(", ")} ms)`)
    const encodings = await benchListEncodings(server.url, list.pods)
    for (const [name, e] of [["JSON", encodings.json], ["protobuf", encodings.protobuf]] as const)
      console.log(
        `LIST ${encodings.pods} pods unpaged as ${name}: ${(e.bytes / 1e6).toFixed(2)} MB, request to decoded ${e.medianMs.toFixed(0)} ms (received ${e.receivedMedianMs.toFixed(0)} ms) | ` +
          `encode ${e.encodeMs.toFixed(0)} ms, decode ${e.decodeMs.toFixed(0)} ms (median of ${encodings.runs})`
      )
    const watch = await benchWatch(server.url, quick ? 200 : 1_000, quick ? 5 : 20)
    const rss = rssOf(server.child.pid!)
    console.log(
      `WATCH ${watch.watchers} HTTP streams × ${watch.writes} writes (${watch.deliveries} deliveries): p50 ${watch.p50ms.toFixed(1)} ms p99 ${watch.p99ms.toFixed(1)} ms ` +
        `max ${watch.maxMs.toFixed(1)} ms (goal p99 ≤ 100 ms) | server RSS ${rss.rssMiB.toFixed(0)} MiB, peak ${rss.peakMiB.toFixed(0)} MiB`
    )
    console.log(JSON.stringify({ bench: "apiserver", get, list, listEncodings: encodings, watch, serverRss: rss }))
  } finally {
    server.child.kill("SIGINT")
  }
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})

/**
 * Load generator benchmarks (issue 5), compiled: `npm run build && node dist/bench/loadgen.js [--quick]`.
 *  1. Max GET throughput of the generator (a load action's GET in a closed loop: `ApiClient.layerHttp`'s `measure`,
 *     recorded in the LatencyRecorder) next to autocannon's, against the same `clustersim serve` process on loopback,
 *     in the same run (goal ≥ 1.0×); then `clustersim run --workers 2` next to `autocannon -w 2`.
 *  2. Stall test: a fake target that stalls 1 s during a 10 s run at 500 req/s. Measured from the intended
 *     start, p99 ≈ 0.9 s (50 of 5,000 samples waited 0.9–1 s); a coordinated closed loop reports only the
 *     service time.
 */
import { spawn, type ChildProcess } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"
import { Duration, Effect, Layer, Runtime } from "effect"
import { request } from "undici"
import { ConfigMaps } from "../src/api/Resources.js"
import { ApiClient } from "../src/client/ApiClient.js"
import { closedLoop, constantArrivalRate, type DirectIteration, type Operation } from "../src/loadgen/Arrival.js"
import { LatencyRecorder, nowMillis, summarize } from "../src/loadgen/LatencyRecorder.js"
import { wholeRun } from "../src/loadgen/ExecutionSegment.js"
import { makeOperation, Progress, seededRandom, WriteLog, type RunEnv } from "../app/scenario/Operations.js"
import type { Request, Scenario } from "../app/scenario/Scenario.js"

const quick = process.argv.includes("--quick")
const root = fileURLToPath(new URL("../..", import.meta.url))
const seconds = quick ? 3 : 5
const connections = 64

interface AutocannonResult {
  /** Per-second counts (summed over workers): `p50` is the median second. */
  readonly requests: { readonly average: number; readonly total: number; readonly p50: number }
  readonly latency: { readonly p50: number; readonly p99: number }
  readonly non2xx: number
  readonly errors: number
}
type Autocannon = (opts: Record<string, unknown>) => Promise<AutocannonResult>
// autocannon ships no types; this is the one call used
const autocannon = createRequire(import.meta.url)("autocannon") as Autocannon

const startServer = (): Promise<{ url: string; child: ChildProcess }> =>
  new Promise((resolve, reject) => {
    const main = fileURLToPath(new URL("../app/cli/main.js", import.meta.url))
    const child = spawn(process.execPath, [main, "serve", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] })
    let out = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(out)
      if (m) resolve({ url: m[1]!, child })
    })
    child.on("exit", (code) => reject(new Error(`clustersim serve exited with ${code}`)))
  })

const key = { metric: "api_call", operation: "GET", resource: "configmaps", scope: "resource" }

/** The median of per-second request counts, the first and last (partial) seconds left out: a rate past warm-up. */
const medianOfFullSeconds = (perSecond: ReadonlyArray<number>): number => {
  const full = perSecond.slice(1, -1).sort((a, b) => a - b)
  return full.length === 0 ? 0 : full.length % 2 === 1 ? full[(full.length - 1) / 2]! : (full[full.length / 2 - 1]! + full[full.length / 2]!) / 2
}

/**
 * `clustersim run --target URL --workers N` on a closed-loop GET scenario: what a user runs; rate from the merged
 * report (the whole phase, warm-up included), and the median second past warm-up from its 1 s intervals.
 */
const cliMaxGet = (url: string, durationSeconds: number, workers: number): Promise<{ rps: number; steadyRps: number; errors: number; saturated: string | undefined }> =>
  new Promise((resolve, reject) => {
    const dir = mkdtempSync(join(tmpdir(), "clustersim-bench-"))
    const file = join(dir, "get.yaml")
    writeFileSync(
      file,
      `apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: bench-get }\nphases:\n  - name: gets\n    duration: ${durationSeconds}s\n    actions:\n` +
        `      - { type: closed, name: get, workers: ${connections}, request: { verb: get, resource: configmaps, name: bench, namespace: default } }\n`
    )
    const main = fileURLToPath(new URL("../app/cli/main.js", import.meta.url))
    const child = spawn(process.execPath, [main, "run", file, "--target", url, "--workers", String(workers), "--out", join(dir, "out")], { stdio: "ignore" })
    child.on("exit", () => {
      try {
        const a = JSON.parse(readFileSync(join(dir, "out", "run.json"), "utf8"))
        const e = a.actions.find((x: { action: string }) => x.action === "get").executor
        const perSecond = (a.intervals as Array<{ key: { operation: string }; latency: { count: number } }>).filter((i) => i.key.operation === "GET").map((i) => i.latency.count)
        resolve({
          rps: e.completed / ((e.endedAtMs - e.startedAtMs) / 1000),
          steadyRps: medianOfFullSeconds(perSecond),
          errors: e.errors,
          saturated: a.health?.saturated ? a.health.reasons.join("; ") : undefined
        })
      } catch (e) {
        reject(e)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    })
  })

/** A load action's GET as a scenario runs it (`makeOperation`): the request path the benchmark measures. */
const getOperation = () => {
  const request: Request = { verb: "get", resource: "configmaps", name: "bench", namespace: "default" }
  const env: RunEnv = { scenario: { phases: [] } as unknown as Scenario, random: seededRandom(1), writes: new WriteLog(), progress: new Progress(), runTag: "bench", segment: wholeRun }
  return makeOperation(env, { request, resource: ConfigMaps, namespace: "default", set: undefined }, "bench")
}

/** Closed loop, `connections` workers, through a load action's request path (undici, recorder). */
const generatorMaxGet = (url: string, durationSeconds: number) =>
  Effect.gen(function* () {
    const cpu0 = process.cpuUsage()
    const report = yield* closedLoop({
      key,
      workers: connections,
      duration: Duration.seconds(durationSeconds),
      gracefulStop: Duration.seconds(5),
      operation: getOperation()
    })
    const snap = (yield* (yield* LatencyRecorder).snapshot).find((s) => s.key.operation === "GET")!
    const elapsed = (report.endedAtMs - report.startedAtMs) / 1000
    const cpu = process.cpuUsage(cpu0)
    return { rps: report.completed / elapsed, errors: report.errors, latency: summarize(snap.latency), cpuMicrosPerRequest: (cpu.user + cpu.system) / report.completed }
  }).pipe(Effect.provide(Layer.merge(ApiClient.layerHttp({ baseUrl: url, connections }), LatencyRecorder.layer())))

/** 1 s stall starting at 4 s; otherwise a 1 ms answer. */
const stallTarget = (t0: number) =>
  Effect.flatMap(nowMillis, (now) => {
    const start = t0 + 4_000
    const end = start + 1_000
    return Effect.sleep(Duration.millis(now >= start && now < end ? end - now : 1))
  })

/**
 * The stall target in callback form, as a load action's measured GET runs over HTTP (`DirectIteration`): sent at
 * once, answered from a fiber of the bench's runtime.
 */
const directStallTarget = (t0: number): Operation<never, never> =>
  Object.assign(() => Effect.dieMessage("the executor should run the direct form"), {
    direct: Effect.map(
      Effect.runtime<never>(),
      (runtime): DirectIteration<never> =>
        (_iteration, _intendedStart, done) =>
          void Runtime.runFork(runtime)(Effect.zipRight(stallTarget(t0), Effect.sync(() => done(undefined))))
    )
  })

/** 500 req/s for 10 s against the stall target, open model; the whole-run series. */
const openStallRun = (operation: (t0: number) => Operation<never, never>) =>
  Effect.provide(
    Effect.gen(function* () {
      const t0 = yield* nowMillis
      yield* constantArrivalRate({ key, rate: 500, duration: Duration.seconds(10), maxInFlight: 10_000, operation: operation(t0) })
      return (yield* (yield* LatencyRecorder).snapshot)[0]!
    }),
    LatencyRecorder.layer()
  )

const stallTest = Effect.gen(function* () {
  const open = yield* openStallRun((t0) => (ctx) => Effect.zipRight(ctx.markSent, stallTarget(t0)))
  const direct = yield* openStallRun(directStallTarget)
  const t1 = yield* nowMillis
  const closed = yield* Effect.provide(
    Effect.gen(function* () {
      yield* closedLoop({ key, workers: 1, duration: Duration.seconds(10), operation: () => stallTarget(t1) })
      return (yield* (yield* LatencyRecorder).snapshot)[0]!
    }),
    LatencyRecorder.layer()
  )
  return { open, direct, closed }
})

const f = (ms: number) => (ms >= 100 ? `${(ms / 1000).toFixed(3)} s` : `${ms.toFixed(2)} ms`)

const only = process.argv.includes("--stall-only") ? "stall" : process.argv.includes("--throughput-only") ? "throughput" : "all"

const main = async () => {
  if (only !== "stall") await throughput()
  if (only !== "throughput") await stall()
}

const throughput = async () => {
  const { url, child } = await startServer()
  try {
    const created = await request(`${url}/api/v1/namespaces/default/configmaps`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ metadata: { name: "bench" }, data: { k: "v".repeat(200) } })
    })
    await created.body.text()
    if (created.statusCode !== 201) throw new Error(`seeding the config map: HTTP ${created.statusCode}`)

    console.log(`# loadgen: max GET throughput, ${connections} connections, server ${url} (own process)`)
    const target = `${url}/api/v1/namespaces/default/configmaps/bench`
    // both clients and the server JIT-compile first: warm each, then alternate and keep each one's best round
    await autocannon({ url: target, connections, duration: 2 })
    await Effect.runPromise(generatorMaxGet(url, 2))
    const rounds: Array<{ ac: AutocannonResult; acCpu: number; gen: Effect.Effect.Success<ReturnType<typeof generatorMaxGet>> }> = []
    for (let i = 0; i < (quick ? 1 : 3); i++) {
      const gen = await Effect.runPromise(generatorMaxGet(url, seconds))
      const cpu0 = process.cpuUsage()
      const ac = await autocannon({ url: target, connections, duration: seconds })
      const cpu = process.cpuUsage(cpu0)
      const acCpu = (cpu.user + cpu.system) / ac.requests.total
      rounds.push({ ac, acCpu, gen })
      console.log(
        `round ${i + 1}: autocannon ${(ac.requests.total / seconds).toFixed(0)} req/s (${acCpu.toFixed(1)} µs CPU/req), clustersim ${gen.rps.toFixed(0)} req/s (${gen.cpuMicrosPerRequest.toFixed(1)} µs CPU/req)`
      )
    }
    // on a shared machine the req/s of both depend on what else runs; the CPU each spends per request does not
    // (much): per-core throughput is its inverse
    const acCpuBest = Math.min(...rounds.map((r) => r.acCpu))
    const genCpuBest = Math.min(...rounds.map((r) => r.gen.cpuMicrosPerRequest))
    console.log(`CPU per request (best round): autocannon ${acCpuBest.toFixed(1)} µs, clustersim ${genCpuBest.toFixed(1)} µs — per-core ratio ${(acCpuBest / genCpuBest).toFixed(2)}×`)
    const ac = rounds.map((r) => r.ac).sort((a, b) => b.requests.total - a.requests.total)[0]!
    const gen = rounds.map((r) => r.gen).sort((a, b) => b.rps - a.rps)[0]!
    const acRps = ac.requests.total / seconds
    console.log(`best of ${rounds.length} rounds, ${seconds} s each:`)
    console.log(`autocannon   ${acRps.toFixed(0).padStart(7)} req/s  p50 ${ac.latency.p50} ms  p99 ${ac.latency.p99} ms  errors ${ac.errors + ac.non2xx}`)
    console.log(
      `clustersim   ${gen.rps.toFixed(0).padStart(7)} req/s  p50 ${gen.latency.p50.toFixed(2)} ms  p99 ${gen.latency.p99.toFixed(2)} ms  errors ${gen.errors}  (a load action's GET: ApiClient.layerHttp measure + closedLoop + LatencyRecorder)`
    )
    console.log(`ratio generator / autocannon, 1 worker: ${(gen.rps / acRps).toFixed(2)}× (goal ≥ 1.0×)`)

    // The same with two of each: autocannon -w 2 (worker threads) and `clustersim run --workers 2` (processes).
    // Warm-up is handled alike: each call starts its workers afresh (autocannon new threads, clustersim new
    // processes: module loading before the phase starts, JIT warm-up inside it) against the warm server, and both
    // are given two ways: all requests over the run (warm-up included), and the median full second (warm-up left
    // out: autocannon's per-second totals over its workers, clustersim's 1 s intervals).
    console.log(`\n# loadgen: 2 workers each, ${connections} connections in all, same server (fresh workers per round: warm-up inside the ${seconds} s)`)
    const two: Array<{ ac: number; acSteady: number; gen: number; genSteady: number }> = []
    for (let i = 0; i < (quick ? 1 : 2); i++) {
      const gen = await cliMaxGet(url, seconds, 2)
      const acW = await autocannon({ url: target, connections, duration: seconds, workers: 2 })
      const acSteady = acW.requests.p50
      two.push({ ac: acW.requests.total / seconds, acSteady, gen: gen.rps, genSteady: gen.steadyRps })
      console.log(
        `round ${i + 1}: autocannon -w 2 ${(acW.requests.total / seconds).toFixed(0)} req/s (median second ${acSteady.toFixed(0)}), clustersim --workers 2 ${gen.rps.toFixed(0)} req/s (median second ${gen.steadyRps.toFixed(0)}; errors ${gen.errors}${gen.saturated ? `, ${gen.saturated}` : ""})`
      )
    }
    const best = (f: (r: (typeof two)[number]) => number) => Math.max(...two.map(f))
    console.log(
      `ratio generator / autocannon, 2 workers: ${(best((r) => r.gen) / best((r) => r.ac)).toFixed(2)}× over the run (best ${best((r) => r.gen).toFixed(0)} vs ${best((r) => r.ac).toFixed(0)} req/s), ` +
        `${(best((r) => r.genSteady) / best((r) => r.acSteady)).toFixed(2)}× past warm-up (median second ${best((r) => r.genSteady).toFixed(0)} vs ${best((r) => r.acSteady).toFixed(0)})`
    )
  } finally {
    child.kill("SIGTERM")
  }
}

const stall = async () => {
  console.log(`\n# loadgen: stall test — fake target stalls 1 s at t=4 s of a 10 s run`)
  const { open, direct, closed } = await Effect.runPromise(stallTest)
  const o = summarize(open.latency)
  const s = summarize(open.serviceTime)
  const c = summarize(closed.latency)
  console.log(`open model, 500 req/s: n=${o.count} dropped=${open.dropped}  latency from intended start p50 ${f(o.p50)} p99 ${f(o.p99)} max ${f(o.max)}`)
  console.log(`                       service time (from send)  p99 ${f(s.p99)}`)
  console.log(`closed loop, 1 worker: n=${c.count}  latency p50 ${f(c.p50)} p99 ${f(c.p99)} max ${f(c.max)}  (coordinated omission: the stall is one sample)`)
  const pct = [90, 95, 98, 99, 99.5].map((p) => `p${p} ${f(open.latency.getValueAtPercentile(p) / 1000)}`).join("  ")
  console.log(`open-model latency percentiles: ${pct}`)
  const d = summarize(direct.latency)
  console.log(`open model, callback form (a measured GET's lean path): n=${d.count} dropped=${direct.dropped}  latency p50 ${f(d.p50)} p99 ${f(d.p99)} max ${f(d.max)}`)
  console.log(`expected: open-model p99 ≈ 0.9 s; got ${f(o.p99)} (Effect form), ${f(d.p99)} (callback form)`)
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e)
    process.exit(1)
  }
)

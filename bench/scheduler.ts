/**
 * The scheduler placing many pods on many nodes (issue 6): default 150,000 pods on 5,000 nodes.
 *
 *   npx tsc -p . && node dist/bench/scheduler.js                 # 150,000 pods, 5,000 nodes
 *   node dist/bench/scheduler.js 15000 500                        # pods, nodes
 *   node dist/bench/scheduler.js 150000 5000 --no-events          # without Scheduled events
 *   node dist/bench/scheduler.js --steady 5000                    # steady-state hour (see below)
 *
 * Nodes and pods are created first (not timed); then one scheduler instance (informers, queue, filter/score,
 * binding through pods/binding, a `Scheduled` event per pod unless --no-events) runs in virtual time until
 * every pod is bound. Figures: pods per wall second, CPU time, peak RSS (process.resourceUsage().maxRSS).
 *
 * `--steady [nodes]`: the components of issue 6 idling through one virtual hour on a cluster of that size after
 * placing 10 pods per node: the scheduler (informers, 1 s flush), the event TTL controller, and eviction managers
 * for every node, sharded 100 nodes per fiber, observing a static usage model every 10 s. Prints the hour's wall
 * and CPU time: the cost these components add to the kernel's steady-state hour.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { ApiServer } from "../simulator/apiserver/ApiServer.js"
import { make as makeRecorder } from "../simulator/events/EventRecorder.js"
import * as Simulation from "../simulator/kernel/Simulation.js"
import { runEventTtl } from "../simulator/events/EventTtl.js"
import { parseThresholdConfig } from "../simulator/nodeagent/config/eviction.js"
import { runEvictionShard } from "../simulator/nodeagent/eviction/EvictionManager.js"
import { makeSchedulerCore, runInformers, runSchedulingLoop } from "../simulator/scheduler/Scheduler.js"
import { Nodes, Pods } from "../src/api/Resources.js"
import { ApiClient } from "../src/client/ApiClient.js"
import * as InProcessClient from "../simulator/apiserver/InProcessClient.js"

const args = process.argv.slice(2).filter((a) => !a.startsWith("--"))
const PODS = Number(args[0] ?? 150_000)
const NODES = Number(args[1] ?? 5_000)
const events = !process.argv.includes("--no-events")

const timing = { setupMs: 0, scheduleWallMs: 0, scheduleCpuMs: 0, virtualMs: 0 }

const program = Effect.scoped(
  Effect.gen(function* () {
    const client = yield* ApiClient
    const setupStart = performance.now()
    for (let i = 0; i < NODES; i++) {
      const cpu = "32"
      yield* Effect.orDie(
        client.create(Nodes, {
          metadata: { name: `node-${i}`, labels: { "platform.io/hostname": `node-${i}`, zone: `zone-${i % 3}` } },
          status: { allocatable: { cpu, memory: "128Gi", pods: "110" }, capacity: { cpu, memory: "128Gi", pods: "110" } }
        })
      )
    }
    for (let i = 0; i < PODS; i++) {
      yield* Effect.orDie(
        client.create(
          Pods,
          {
            metadata: { name: `pod-${i}`, namespace: "default" },
            spec: { containers: [{ name: "app", image: "registry.example/app:1", resources: { requests: { cpu: "100m", memory: "256Mi" } } }] }
          },
          { namespace: "default" }
        )
      )
    }
    timing.setupMs = performance.now() - setupStart
    const recorder = events ? yield* makeRecorder({ reportingController: "default-scheduler", reportingInstance: "default-scheduler-bench" }) : undefined
    let done: () => void = () => {}
    const allBound = Effect.async<void>((resume) => {
      done = () => resume(Effect.void)
    })
    const core = yield* makeSchedulerCore({
      ...(recorder ? { recorder } : {}),
      onBound: () => {
        if (core.stats.scheduled === PODS) done()
      }
    })
    const start = performance.now()
    const cpu = process.cpuUsage()
    const t0 = yield* Effect.clockWith((c) => c.currentTimeMillis)
    yield* Effect.forkScoped(runInformers(core))
    yield* Effect.forkScoped(runSchedulingLoop(core))
    yield* allBound
    if (recorder) yield* recorder.flush
    timing.scheduleWallMs = performance.now() - start
    const c = process.cpuUsage(cpu)
    timing.scheduleCpuMs = (c.user + c.system) / 1000
    timing.virtualMs = (yield* Effect.clockWith((c) => c.currentTimeMillis)) - t0
    return core.snapshot()
  })
)

if (process.argv.includes("--steady")) {
  runSteady(Number(args[0] ?? 5000))
  process.exit(0)
}

const sim = Simulation.make({ seed: 1 })
const layer = Layer.provideMerge(InProcessClient.layer, ApiServer.layer({ seed: 1, watchBufferSize: 10_000_000 }))
const exit = sim.run(Effect.provide(program, layer))
sim.interruptAll()
if (!exit || exit._tag === "Failure") throw new Error(`bench failed: ${exit ? String(exit.cause) : "did not finish"}`)
const stats = exit.value
const rssMb = process.resourceUsage().maxRSS / 1024
console.log(
  `scheduler: ${stats.scheduled.toLocaleString("en-US")} pods on ${NODES.toLocaleString("en-US")} nodes` +
    ` (${stats.attempts.toLocaleString("en-US")} attempts, ${stats.failed} failed, events ${events ? "on" : "off"})\n` +
    `  setup (create nodes+pods) ${(timing.setupMs / 1000).toFixed(1)} s; scheduling wall ${(timing.scheduleWallMs / 1000).toFixed(1)} s` +
    ` (cpu ${(timing.scheduleCpuMs / 1000).toFixed(1)} s), ${((stats.scheduled * 1000) / timing.scheduleWallMs).toFixed(0)} pods/s,` +
    ` virtual ${timing.virtualMs} ms, peak RSS ${rssMb.toFixed(0)} MB`
)

function runSteady(nodes: number): void {
  const podsPerNode = 10
  const sim = Simulation.make({ seed: 1 })
  const layer = Layer.provideMerge(InProcessClient.layer, ApiServer.layer({ seed: 1, watchBufferSize: 10_000_000 }))
  const Mi = 1024 * 1024
  const setup = Effect.gen(function* () {
    const client = yield* ApiClient
    for (let i = 0; i < nodes; i++)
      yield* Effect.orDie(
        client.create(Nodes, { metadata: { name: `node-${i}` }, status: { allocatable: { cpu: "32", memory: "128Gi", pods: "110" } } })
      )
    for (let i = 0; i < nodes * podsPerNode; i++)
      yield* Effect.orDie(
        client.create(
          Pods,
          { metadata: { name: `pod-${i}`, namespace: "default" }, spec: { containers: [{ name: "app", image: "i", resources: { requests: { cpu: "100m", memory: "256Mi" } } }] } },
          { namespace: "default" }
        )
      )
    const recorder = yield* makeRecorder({ reportingController: "default-scheduler", reportingInstance: "default-scheduler-bench" })
    const core = yield* makeSchedulerCore({ recorder })
    yield* Effect.forkDaemon(runInformers(core))
    yield* Effect.forkDaemon(runSchedulingLoop(core))
    yield* Effect.forkDaemon(runEventTtl({}))
    const thresholds = Either.getOrThrow(parseThresholdConfig({ evictionHard: { "memory.available": "100Mi", "nodefs.available": "10%" } }))
    for (let shard = 0; shard < Math.ceil(nodes / 100); shard++) {
      const configs = []
      for (let i = shard * 100; i < Math.min(nodes, (shard + 1) * 100); i++) {
        configs.push({
          nodeName: `node-${i}`,
          thresholds,
          writeConditions: false,
          model: {
            capacity: { memory: 128 * 1024 * Mi, nodefsBytes: 500 * 1024 * Mi, nodefsInodes: 1e7, imagefsBytes: 500 * 1024 * Mi, imagefsInodes: 1e7, pids: 32768 },
            system: { memory: { base: 2048 * Mi } },
            pods: Array.from({ length: podsPerNode }, (_, k) => ({
              namespace: "default",
              name: `pod-${i}-${k}`,
              container: "app",
              priority: 0,
              memoryRequest: "256Mi",
              memory: { base: 200 * Mi }
            }))
          }
        })
      }
      yield* Effect.forkDaemon(runEvictionShard(configs))
    }
    yield* Effect.sleep("1 minute")
    const start = performance.now()
    const cpu = process.cpuUsage()
    yield* Effect.sleep("1 hour")
    return { core, wallMs: performance.now() - start, c: process.cpuUsage(cpu) }
  })
  const built = sim.run(Effect.scoped(Effect.provide(setup, layer)))
  if (!built || built._tag === "Failure") throw new Error(`steady run failed: ${built ? String(built.cause) : "unfinished"}`)
  const { core, wallMs, c } = built.value
  console.log(
    `steady hour: ${nodes.toLocaleString("en-US")} nodes, ${core.stats.scheduled.toLocaleString("en-US")} pods bound; ` +
      `scheduler + event TTL + ${Math.ceil(nodes / 100)} eviction shards for 1 virtual hour: wall ${(wallMs / 1000).toFixed(1)} s ` +
      `(cpu ${((c.user + c.system) / 1e6).toFixed(1)} s), ` +
      `peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`
  )
  sim.interruptAll()
}

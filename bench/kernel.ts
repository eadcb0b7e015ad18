/**
 * Cost per event of the virtual-time kernel.
 *
 *   npx tsc -p . && node dist/bench/kernel.js            # every scenario, each in its own process
 *   node dist/bench/kernel.js shards-staggered           # one scenario, in this process
 *   node --max-semi-space-size=64 dist/bench/kernel.js   # flags given to node are passed on to the children
 *
 * Wall time depends on machine load, so CPU time (user + system) is printed too.
 *
 * Scenarios (1 virtual hour each):
 * - shards-aligned:    100 shard fibers × 100 nodes; a shard wakes every 10 s and renews all its nodes.
 * - shards-staggered:  same, but every node keeps its own phase and a jittered 10 s period (lease controller:
 *                      next = previous + 10 s × (1 + 0.04 × rand)); a shard wakes at each of its nodes' due times.
 * - shards-1s:         staggered nodes, but a shard wakes at most once per virtual second (due times rounded up
 *                      to the second) and renews every node due by then: renewals up to 1 s late, 10× fewer wakes.
 * - sleepers:          10,000 fibers, each `Effect.sleep("10 seconds")` in a loop.
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Clock from "effect/Clock"
import * as SeededRandom from "../simulator/kernel/SeededRandom.js"
import * as Simulation from "../simulator/kernel/Simulation.js"
import { TimerHeap } from "../simulator/kernel/VirtualClock.js"

const HOUR = 3_600_000
const SHARDS = 100
const NODES_PER_SHARD = 100
const RENEW_MS = 10_000

interface Outcome {
  readonly scenario: string
  readonly work: number
  readonly workLabel: string
  readonly expectedWork?: number
  readonly wallMs: number
  readonly cpuMs: number
  readonly virtualMs: number
  readonly timersFired: number
  readonly tasksRun: number
  readonly peakRssMb: number
  readonly rssSamplesMaxMb: number
}

const shardAligned = (renewals: Array<number>, shard: number) =>
  Effect.gen(function*() {
    for (;;) {
      yield* Effect.sleep(RENEW_MS)
      const base = shard * NODES_PER_SHARD
      for (let n = 0; n < NODES_PER_SHARD; n++) renewals[base + n]!++
    }
  })

/**
 * One fiber, one local queue of node due times, one sleep per distinct due time. Due times stay on whole
 * milliseconds: Effect durations are nanosecond-rounded, so a fractional `due - now` could round to a 0 sleep.
 */
const shardStaggered = (renewals: Array<number>, shard: number, resolutionMs: number) =>
  Effect.gen(function*() {
    const rng = (yield* SeededRandom.SeededRandom).split(`shard-${shard}`)
    const due = new TimerHeap()
    let now = yield* Clock.currentTimeMillis
    const schedule = (node: number, at: number) =>
      due.insert(at, () => {
        renewals[node]!++
        schedule(node, now + Math.round(RENEW_MS * (1 + 0.04 * rng.next())))
      })
    for (let n = 0; n < NODES_PER_SHARD; n++) schedule(shard * NODES_PER_SHARD + n, now + Math.floor(rng.next() * RENEW_MS))
    for (;;) {
      const wakeAt = Math.ceil(due.peek()!.time / resolutionMs) * resolutionMs
      yield* Effect.sleep(wakeAt - now)
      now = yield* Clock.currentTimeMillis
      while (due.peek()!.time <= now) due.pop()!.task()
    }
  })

const sleeper = (wakes: Array<number>, i: number) =>
  Effect.gen(function*() {
    for (;;) {
      yield* Effect.sleep("10 seconds")
      wakes[i]!++
    }
  })

const run = (scenario: string): Outcome => {
  const sim = Simulation.make({ seed: 1 })
  let work: Array<number>
  let workLabel: string
  let expectedWork: number | undefined
  if (scenario === "sleepers") {
    work = new Array(10_000).fill(0)
    for (let i = 0; i < work.length; i++) sim.fork(sleeper(work, i))
    workLabel = "wake-ups"
    expectedWork = work.length * (HOUR / RENEW_MS)
  } else {
    work = new Array(SHARDS * NODES_PER_SHARD).fill(0)
    for (let s = 0; s < SHARDS; s++) {
      sim.fork(
        scenario === "shards-aligned"
          ? shardAligned(work, s)
          : shardStaggered(work, s, scenario === "shards-1s" ? 1000 : 1)
      )
    }
    workLabel = "lease renewals"
    if (scenario === "shards-aligned") expectedWork = work.length * (HOUR / RENEW_MS)
  }
  let rssSamplesMax = 0
  const sampleRss = () => {
    rssSamplesMax = Math.max(rssSamplesMax, process.memoryUsage().rss)
  }
  const start = performance.now()
  const cpuStart = process.cpuUsage()
  const result = sim.runFor(HOUR, { progressEvery: "10 minutes", onProgress: sampleRss })
  const wallMs = performance.now() - start
  const cpu = process.cpuUsage(cpuStart)
  sampleRss()
  return {
    scenario,
    work: work.reduce((a, b) => a + b, 0),
    workLabel,
    ...(expectedWork === undefined ? {} : { expectedWork }),
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    virtualMs: result.now,
    timersFired: result.timersFired,
    tasksRun: result.tasksRun,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    rssSamplesMaxMb: rssSamplesMax / 1024 / 1024
  }
}

const print = (o: Outcome) => {
  const ratio = o.virtualMs / o.wallMs
  console.log(
    `${o.scenario.padEnd(17)} ${o.work.toLocaleString("en-US")} ${o.workLabel}` +
      (o.expectedWork === undefined ? "" : ` (expected ${o.expectedWork.toLocaleString("en-US")})`) +
      `, ${o.timersFired.toLocaleString("en-US")} timers, ${o.tasksRun.toLocaleString("en-US")} tasks\n` +
      `${"".padEnd(17)} wall ${(o.wallMs / 1000).toFixed(2)} s (cpu ${(o.cpuMs / 1000).toFixed(2)} s), ` +
      `virtual/real ${ratio.toFixed(0)}× (per cpu-s ${(o.virtualMs / o.cpuMs).toFixed(0)}×), ` +
      `${((o.wallMs * 1e6) / o.timersFired).toFixed(0)} ns/timer, ` +
      `peak RSS ${o.peakRssMb.toFixed(0)} MB (memoryUsage max ${o.rssSamplesMaxMb.toFixed(0)} MB)`
  )
}

const scenarios = ["shards-aligned", "shards-1s", "shards-staggered", "sleepers"]
const args = process.argv.slice(2)
const only = args.find((a) => !a.startsWith("--"))
if (only !== undefined) {
  if (!scenarios.includes(only)) throw new Error(`unknown scenario ${only}; one of ${scenarios.join(", ")}`)
  const outcome = run(only)
  if (args.includes("--json")) console.log(JSON.stringify(outcome))
  else print(outcome)
} else {
  const nodeFlags = process.execArgv
  console.log(`node ${process.version} ${nodeFlags.join(" ")}, 1 virtual hour per scenario, each in a fresh process`)
  for (const scenario of scenarios) {
    const out = execFileSync(process.execPath, [...nodeFlags, fileURLToPath(import.meta.url), scenario, "--json"], {
      encoding: "utf8"
    })
    print(JSON.parse(out) as Outcome)
  }
}

/**
 * What one modelled GET of the hour with clients costs (issue 20): a simulated cluster of `nodes` × 30 pods (no
 * control plane) runs `seconds` of virtual time with GETs of random pods every `intervalMs`, each stage of the GET
 * path on its own, and the CPU time above the idle cluster is divided by the requests made.
 *
 *   npx tsc -p . && node dist/bench/getPath.js                 # every stage, each in its own process
 *   node dist/bench/getPath.js modelled 2000 60 1             # one stage: nodes, virtual seconds, interval (ms)
 *
 * Stages: `idle` (the cluster alone), `fork` (the open loop forking a request that does nothing), `server` (the
 * in-process server's GET, no model), `modelled` (the GET as `bench/cluster/clientLoad.ts` makes it: the open
 * loop, the service-time model with API Priority and Fairness, the server).
 * Random pods of a large cluster are mostly read once: sizing each answer (`JsonLength.ts`) is part of the cost.
 */
import { execFileSync } from "node:child_process"
import { fileURLToPath } from "node:url"
import { Effect, Option } from "effect"
import { Pods } from "../src/api/Resources.js"
import { ApiClient } from "../src/client/ApiClient.js"
import { ApiServer } from "../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../simulator/apiserver/InProcessClient.js"
import { runSimulatedCluster } from "../simulator/cluster/ClusterRun.js"
import * as SeededRandom from "../simulator/kernel/SeededRandom.js"
import { forkEvery } from "./cluster/OpenLoop.js"

const stages = ["idle", "fork", "server", "modelled"] as const
type Stage = (typeof stages)[number]

const podsPerNode = 30

const workload = (stage: Stage, nodes: number, intervalMs: number, counted: { requests: number }): Effect.Effect<void, never, ApiClient> =>
  Effect.gen(function* () {
    const random = SeededRandom.make(20).split("gets")
    const podAt = () => {
      const i = Math.floor(random.next() * nodes * podsPerNode)
      return { namespace: "default", name: `node-${Math.floor(i / podsPerNode)}-pod-${i % podsPerNode}` }
    }
    const modelled = yield* ApiClient
    // the workload runs inside the cluster's program, whose context has the server
    const server = Option.getOrUndefined(yield* Effect.serviceOption(ApiServer))
    const direct = server === undefined ? modelled : inProcessClient(server)
    const count = Effect.sync(() => void counted.requests++)
    const request =
      stage === "fork"
        ? count
        : Effect.suspend(() => {
            const { namespace, name } = podAt()
            return (stage === "server" ? direct : modelled).get(Pods, name, { namespace }).pipe(Effect.orDie, Effect.zipRight(count))
          })
    if (stage !== "idle") yield* Effect.scoped(forkEvery(intervalMs, request))
    return yield* Effect.never
  })

const runStage = (stage: Stage, nodes: number, seconds: number, intervalMs: number) => {
  const counted = { requests: 0 }
  const before = process.cpuUsage()
  Effect.runSync(
    runSimulatedCluster({ spec: { nodes, podsPerNode }, faults: [], seed: 1, durationMs: seconds * 1000, workload: workload(stage, nodes, intervalMs, counted) })
  )
  const cpu = process.cpuUsage(before)
  return { stage, requests: counted.requests, cpuSeconds: (cpu.user + cpu.system) / 1e6 }
}

const positional = process.argv.slice(2)
if (positional.length > 0 && stages.includes(positional[0] as Stage)) {
  const [stage, nodes = "2000", seconds = "60", intervalMs = "1"] = positional
  console.log(JSON.stringify(runStage(stage as Stage, Number(nodes), Number(seconds), Number(intervalMs))))
  process.exit(0)
} else {
  const script = fileURLToPath(import.meta.url)
  const results = stages.map((stage) => JSON.parse(execFileSync(process.execPath, [...process.execArgv, script, stage, ...positional], { encoding: "utf8" })) as ReturnType<typeof runStage>)
  const idle = results[0]!.cpuSeconds
  for (const r of results) {
    const perRequestUs = r.requests > 0 ? ((r.cpuSeconds - idle) / r.requests) * 1e6 : 0
    console.log(`${r.stage.padEnd(9)} cpu ${r.cpuSeconds.toFixed(2).padStart(6)} s  requests ${String(r.requests).padStart(7)}  ${r.requests > 0 ? `${perRequestUs.toFixed(1)} µs each above idle` : ""}`)
  }
}

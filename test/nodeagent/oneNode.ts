/**
 * One simulated node, `node-0`, whose agent starts at 1 s against an in-process server on the virtual clock, with
 * pods `p0` and `p1` bound to it from the start (handed to the agent as the observer saw them before it started).
 * Every read and write of the agent goes through its client: the shard has no store.
 */
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Pods } from "../../src/api/Resources.js"
import { ApiServer, type ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { ServiceTimeModel } from "../../simulator/apiserver/ServiceTime.js"
import { objectKey } from "../../simulator/apiserver/Store.js"
import { ClusterObserver } from "../../simulator/cluster/ClusterObserver.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import { NodeAgentMetrics } from "../../simulator/nodeagent/AgentEnvironment.js"
import type { PressureCondition } from "../../simulator/nodeagent/eviction/Thresholds.js"
import { NodeAgentShard } from "../../simulator/nodeagent/NodeAgentShard.js"
import type { PreparePod } from "../../simulator/nodeagent/PodStarter.js"
import { makeNode } from "../../simulator/nodeagent/SimulatedNode.js"
import type { NodeNetwork } from "../../simulator/nodeagent/NodeNetwork.js"
import { agentSettings } from "./settings.js"

export const podOn = (name: string, node = "node-0"): KObject => ({
  metadata: { name, namespace: "default", uid: `uid-${name}` },
  spec: { nodeName: node, containers: [{ name: "app", image: "registry.example/app:1", resources: { requests: { cpu: "100m" } } }] },
  status: { phase: "Pending" }
})

export const statusOf = (pod: KObject | undefined) => pod?.status as { phase?: string; startTime?: string } | undefined

/** What a test does to the server at a virtual time (ascending). */
export type Step = readonly [at: number, during: (server: ApiServerImpl, now: number) => void]

export interface OneNodeOptions {
  /** How requests are booked (default: the default model, APF on). */
  readonly model?: ServiceTimeModel
  readonly pressure?: ReadonlySet<PressureCondition>
  readonly preparePod?: PreparePod
  readonly steps?: ReadonlyArray<Step>
  /** The cluster's addresses: the agent also writes what a real kubelet writes for stock clients (real time's). */
  readonly network?: NodeNetwork
  /** The agent's client (default: the server's in-process client). */
  readonly client?: (server: ApiServerImpl) => ApiClientService
}

/** Runs the node for `ms` of virtual time. */
export const simulateOneNode = (ms: number, options: OneNodeOptions = {}) => {
  const sim = Simulation.make({ seed: 3, startMillis: 0 })
  const model = options.model ?? new ServiceTimeModel()
  let server: ApiServerImpl | undefined
  const metrics = new NodeAgentMetrics()
  sim.fork(
    Effect.gen(function* () {
      const s = (server = yield* ApiServer)
      const observer = new ClusterObserver(0, false)
      observer.attach(s.store)
      for (const name of ["p0", "p1"]) s.store.putFresh(Pods, objectKey("default", name), podOn(name), 0)
      const env = {
        client: options.client?.(s) ?? inProcessClient(s),
        serviceTime: model,
        settings: agentSettings,
        metrics,
        pauses: [],
        resolutionMs: 1_000,
        ...(options.preparePod ? { preparePod: options.preparePod } : {}),
        ...(options.network ? { network: options.network } : {})
      }
      const node = makeNode({ name: "node-0", zone: "zone-a", region: "region-1", cpu: "4", memory: "16Gi", pods: 110, startAt: 1_000 })
      const shard = new NodeAgentShard([node], env, sim.random.split("shard"))
      observer.route("node-0", shard)
      if (options.pressure !== undefined) shard.setPressure("node-0", options.pressure)
      for (const name of ["p0", "p1"]) shard.podBound("node-0", objectKey("default", name), 0)
      yield* Effect.forkDaemon(shard.run)
      let now = 0
      for (const [at, during] of options.steps ?? []) {
        yield* Effect.sleep(at - now)
        during(s, (now = at))
      }
      return yield* Effect.never
    }).pipe(Effect.provide(ApiServer.layer({ seed: 3 })))
  )
  sim.runUntil(ms)
  sim.interruptAll()
  return { server: server!, metrics, model, get: (name: string) => server!.store.lookup(Pods, "default", name)?.obj }
}

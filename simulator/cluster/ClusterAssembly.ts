/**
 * One cluster assembly for virtual time (`ClusterRun.ts`) and the real clock (`RealTimeCluster.ts`): the nodes, the
 * faults known in advance, the node-agent shards the observer routes changes to, memory pressure, the node lifecycle
 * controller, and the result document. What differs between the two is passed in, not built twice: the clock's start,
 * the agents' environment (the transport — the in-process server with modelled times, or the caller's client with live
 * requests), and by the callers, how the observer is fed (the store itself, or informers), how the controller runs
 * (alone, or under leader election) and how the server is paused.
 */
import { Cause, Effect } from "effect"
import type { ApiClient } from "../../src/client/ApiClient.js"
import { makeLifecycleLog, type LifecycleLog } from "../controllers/nodelifecycle/LifecycleSettings.js"
import { runNodeLifecycleController } from "../controllers/nodelifecycle/NodeLifecycleController.js"
import { EventRecorder } from "../events/EventRecorder.js"
import type { SeededRandomService } from "../kernel/SeededRandom.js"
import { LeaseTimeline } from "../nodeagent/LeaseTimeline.js"
import { NodeAgentMetrics, settingsOf, type NodeAgentEnvironment } from "../nodeagent/AgentEnvironment.js"
import type { EvictionRecord } from "../nodeagent/eviction/EvictionManager.js"
import { evictionMetrics } from "../nodeagent/eviction/EvictionMetrics.js"
import { ImagePulls } from "../nodeagent/images/ImagePulls.js"
import { NodeAgentShard } from "../nodeagent/NodeAgentShard.js"
import type { Interval, SimulatedNode } from "../nodeagent/SimulatedNode.js"
import { ClusterObserver } from "./ClusterObserver.js"
import { clusterResult, type ClusterResult, type ServerModelReport } from "./ClusterResult.js"
import { simulatedNodes, type ResolvedCluster } from "./ClusterSetup.js"
import type { ClusterFault, ClusterSpec } from "./ClusterSpec.js"
import { applyFaults, type AppliedFault } from "./Faults.js"
import { runMemoryPressure } from "./Pressure.js"

export interface ClusterPlanOptions {
  readonly spec: ClusterSpec
  /** The spec's node agent and lifecycle settings; absent for a simulation without a cluster (no nodes). */
  readonly resolved: ResolvedCluster | undefined
  readonly faults: ReadonlyArray<ClusterFault>
  readonly seed: number
  /** The run's planned length (ms). */
  readonly durationMs: number
  /** The cluster's random stream (the run's seed split under "cluster"). */
  readonly random: SeededRandomService
  /** The clock's reading at the start: node start times, fault times and result times count from here. */
  readonly startMillis: number
  /** Model image pulls (`cluster.images`; virtual time only). */
  readonly images: boolean
}

/** The parts of a cluster known before it runs, and what its run collects. */
export interface ClusterPlan {
  readonly options: ClusterPlanOptions
  readonly nodes: ReadonlyArray<SimulatedNode>
  readonly imagePulls: ImagePulls | undefined
  readonly pauses: ReadonlyArray<Interval>
  /** When the server restarts (`apiserver-restart`: its watches closed, its history compacted; the pause is in `pauses`). */
  readonly restarts: ReadonlyArray<number>
  readonly applied: ReadonlyArray<AppliedFault>
  readonly metrics: NodeAgentMetrics
  readonly observer: ClusterObserver
  readonly lifecycleLog: LifecycleLog
  readonly evictions: Array<EvictionRecord>
}

/** Nodes, their faults and the record the run fills; draws the nodes from `random` first (the same nodes in both clocks). */
export const planCluster = (options: ClusterPlanOptions): ClusterPlan => {
  const { spec, resolved, random, startMillis } = options
  const nodeAgent = resolved?.nodeAgent
  const nodes = simulatedNodes(spec, nodeAgent ? settingsOf(nodeAgent) : undefined, random, startMillis)
  // faults, known in advance: per-node stop times and partition windows, server pauses
  const faultRandom = random.split("faults")
  const imagePulls = !options.images || spec.images === undefined || nodeAgent === undefined ? undefined : new ImagePulls(spec.images, nodeAgent, random.split("images"), startMillis)
  const { pauses, restarts, applied } = applyFaults(options.faults, nodes, startMillis, faultRandom, imagePulls)
  return {
    options,
    nodes,
    imagePulls,
    pauses,
    restarts,
    applied,
    metrics: new NodeAgentMetrics(new LeaseTimeline(startMillis, options.durationMs)),
    observer: new ClusterObserver(startMillis, resolved?.lifecycle.enabled ?? false),
    lifecycleLog: makeLifecycleLog(),
    evictions: []
  }
}

/** The agents' environment without what the plan gives (its settings, metrics and pauses). */
export type AgentTransport = Omit<NodeAgentEnvironment, "settings" | "metrics" | "pauses">

/** The node-agent shards (`spec.shards`, nodes dealt round-robin), each node's changes routed to its shard. */
export const makeShards = (plan: ClusterPlan, transport: AgentTransport): { readonly shards: ReadonlyArray<NodeAgentShard>; readonly shardOf: ReadonlyMap<string, NodeAgentShard> } => {
  const { nodes, observer } = plan
  const env: NodeAgentEnvironment = { ...transport, settings: settingsOf(plan.options.resolved!.nodeAgent), metrics: plan.metrics, pauses: plan.pauses }
  const shardCount = Math.max(1, Math.min(nodes.length, plan.options.spec.shards ?? 1))
  const shards: Array<NodeAgentShard> = []
  const shardOf = new Map<string, NodeAgentShard>()
  for (let s = 0; s < shardCount; s++) {
    const own = nodes.filter((_, i) => i % shardCount === s)
    const shard = new NodeAgentShard(own, env, plan.options.random.split(`shard-${s}`))
    for (const n of own) {
      observer.route(n.name, shard)
      shardOf.set(n.name, shard)
    }
    shards.push(shard)
  }
  return { shards, shardOf }
}

/** The node lifecycle controller over the observer's nodes and leases, its events recorded as upstream's `node-controller`. */
export const lifecycleController = (plan: ClusterPlan): Effect.Effect<never, never, ApiClient> => {
  const { observer } = plan
  return runNodeLifecycleController(plan.options.resolved!.lifecycle, plan.lifecycleLog, observer.nodeSource()).pipe(
    Effect.provide(EventRecorder.layer({ reportingController: "node-controller", reportingInstance: "node-controller" }))
  )
}

/** The spec's memory pressure on its nodes (`memoryPressure`), evictions recorded (and counted in the run's `EvictionMetrics`, if any); undefined without any. */
export const memoryPressure = (plan: ClusterPlan, shardOf: ReadonlyMap<string, NodeAgentShard>): Effect.Effect<never, never, ApiClient> | undefined => {
  const spec = plan.options.spec
  if (!spec.memoryPressure || spec.memoryPressure.length === 0) return undefined
  const memoryPressure = spec.memoryPressure
  const pressure = Effect.flatMap(evictionMetrics, (metrics) =>
    runMemoryPressure(
      memoryPressure,
      plan.nodes,
      spec.podsPerNode ?? 0,
      plan.options.resolved!.nodeAgent,
      (e) => {
        plan.evictions.push(e)
        metrics?.evicted(e.signal)
      },
      (node, conditions) => shardOf.get(node)?.setPressure(node, conditions)
    )
  )
  return Effect.orDie(pressure)
}

/** The result document once the cluster ran to `reachedMs` (ms since its start). */
export const planResult = (
  plan: ClusterPlan,
  run: { readonly pods: number; readonly kernel: { readonly timersFired: number; readonly tasksRun: number }; readonly reachedMs: number; readonly wallMs: number; readonly serverModel?: ServerModelReport }
): ClusterResult =>
  clusterResult(
    {
      seed: plan.options.seed,
      durationMs: plan.options.durationMs,
      nodes: plan.nodes,
      pods: run.pods,
      metrics: plan.metrics,
      observer: plan.observer,
      lifecycleLog: plan.lifecycleLog,
      evictions: plan.evictions,
      applied: plan.applied,
      imagePulls: plan.imagePulls,
      ...(run.serverModel !== undefined ? { serverModel: run.serverModel } : {})
    },
    run.kernel,
    run.reachedMs,
    run.wallMs
  )

/** A section that failed: unfinished, with the first line of why (the artifact's `sections.<name>`). */
export const failedSection = (cause: Cause.Cause<unknown>) => ({ finished: false, error: Cause.pretty(cause).split("\n")[0] })

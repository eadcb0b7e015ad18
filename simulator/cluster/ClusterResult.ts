/**
 * A cluster run's result document (`ClusterResult`), the same for a run in virtual time (`ClusterRun.ts`) and one on
 * the real clock (`RealTimeCluster.ts`): what the node agents wrote, what the observer saw, what the lifecycle
 * controller did. Times are ms since the start of the run.
 */
import { encodeHistogram, summarize, type Summary } from "../../src/loadgen/LatencyRecorder.js"
import type { LifecycleLog } from "../controllers/nodelifecycle/LifecycleSettings.js"
import type { NodeAgentMetrics } from "../nodeagent/AgentEnvironment.js"
import type { EvictionRecord } from "../nodeagent/eviction/EvictionManager.js"
import type { ImagePulls, ImagePullsResult } from "../nodeagent/images/ImagePulls.js"
import type { LeaseTimelineResult } from "../nodeagent/LeaseTimeline.js"
import type { SimulatedNode } from "../nodeagent/SimulatedNode.js"
import type { ClusterObserver, PodDeletion, ReadyTransition, TaintChange } from "./ClusterObserver.js"
import type { AppliedFault } from "./Faults.js"
import type { LevelMetrics } from "../apiserver/apf/PriorityAndFairness.js"
import type { ServiceTimeParameters } from "../apiserver/ServiceTimeModel.js"
import type { RelistMemoryReport } from "../apiserver/RelistMemory.js"

/** A type, not an interface: it is a JSON document, assignable where the artifact keeps any record (`RunArtifact.cluster`). */
export type ClusterResult = {
  readonly apiVersion: "clustersim/v1"
  readonly kind: "ClusterResult"
  readonly seed: number
  readonly durationMs: number
  /** Present (true) when the run was stopped before its duration (Ctrl-C): the figures cover `durationMs`. */
  readonly stopped?: boolean
  readonly nodes: number
  readonly pods: number
  readonly heartbeats: { readonly leaseWrites: number; readonly leaseCreates: number; readonly failedAttempts: number; readonly perSecond: number }
  readonly nodeStatus: { readonly checks: number; readonly patches: number; readonly perSecond: number }
  readonly podStatusWrites: number
  readonly leaseRenewLatency: Summary & { readonly hdr: string }
  /** Lease writes, failures and renew latency per interval (the report's charts over time). */
  readonly leaseTimeline?: LeaseTimelineResult
  readonly readyTimeline: Record<string, ReadonlyArray<ReadyTransition>>
  readonly taints: ReadonlyArray<TaintChange>
  readonly podDeletions: ReadonlyArray<PodDeletion>
  /** Pods evicted under node pressure (`memoryPressure` in the spec). */
  readonly evictions: ReadonlyArray<EvictionRecord>
  readonly events: { readonly byReason: Record<string, number>; readonly list: ReadonlyArray<{ t: number; reason: string; object: string; note: string }> }
  readonly zoneStates: ReadonlyArray<{ t: number; zone: string; state: string }>
  readonly faults: ReadonlyArray<AppliedFault>
  /** Image pulls, with `cluster.images` (docs/cluster.md "Image pulls"). */
  readonly images?: ImagePullsResult & { readonly waitingStatusWrites: number }
  readonly kernel: { readonly timersFired: number; readonly tasksRun: number }
  /**
   * The server's cost model of a simulated run: every latency in this result (lease renewals, the workload's
   * requests) is modelled virtual time from these parameters, not time the simulator took; with APF, each priority
   * level's figures (docs/apf.md).
   */
  readonly serverModel?: ServerModelReport
  /** Host-dependent; drop it before comparing results. */
  readonly wall: { readonly ms: number; readonly virtualPerReal: number }
}

/** The former name of `ClusterResult`. */
export type ClusterResultBody = ClusterResult

/** What a run collected, for its result. */
export interface ClusterRunRecord {
  readonly seed: number
  /** The run's planned length (ms): a run that reached less was stopped. */
  readonly durationMs: number
  readonly nodes: ReadonlyArray<SimulatedNode>
  readonly pods: number
  readonly metrics: NodeAgentMetrics
  readonly observer: ClusterObserver
  readonly lifecycleLog: LifecycleLog
  readonly evictions: ReadonlyArray<EvictionRecord>
  readonly applied: ReadonlyArray<AppliedFault>
  readonly imagePulls: ImagePulls | undefined
  readonly serverModel?: ServerModelReport
}

export interface ServerModelReport {
  readonly modelled: true
  readonly parameters: ServiceTimeParameters
  readonly priorityLevels?: Record<string, LevelMetrics>
  /** Node-agent requests rejected on every retry (`ServiceTimeModel.givenUp`); absent when none. */
  readonly givenUp?: number
  /**
   * Server memory held by LISTs and WatchLists while they were answered, its peak and when (`RelistMemory.ts`,
   * docs/watchlist.md "The cost model"); absent when the run modelled neither.
   */
  readonly relistMemory?: RelistMemoryReport
}

export const clusterResult = (
  r: ClusterRunRecord,
  kernel: { readonly timersFired: number; readonly tasksRun: number },
  reachedMs: number,
  wallMs: number
): ClusterResult => {
  const { seed, durationMs, nodes, metrics, observer, lifecycleLog, evictions, applied, imagePulls } = r
  const seededPods = r.pods
  // a stopped run reports the virtual time it reached; rates are per second of that
  const stopped = reachedMs < durationMs
  const seconds = reachedMs / 1000
  const byReason: Record<string, number> = {}
  for (const e of lifecycleLog.events) byReason[e.reason] = (byReason[e.reason] ?? 0) + 1
  const timeline: Record<string, ReadonlyArray<ReadyTransition>> = {}
  for (const n of nodes) {
    const t = observer.readyTimeline.get(n.name)
    if (t) timeline[n.name] = t
  }
    return {
    apiVersion: "clustersim/v1",
    kind: "ClusterResult",
    seed,
    durationMs: reachedMs,
    ...(stopped ? { stopped: true } : {}),
    nodes: nodes.length,
    pods: seededPods,
    heartbeats: {
      leaseWrites: metrics.leaseWrites,
      leaseCreates: metrics.leaseCreates,
      failedAttempts: metrics.leaseFailures,
      perSecond: seconds > 0 ? metrics.leaseWrites / seconds : 0
    },
    nodeStatus: { checks: metrics.statusChecks, patches: metrics.statusPatches, perSecond: seconds > 0 ? metrics.statusPatches / seconds : 0 },
    podStatusWrites: metrics.podStatusWrites,
    leaseRenewLatency: { ...summarize(metrics.leaseLatency), hdr: encodeHistogram(metrics.leaseLatency) },
    ...(metrics.leaseTimeline !== undefined ? { leaseTimeline: metrics.leaseTimeline.result(reachedMs) } : {}),
    readyTimeline: timeline,
    taints: observer.taints,
    podDeletions: observer.podDeletions,
    evictions,
    events: { byReason, list: lifecycleLog.events.filter((e) => e.reason !== "RegisteredNode").map((e) => ({ ...e, t: observer.since(e.t) })) },
    zoneStates: lifecycleLog.zoneStates.map((z) => ({ ...z, t: observer.since(z.t) })),
    faults: applied,
    ...(imagePulls !== undefined ? { images: { ...imagePulls.result(), waitingStatusWrites: metrics.podWaitingWrites } } : {}),
    kernel: { timersFired: kernel.timersFired, tasksRun: kernel.tasksRun },
    ...(r.serverModel !== undefined ? { serverModel: r.serverModel } : {}),
    wall: { ms: wallMs, virtualPerReal: wallMs > 0 ? reachedMs / wallMs : 0 }
  }
}

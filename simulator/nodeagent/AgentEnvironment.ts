/**
 * What a node-agent shard runs in: its client, the latency model it books request times with, the agents'
 * settings (from a NodeAgentConfiguration), the run's shared counters, the server's pause windows and the shard's
 * wake-up granularity.
 */
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { makeHistogram, type Histogram } from "../../src/loadgen/LatencyRecorder.js"
import type { ServiceTimeModel } from "../apiserver/ServiceTime.js"
import type { NodeAgentConfiguration } from "./config/NodeAgentConfiguration.js"
import type { PreparePod } from "./PodStarter.js"
import type { Interval, SimulatedNode } from "./SimulatedNode.js"
import type { KObject } from "../../src/api/Object.js"

/** The parts of a NodeAgentConfiguration the model uses, durations in ms. */
export interface NodeAgentSettings {
  readonly nodeStatusUpdateFrequencyMs: number
  readonly nodeStatusReportFrequencyMs: number
  readonly nodeLeaseDurationSeconds: number
  readonly platformAPIQPS: number
  readonly platformAPIBurst: number
  readonly maxPods: number
  readonly podsPerCore: number
}

export const settingsOf = (c: NodeAgentConfiguration): NodeAgentSettings => ({
  nodeStatusUpdateFrequencyMs: c.nodeStatusUpdateFrequency,
  nodeStatusReportFrequencyMs: c.nodeStatusReportFrequency,
  nodeLeaseDurationSeconds: c.nodeLeaseDurationSeconds,
  platformAPIQPS: c.platformAPIQPS,
  platformAPIBurst: c.platformAPIBurst,
  maxPods: c.maxPods,
  podsPerCore: c.podsPerCore
})

/** Counters shared by all shards of a run. */
export class NodeAgentMetrics {
  registrations = 0
  leaseWrites = 0
  leaseCreates = 0
  /** Failed lease requests (update tries and ensure GETs). */
  leaseFailures = 0
  statusChecks = 0
  statusPatches = 0
  podStatusWrites = 0
  /** Waiting statuses posted for pods whose preparation failed (image pulls). */
  podWaitingWrites = 0
  /** Lease renew latency (ms, virtual): from the start of the renewal to the response. */
  readonly leaseLatency: Histogram = makeHistogram()
}

export interface NodeAgentEnvironment {
  /**
   * Every request (registration, lease, status, pod reads and status). In simulations the in-process client, whose
   * immediate view (`at`) answers at the shard's clock without a fiber step.
   */
  readonly client: ApiClientService
  /** Each agent's own client (its node identity, docs/auth.md); `client` when absent. */
  readonly clientOf?: (nodeName: string) => ApiClientService
  readonly serviceTime: ServiceTimeModel
  readonly settings: NodeAgentSettings
  readonly metrics: NodeAgentMetrics
  /** API server pauses: nobody reaches the server inside these windows. */
  readonly pauses: ReadonlyArray<Interval>
  /** Wake-up granularity of a shard (ms). */
  readonly resolutionMs: number
  /** What must happen before a pod's containers run (default: nothing, the pod runs at once). */
  readonly preparePod?: PreparePod
  /** Told of every pod written Running on `node` at `t` (pod start-up latency). */
  readonly podStarted?: (pod: KObject, node: SimulatedNode, t: number) => void
}

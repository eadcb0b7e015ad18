/**
 * What a node-agent shard runs in: its client, the latency model it books request times with, the agents'
 * settings (from a NodeAgentConfiguration), the run's shared counters, the server's pause windows and the shard's
 * wake-up granularity.
 */
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { makeHistogram, toMicros, type Histogram } from "../../src/loadgen/LatencyRecorder.js"
import { EqualRuns } from "./EqualRuns.js"
import type { ServiceTimeModel } from "../apiserver/ServiceTimeModel.js"
import type { NodeAgentConfiguration } from "./config/NodeAgentConfiguration.js"
import type { Interval, SimulatedNode } from "./SimulatedNode.js"
import type { KObject } from "../../src/api/Object.js"
import type { LeaseTimeline } from "./LeaseTimeline.js"
import type { Effect } from "effect"
import type * as TokenBucket from "../events/TokenBucket.js"
import type { NodeNetwork } from "./NodeNetwork.js"

/**
 * What must happen before `pod`'s containers run on `node`, starting at `t` (virtual ms): answers when the pod is
 * ready to run — `t` when nothing is to be done — or how it waits when it cannot run yet (an image pull failed:
 * its status is posted and the pod tried again later). It must not block: work that takes time is modelled as the
 * time it ends (a pull queue per node, for example, kept by the preparation itself).
 */
export type PreparePod = (pod: KObject, node: SimulatedNode, t: number) => number | PodWaiting

/** A preparation that cannot finish yet (an image pull failed): the status to post, and the next try. */
export interface PodWaiting {
  /** When the failure is known: the waiting status is written then. */
  readonly at: number
  /** When the pod worker tries the pod again (start → admit → prepare). */
  readonly retryAt: number
  /** The waiting reason of its containers (a new reason is posted; the same one again is not). */
  readonly reason: string
  /** The status PATCH body (phase Pending, containers waiting). */
  readonly status: (pod: KObject, now: string) => object
}

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

/**
 * Told of each lease renewal and node status update, with its latency (ms): the agents' exported metrics of
 * `run --metrics-out` (`NodeAgentExportedMetrics.ts`).
 */
export interface NodeAgentObserver {
  leaseWritten(latencyMs: number): void
  statusUpdated(latencyMs: number): void
}

/** Counters shared by all shards of a run. */
export class NodeAgentMetrics {
  registrations = 0
  /** Nodes found registered by an earlier run (carrying clustersim's label) and taken over. */
  adopted = 0
  /** Nodes (or their leases) of the same name that clustersim does not own: their agents stopped at once. */
  readonly foreignNodes: Array<string> = []
  leaseWrites = 0
  leaseCreates = 0
  /** Failed lease requests (update tries, ensure-lease GETs and creates). */
  leaseFailures = 0
  statusChecks = 0
  statusPatches = 0
  podStatusWrites = 0
  /** Waiting statuses posted for pods whose preparation failed (image pulls). */
  podWaitingWrites = 0
  /** Lease renew latencies, recorded as runs of equal values (`EqualRuns.ts`). */
  private readonly leaseLatencyRuns = new EqualRuns(makeHistogram())
  /** Lease renew latency (ms): from the renewal's intended start to the response. */
  get leaseLatency(): Histogram {
    return this.leaseLatencyRuns.histogram
  }
  /** Records a lease renew latency (ms) into `leaseLatency`, as `recordMillis` would. */
  recordLeaseLatency(ms: number): void {
    this.leaseLatencyRuns.record(toMicros(ms))
  }
  /** Node status PATCH latency (ms): from the post's intended start to the response. */
  readonly statusLatency: Histogram = makeHistogram()
  /** Failed requests by HTTP status code, or what happened to one without an answer (`connection refused`); one given up after 429s, 429. */
  readonly errorsByCode: Record<string, number> = {}
  /** Requests held back by the run's total QPS limit (real time only), and for how long in all (ms). */
  throttled = 0
  throttledMs = 0
  /** Set when a run exports its metrics; undefined costs one check per write. */
  observer: NodeAgentObserver | undefined = undefined

  /** `leaseTimeline`: also record lease writes per interval of the run (the report's charts over time). */
  constructor(readonly leaseTimeline?: LeaseTimeline) {}
}

/**
 * A run on the real clock against a server over a wire (docs/cluster.md "Real time"): requests are answered later,
 * so the shard launches them beside its loop instead of running them in place, and the parts take a request's end
 * from the clock rather than from the latency model.
 */
export interface LiveRequests {
  /** The clock (ms): when an answer came. */
  readonly now: () => number
  /** Runs a request beside the shard's loop (the loop never waits for the wire). */
  readonly launch: (request: Effect.Effect<void>) => Effect.Effect<void>
  /** Every agent's requests together (the driver's total QPS/burst); undefined: no total limit. */
  readonly total: TokenBucket.TokenBucket | undefined
}

export interface NodeAgentEnvironment {
  /**
   * Every request (registration, lease, status, pod reads and status). In simulations the in-process client, whose
   * immediate view (`at`) answers at the shard's clock without a fiber step.
   */
  readonly client: ApiClientService
  /** Each agent's own client (its node identity, docs/auth.md); `client` when absent. */
  readonly clientOf?: (nodeName: string) => ApiClientService
  /**
   * The server's cost model, which books every request (`simulator/apiserver/BookedClient.ts`). Absent: nothing is
   * modelled — in real time the clock says when an answer came.
   */
  readonly serviceTime?: ServiceTimeModel
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
  /**
   * The label that marks the Nodes and Leases the agents own (real time, on a server others use too): written at
   * registration, required of a node or lease found existing. Absent in a simulation, whose server holds nothing else.
   */
  readonly ownerLabel?: { readonly key: string; readonly value: string }
  /** Set in real time (`LiveRequests`); absent in a simulation, where the in-process client answers at once. */
  readonly live?: LiveRequests
  /**
   * The cluster's node and pod addresses: with it the agents also write what a real kubelet writes for stock clients
   * (`KubeletFields.ts`: nodeInfo under upstream's names, addresses, pod and host IPs, container images). Set in real
   * time, where kubectl and the official clients read the objects; absent in a simulation, whose results charge every
   * written KiB (`ServiceTimeModel.ts`) and whose largest runs hold every object in memory.
   */
  readonly network?: NodeNetwork
}

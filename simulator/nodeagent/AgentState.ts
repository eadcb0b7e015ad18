/**
 * What a shard keeps per node agent: the caches an agent fills from its own writes and watches (its Node, its
 * lease), its health, its pending pods, its lease-client state and its token bucket. Plain data; the shard's parts
 * (registration, lease renewer, status reporter, pod starter) read and write it.
 */
import type { KObject, ObjectMeta } from "../../src/api/Object.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import * as TokenBucket from "../events/TokenBucket.js"
import type { NodeAgentSettings } from "./AgentEnvironment.js"
import type { CallerRequests } from "../apiserver/BookedClient.js"
import type { NotingWriteOptions } from "../apiserver/Write.js"
import type { RenewalMemo } from "./RenewalSpec.js"
import { healthy, type NodeHealth } from "./NodeStatus.js"
import { undisturbedUntil, type Interval, type SimulatedNode } from "./SimulatedNode.js"

/** Fields in the order of use: what every lease and status event reads comes first (fewer cache lines). */
export interface AgentState extends RenewalMemo {
  /**
   * Before this time (undefined: never) the agent is neither stopped nor cut off (faults are known when the shard is
   * made), so most events skip the fault checks, and with them a read of the node's fault records.
   */
  readonly undisturbedUntil: number | undefined
  /** Pods bound and not started yet; undefined when none (the common case costs no read of an array). */
  pending: Array<string> | undefined
  /** The Node as the server has it (fed by every write, as an informer cache would be; set by `StatusCheckMemo.setCurrent`). */
  current: KObject | undefined
  /** What the node's own checks find (pressure conditions): the conditions it posts. */
  health: NodeHealth
  /** The Node object and health last found unchanged: no need to compare again. */
  checked: KObject | undefined
  checkedHealth: NodeHealth | undefined
  /** How many times `current` was set, and its count when last found unchanged (-1: none; `StatusCheckMemo.ts`). */
  currentWrites: number
  checkedWrites: number
  /** Whole seconds before which the status report is not due (0: look at `lastReport`; `StatusCheckMemo.ts`). */
  reportNotBefore: number
  readonly node: SimulatedNode
  /** The client it sends through (its own identity's when the server authorizes), found at its first request. */
  client: ApiClientService | undefined
  /**
   * Its requests as the service-time model classified them, as its node's identity (`BookedClient.ts`; made at its
   * first request of each kind that waits or is rejected — one that starts at once needs none, `BookedClient.callerOf`
   * — and kept: a lookup by node name on every request cost ~3 % of the hour).
   */
  requests: CallerRequests | undefined
  /** The lease's metadata and spec as last read or written (undefined: read it first). */
  leaseMeta: ObjectMeta | undefined
  leaseSpec: Readonly<Record<string, unknown>>
  /** When the renewal in flight was due, if sent later (`LeaseRenewer.update`). */
  renewalDueAt: number
  /** The renewal's options, with its note of the lease's entry in the server's store (made at the first renewal). */
  renewalOptions: NotingWriteOptions | undefined
  /** The spec the agent built last and its values (`RenewalSpec.renewalSpecOf`). */
  renewalBase: Readonly<Record<string, unknown>> | undefined
  renewalHolder: unknown
  renewalDuration: unknown
  renewalTime: string
  ensuring: boolean
  lastReport: number
  uid: string | undefined
  /** Registration is done (or given up): its loops run, and a pod bound now is started at once. */
  registered: boolean
  leaseTries: number
  backoffMs: number
  /** Registration tries that failed so far: the next one waits longer (`Registration`). */
  failedRegistrations: number
  readonly bucket: TokenBucket.TokenBucket
  readonly capacity: Readonly<Record<string, string>>
  /** The pods that have their pod worker (`PodStarter`), a set of keys; undefined until the first. Read at pod starts only: last. */
  podWorkers: Array<string> | undefined
}

/** A fresh agent for `node`: nothing known of the server yet, healthy, a full token bucket. */
export const makeAgentState = (node: SimulatedNode, settings: NodeAgentSettings, pauses: ReadonlyArray<Interval>): AgentState => ({
  undisturbedUntil: undisturbedUntil(node, pauses),
  pending: undefined,
  current: undefined,
  health: healthy,
  checked: undefined,
  checkedHealth: undefined,
  currentWrites: 0,
  checkedWrites: -1,
  reportNotBefore: 0,
  node,
  client: undefined,
  requests: undefined,
  leaseMeta: undefined,
  leaseSpec: {},
  renewalDueAt: 0,
  renewalOptions: undefined,
  renewalBase: undefined,
  renewalHolder: undefined,
  renewalDuration: undefined,
  renewalTime: "",
  ensuring: false,
  lastReport: -Infinity,
  uid: undefined,
  registered: false,
  leaseTries: 0,
  backoffMs: 0,
  failedRegistrations: 0,
  bucket: TokenBucket.make(settings.platformAPIQPS, settings.platformAPIBurst),
  capacity: { cpu: node.cpu, memory: node.memory, pods: String(node.pods) },
  podWorkers: undefined
})

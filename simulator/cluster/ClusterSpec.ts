/**
 * The `cluster` section and the timed `faults` of a scenario file (docs/cluster.md is the field reference).
 * Durations are Go duration strings (`10s`, `1m30s`); every field but `nodes` has a default.
 */
import { Schema } from "effect"
import { DurationMs, NonNegativeQuantityString, PeriodMs, QuantityString } from "../../src/api/go/Schemas.js"
import { isValidLabelValue } from "../../src/api/kinds/Names.js"
import { ServiceTimeSettings } from "../apiserver/ServiceTime.js"
import { ImagesSpec, RegistryOutage, ExpireRegistryCredentials } from "../nodeagent/images/ImagesSpec.js"

export { DurationMs }

/**
 * Largest sizes a `cluster` section may ask for (docs/scenarios.md "Bounds"): 65,000 nodes is the largest cluster a
 * managed provider supports (an hour of it runs in ~90 s, ~3 GiB); 100,000 leaves room for experiments while a typo
 * (`nodes: 1e7`) is refused before it exhausts memory. `maxPods` tops out at 110 by default, so 1,000 pods per node
 * is already far past any real node; the seeded pods in all (`nodes` × `podsPerNode`) stop at 2,000,000, which
 * fit in Node's default heap (65,000 × 30).
 */
export const ClusterBounds = { nodes: 100_000, podsPerNode: 1_000, seededPods: 2_000_000, podsPerNodeShape: 1_000, zones: 1_000, shards: 10_000 } as const

/** The value of a node label (zone, region): upstream's `IsValidLabelValue`, or the server refuses the node. */
const LabelValue = Schema.String.pipe(
  Schema.filter((v) => {
    const problems = isValidLabelValue(v)
    return problems.length > 0 ? `Invalid value: "${v}": ${problems.join(", ")}` : undefined
  })
)

/** At least one zone (omit the field for the default), each a label value, none twice (the spread would skew). */
const Zones = Schema.Array(LabelValue).pipe(
  Schema.maxItems(ClusterBounds.zones),
  Schema.filter((zones) => {
    if (zones.length === 0) return "at least 1 zone is required (omit zones for the default zone-a)"
    const seen = new Set<string>()
    return zones.flatMap((z, i) => {
      const twice = seen.has(z)
      seen.add(z)
      return twice ? [{ path: [i], message: `duplicate zone "${z}"` }] : []
    })
  })
)

export const NodeShape = Schema.Struct({
  /** CPU cores as a quantity (`4`, `3500m`). Default `4`. */
  cpu: Schema.optional(NonNegativeQuantityString),
  /** Memory as a quantity. Default `16Gi`. */
  memory: Schema.optional(NonNegativeQuantityString),
  /** Pod capacity; default min(cores × podsPerCore, maxPods) from the node agent configuration. */
  pods: Schema.optional(Schema.Int.pipe(Schema.between(1, ClusterBounds.podsPerNodeShape)))
}).annotations({ identifier: "NodeShape" })
export type NodeShape = typeof NodeShape.Type

/**
 * The node lifecycle controller's settings. Upstream's kube-controller-manager validates none of them; the monitor
 * period is the controller's loop (`wait.Until`), which a 0 would make spin, so it must be greater than 0. The
 * grace periods may be 0 (a node is late at once: a storm of taints, not a hang).
 */
export const NodeLifecycleSpec = Schema.Struct({
  monitorPeriod: Schema.optional(PeriodMs),
  gracePeriod: Schema.optional(DurationMs),
  startupGracePeriod: Schema.optional(DurationMs),
  evictionRate: Schema.optional(Schema.NonNegative),
  secondaryEvictionRate: Schema.optional(Schema.NonNegative),
  largeClusterSizeThreshold: Schema.optional(Schema.NonNegative),
  unhealthyZoneThreshold: Schema.optional(Schema.NonNegative),
  /** tolerationSeconds of the not-ready / unreachable NoExecute tolerations added to pods (admission). */
  defaultTolerationSeconds: Schema.optional(Schema.NonNegative),
  /** false: run no lifecycle controller. */
  enabled: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "NodeLifecycle" })
export type NodeLifecycleSpec = typeof NodeLifecycleSpec.Type

/**
 * Memory use that grows on some nodes: one pod per node (index `pod`) follows `base` + `perSecond` (a leak) +
 * `steps`; the node's eviction manager acts on the NodeAgentConfiguration's eviction thresholds.
 */
export const MemoryPressureSpec = Schema.Struct({
  nodes: Schema.Array(Schema.String),
  pod: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 0 }),
  base: Schema.optionalWith(NonNegativeQuantityString, { default: () => "100Mi" }),
  perSecond: Schema.optional(NonNegativeQuantityString),
  steps: Schema.optional(Schema.Array(Schema.Struct({ at: DurationMs, add: QuantityString })))
}).annotations({ identifier: "MemoryPressure" })
export type MemoryPressureSpec = typeof MemoryPressureSpec.Type

/**
 * The NodeAgentConfiguration: an inline object (the document's fields, without apiVersion and kind) or `file` (a
 * YAML path, relative to the scenario file). The scenario loader validates either with the node agent's own
 * validator (`simulator/nodeagent/config/check.ts`) and reports every error at its line and column.
 */
export const NodeAgentSource = Schema.Struct({
  config: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  file: Schema.optional(Schema.String)
}).annotations({ identifier: "NodeAgentSource" })
export type NodeAgentSource = typeof NodeAgentSource.Type

/**
 * The real-time driver (`clustersim run --target …`, docs/cluster.md "Real time"); a simulation ignores it. `qps` /
 * `burst`: all agents' requests together, on top of each agent's platformAPIQPS / platformAPIBurst (0 or absent: no
 * total limit). `podWatch`: one pod watch for all nodes filtered here (`shared`, the default), or one per node with
 * a `spec.nodeName` field selector as each kubelet has (`per-node`).
 */
export const DriverSpec = Schema.Struct({
  qps: Schema.optional(Schema.NonNegative),
  burst: Schema.optional(Schema.Int.pipe(Schema.positive())),
  podWatch: Schema.optional(Schema.Literal("shared", "per-node")),
  /** Keep-alive connections to the target (default 64). */
  connections: Schema.optional(Schema.Int.pipe(Schema.between(1, 4096)))
}).annotations({ identifier: "Driver" })
export type DriverSpec = typeof DriverSpec.Type

export const ClusterSpec = Schema.Struct({
  /** Number of simulated nodes, named `<namePrefix><index>` from 0. */
  nodes: Schema.Int.pipe(Schema.between(0, ClusterBounds.nodes)),
  namePrefix: Schema.optional(Schema.String),
  shape: Schema.optional(NodeShape),
  /** Pods created per node at the start, already bound (spec.nodeName); the node agents mark them Running. */
  podsPerNode: Schema.optional(Schema.Int.pipe(Schema.between(0, ClusterBounds.podsPerNode))),
  /** Zone names; nodes are spread round-robin. Default one zone `zone-a`. */
  zones: Schema.optional(Zones),
  /** The nodes' region label. Default `region-1`. */
  region: Schema.optional(LabelValue),
  /** The NodeAgentConfiguration: an inline object (the document's fields) or `file` (a YAML path). */
  nodeAgent: Schema.optional(NodeAgentSource),
  nodeLifecycle: Schema.optional(NodeLifecycleSpec),
  serviceTime: Schema.optional(ServiceTimeSettings),
  /** Node agents start spread uniformly over this window. Default `10s`. */
  startSpread: Schema.optional(DurationMs),
  /** Node-agent shard fibers (default ceil(nodes / 500)) and their wake-up resolution (default `1s`). */
  shards: Schema.optional(Schema.Int.pipe(Schema.between(1, ClusterBounds.shards))),
  resolution: Schema.optional(PeriodMs),
  /** Nodes whose memory use grows; their eviction managers evict by the configured thresholds. */
  memoryPressure: Schema.optional(Schema.Array(MemoryPressureSpec)),
  /** Image pulls: registries, images, the seeded pods' images, the credential plugin (docs/cluster.md). */
  images: Schema.optional(ImagesSpec),
  /** How a real-time run drives its agents (total QPS, pod watches); ignored in virtual time. */
  driver: Schema.optional(DriverSpec)
}).annotations({ identifier: "Cluster" })
export type ClusterSpec = typeof ClusterSpec.Type

/** Which nodes a fault hits: names, and/or `count` nodes drawn with the run's seed. */
const NodeSelection = {
  nodes: Schema.optional(Schema.Array(Schema.String)),
  count: Schema.optional(Schema.Int.pipe(Schema.between(0, ClusterBounds.nodes)))
}

export const StopNodes = Schema.Struct({ type: Schema.Literal("stop-nodes"), at: DurationMs, ...NodeSelection })
export const Partition = Schema.Struct({ type: Schema.Literal("partition"), at: DurationMs, for: DurationMs, ...NodeSelection })
export const ApiServerPause = Schema.Struct({ type: Schema.Literal("apiserver-pause"), at: DurationMs, for: DurationMs })
/**
 * An API server restart: down for `for` (requests wait, as for a pause), every watch closed, and back with a watch
 * cache that starts at the revision of the restart — a watch from an older resource version is answered 410, so
 * informers relist (docs/watchlist.md).
 */
export const ApiServerRestart = Schema.Struct({ type: Schema.Literal("apiserver-restart"), at: DurationMs, for: DurationMs })

/**
 * A timed fault; `at` counts from the start of the run. A new kind is one more struct in this union (its
 * `type` literal names it) and one branch where `ClusterRun.ts` applies faults.
 */
export const ClusterFault = Schema.Union(StopNodes, Partition, ApiServerPause, ApiServerRestart, RegistryOutage, ExpireRegistryCredentials).annotations({ identifier: "Fault" })
export type ClusterFault = typeof ClusterFault.Type

export const decodeClusterSpec = Schema.decodeUnknownEither(ClusterSpec)
export const decodeClusterFaults = Schema.decodeUnknownEither(Schema.Array(ClusterFault))

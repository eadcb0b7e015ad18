/**
 * The `cluster` section and the timed `faults` of a scenario file (docs/cluster.md is the field reference).
 * Durations are Go duration strings (`10s`, `1m30s`); every field but `nodes` has a default.
 */
import { Schema } from "effect"
import { ServiceTimeSettings } from "../apiserver/ServiceTime.js"
import { DurationMs } from "../../src/api/Duration.js"
import { ImagesSpec, RegistryOutage, ExpireRegistryCredentials } from "../nodeagent/images/ImagesSpec.js"

export { DurationMs }

export const NodeShape = Schema.Struct({
  /** CPU cores as a quantity (`4`, `3500m`). Default `4`. */
  cpu: Schema.optional(Schema.String),
  /** Memory as a quantity. Default `16Gi`. */
  memory: Schema.optional(Schema.String),
  /** Pod capacity; default min(cores × podsPerCore, maxPods) from the node agent configuration. */
  pods: Schema.optional(Schema.Int.pipe(Schema.positive()))
})
export type NodeShape = typeof NodeShape.Type

export const NodeLifecycleSpec = Schema.Struct({
  monitorPeriod: Schema.optional(DurationMs),
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
})
export type NodeLifecycleSpec = typeof NodeLifecycleSpec.Type

/**
 * Memory use that grows on some nodes: one pod per node (index `pod`) follows `base` + `perSecond` (a leak) +
 * `steps`; the node's eviction manager acts on the NodeAgentConfiguration's eviction thresholds.
 */
export const MemoryPressureSpec = Schema.Struct({
  nodes: Schema.Array(Schema.String),
  pod: Schema.optionalWith(Schema.Int.pipe(Schema.nonNegative()), { default: () => 0 }),
  base: Schema.optionalWith(Schema.String, { default: () => "100Mi" }),
  perSecond: Schema.optional(Schema.String),
  steps: Schema.optional(Schema.Array(Schema.Struct({ at: DurationMs, add: Schema.String })))
})
export type MemoryPressureSpec = typeof MemoryPressureSpec.Type

export const ClusterSpec = Schema.Struct({
  /** Number of simulated nodes, named `<namePrefix><index>` from 0. */
  nodes: Schema.Int.pipe(Schema.nonNegative()),
  namePrefix: Schema.optional(Schema.String),
  shape: Schema.optional(NodeShape),
  /** Pods created per node at the start, already bound (spec.nodeName); the node agents mark them Running. */
  podsPerNode: Schema.optional(Schema.Int.pipe(Schema.nonNegative())),
  /** Zone names; nodes are spread round-robin. Default one zone `zone-a`. */
  zones: Schema.optional(Schema.Array(Schema.String)),
  region: Schema.optional(Schema.String),
  /** The NodeAgentConfiguration: an inline object (the document's fields) or `file` (a YAML path). */
  nodeAgent: Schema.optional(
    Schema.Struct({
      config: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
      file: Schema.optional(Schema.String)
    })
  ),
  nodeLifecycle: Schema.optional(NodeLifecycleSpec),
  serviceTime: Schema.optional(ServiceTimeSettings),
  /** Node agents start spread uniformly over this window. Default `10s`. */
  startSpread: Schema.optional(DurationMs),
  /** Node-agent shard fibers (default ceil(nodes / 500)) and their wake-up resolution (default `1s`). */
  shards: Schema.optional(Schema.Int.pipe(Schema.positive())),
  resolution: Schema.optional(DurationMs),
  /** Nodes whose memory use grows; their eviction managers evict by the configured thresholds. */
  memoryPressure: Schema.optional(Schema.Array(MemoryPressureSpec)),
  /** Image pulls: registries, images, the seeded pods' images, the credential plugin (docs/cluster.md). */
  images: Schema.optional(ImagesSpec)
})
export type ClusterSpec = typeof ClusterSpec.Type

/** Which nodes a fault hits: names, and/or `count` nodes drawn with the run's seed. */
const NodeSelection = {
  nodes: Schema.optional(Schema.Array(Schema.String)),
  count: Schema.optional(Schema.Int.pipe(Schema.nonNegative()))
}

export const StopNodes = Schema.Struct({ type: Schema.Literal("stop-nodes"), at: DurationMs, ...NodeSelection })
export const Partition = Schema.Struct({ type: Schema.Literal("partition"), at: DurationMs, for: DurationMs, ...NodeSelection })
export const ApiServerPause = Schema.Struct({ type: Schema.Literal("apiserver-pause"), at: DurationMs, for: DurationMs })

/** A timed fault; `at` counts from the start of the run. */
export const ClusterFault = Schema.Union(StopNodes, Partition, ApiServerPause, RegistryOutage, ExpireRegistryCredentials)
export type ClusterFault = typeof ClusterFault.Type

export const decodeClusterSpec = Schema.decodeUnknownEither(ClusterSpec)
export const decodeClusterFaults = Schema.decodeUnknownEither(Schema.Array(ClusterFault))

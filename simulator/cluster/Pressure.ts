/**
 * Memory pressure in a simulated cluster: a usage model for chosen nodes (a leak or a step in one of their
 * pods) drives each node's eviction manager with the thresholds of the node agent's configuration. The manager
 * evicts pods through the API server; the pressure conditions it finds go to the node's agent (`onPressure`),
 * which posts them with its status (as the node agent's own status setters do).
 */
import { Effect, Either } from "effect"
import { parseQuantity } from "../../src/api/go/Quantity.js"
import type { ApiClient } from "../../src/client/ApiClient.js"
import { EventRecorder } from "../events/EventRecorder.js"
import { parseThresholdConfig } from "../nodeagent/config/eviction.js"
import type { NodeAgentConfiguration } from "../nodeagent/config/NodeAgentConfiguration.js"
import { runEvictionShard, type EvictionManagerConfig, type EvictionRecord } from "../nodeagent/eviction/EvictionManager.js"
import type { PressureCondition } from "../nodeagent/eviction/Thresholds.js"
import type { PodUsage, UsageCurve } from "../nodeagent/eviction/UsageModel.js"
import type { SimulatedNode } from "../nodeagent/SimulatedNode.js"
import type { MemoryPressureSpec } from "./ClusterSpec.js"

const bytes = (q: string): number => {
  const parsed = parseQuantity(q)
  return Either.isRight(parsed) ? Number(parsed.right.value()) : 0
}

/** Pods of a node in the usage model: the chosen one follows the spec's curve, the others sit at 64Mi. */
const podsOf = (node: SimulatedNode, podsPerNode: number, spec: MemoryPressureSpec): ReadonlyArray<PodUsage> =>
  Array.from({ length: podsPerNode }, (_, i) => {
    const memory: UsageCurve =
      i === spec.pod
        ? {
            base: bytes(spec.base),
            ...(spec.perSecond ? { perSecond: bytes(spec.perSecond) } : {}),
            ...(spec.steps ? { steps: spec.steps.map((s) => ({ atMs: s.at, add: bytes(s.add) })) } : {})
          }
        : { base: 64 * 1024 * 1024 }
    return { namespace: "default", name: `${node.name}-pod-${i}`, container: "app", priority: 0, memoryRequest: "128Mi", memory }
  })

/**
 * The eviction managers of the nodes named in `specs`, on one fiber. Starts at the current (virtual) time,
 * which is time 0 of the usage curves.
 */
export const runMemoryPressure = (
  specs: ReadonlyArray<MemoryPressureSpec>,
  nodes: ReadonlyArray<SimulatedNode>,
  podsPerNode: number,
  config: NodeAgentConfiguration,
  onEvicted: (e: EvictionRecord) => void,
  onPressure: (node: string, conditions: ReadonlySet<PressureCondition>) => void
): Effect.Effect<never, string, ApiClient> =>
  Effect.gen(function* () {
    const thresholds = parseThresholdConfig(config)
    if (Either.isLeft(thresholds)) return yield* Effect.fail(thresholds.left)
    const recorder = yield* EventRecorder
    const byName = new Map(nodes.map((n) => [n.name, n]))
    const configs: EvictionManagerConfig[] = []
    for (const spec of specs) {
      for (const name of spec.nodes) {
        const node = byName.get(name)
        if (!node) continue
        const memory = bytes(node.memory)
        configs.push({
          nodeName: name,
          thresholds: thresholds.right,
          pressureTransitionPeriodMs: config.evictionPressureTransitionPeriod,
          recorder,
          writeConditions: false,
          model: {
            capacity: { memory, nodefsBytes: 100 * 2 ** 30, nodefsInodes: 10_000_000, imagefsBytes: 100 * 2 ** 30, imagefsInodes: 10_000_000, pids: 32_768 },
            system: { memory: { base: 512 * 1024 * 1024 } },
            pods: podsOf(node, podsPerNode, spec)
          },
          onEvicted,
          onConditions: (conditions) => onPressure(name, conditions)
        })
      }
    }
    return yield* runEvictionShard(configs)
  }).pipe(Effect.provide(EventRecorder.layer({ reportingController: "node-agent", reportingInstance: "node-agent" })))

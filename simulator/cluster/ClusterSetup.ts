/**
 * What a simulated cluster is made of before it runs: the node agent configuration and lifecycle settings resolved
 * from the spec, the nodes a fault selects, and the cheap seeded uids of the seeded pods.
 */
import { Either } from "effect"
import { parseQuantity } from "../../src/api/go/Quantity.js"
import { defaultNodeLifecycleSettings, type NodeLifecycleSettings } from "../controllers/nodelifecycle/LifecycleSettings.js"
import type { SeededRandomService } from "../kernel/SeededRandom.js"
import type { NodeAgentConfiguration } from "../nodeagent/config/NodeAgentConfiguration.js"
import type { NodeAgentSettings } from "../nodeagent/AgentEnvironment.js"
import { podCapacity } from "../nodeagent/NodeStatus.js"
import { makeNode, type SimulatedNode } from "../nodeagent/SimulatedNode.js"
import type { ClusterSpec } from "./ClusterSpec.js"
import { checkNodeAgentSource } from "./NodeAgentSource.js"

export interface ResolvedCluster {
  readonly nodeAgent: NodeAgentConfiguration
  readonly lifecycle: NodeLifecycleSettings & { readonly enabled: boolean; readonly defaultTolerationSeconds: number }
}

/** The NodeAgentConfiguration of the spec (inline or file), decoded, defaulted and validated as the agent would. */
export const resolveNodeAgentConfiguration = (spec: ClusterSpec, baseDir = "."): Either.Either<NodeAgentConfiguration, ReadonlyArray<string>> => {
  const checked = checkNodeAgentSource(spec.nodeAgent, baseDir)
  // unknown fields: upstream decodes leniently and goes on (the scenario loader refuses them before a run)
  const errors = checked.problems.filter((p) => !p.strict).map((p) => p.message)
  return errors.length > 0 || checked.config === undefined ? Either.left(errors) : Either.right(checked.config)
}

export const resolveCluster = (spec: ClusterSpec, baseDir?: string): Either.Either<ResolvedCluster, ReadonlyArray<string>> =>
  Either.map(resolveNodeAgentConfiguration(spec, baseDir), (nodeAgent) => {
    const l = spec.nodeLifecycle ?? {}
    const d = defaultNodeLifecycleSettings
    return {
      nodeAgent,
      lifecycle: {
        monitorPeriodMs: l.monitorPeriod ?? d.monitorPeriodMs,
        gracePeriodMs: l.gracePeriod ?? d.gracePeriodMs,
        startupGracePeriodMs: l.startupGracePeriod ?? d.startupGracePeriodMs,
        evictionRate: l.evictionRate ?? d.evictionRate,
        secondaryEvictionRate: l.secondaryEvictionRate ?? d.secondaryEvictionRate,
        largeClusterSizeThreshold: l.largeClusterSizeThreshold ?? d.largeClusterSizeThreshold,
        unhealthyZoneThreshold: l.unhealthyZoneThreshold ?? d.unhealthyZoneThreshold,
        defaultTolerationSeconds: l.defaultTolerationSeconds ?? 300,
        enabled: l.enabled ?? true
      }
    }
  })

/** Character codes of the hex digits 0–f. */
const hexCodes = Array.from("0123456789abcdef", (c) => c.charCodeAt(0))
/** The uid being written, as character codes (`-` and the version digit in place); one at a time. */
const uidCodes: number[] = Array.from("00000000-0000-4000-0000-000000000000", (c) => c.charCodeAt(0))

/** A 32-bit draw. */
const draw32 = (random: SeededRandomService): number => Math.floor(random.next() * 0x100000000)

/** Writes hex digits `from`…`to` − 1 (of 8, most significant first) of the 32-bit `n` into `uidCodes` at `at`. */
const putHex = (n: number, from: number, to: number, at: number): void => {
  for (let k = from; k < to; k++) uidCodes[at++] = hexCodes[(n >>> (28 - 4 * k)) & 0xf]!
}

/**
 * A v4-shaped uid from four 32-bit draws a, b, c, d (uuidV4 draws once per hex digit; 150,000 pods notice):
 * `aaaaaaaa-bbbb-4bbb-Vccc-ccccdddddddd`, b's fifth digit unused, V the variant made of c's first. Written straight
 * into one flat string: a concatenation would stay a tree of a dozen strings for as long as the pod lives, and the
 * pieces of a join cost the seeding more than the draws (docs/benchmarks.md).
 */
export const fastUid = (random: SeededRandomService): string => {
  const a = draw32(random)
  const b = draw32(random)
  const c = draw32(random)
  const d = draw32(random)
  putHex(a, 0, 8, 0)
  putHex(b, 0, 4, 9)
  putHex(b, 5, 8, 15)
  uidCodes[19] = hexCodes[((c >>> 28) & 0x3) | 0x8]!
  putHex(c, 1, 4, 20)
  putHex(c, 4, 8, 24)
  putHex(d, 0, 8, 28)
  return String.fromCharCode.apply(null, uidCodes)
}

export const cores = (cpu: string): number => {
  const q = parseQuantity(cpu)
  return Either.isRight(q) ? q.right.milliValue() / 1000 : 0
}

/** Names of the nodes a fault selects: its `nodes`, plus `count` more drawn with the seed (sorted by index). */
export const selectNodes = (fault: { nodes?: ReadonlyArray<string> | undefined; count?: number | undefined }, all: ReadonlyArray<SimulatedNode>, random: SeededRandomService): Array<string> => {
  const chosen = new Set(fault.nodes ?? [])
  const rest = all.filter((n) => !chosen.has(n.name))
  for (let i = 0; i < (fault.count ?? 0) && rest.length > 0; i++) {
    const j = random.intBetween(0, rest.length)
    chosen.add(rest[j]!.name)
    rest.splice(j, 1)
  }
  const index = new Map(all.map((n, i) => [n.name, i]))
  return [...chosen].sort((a, b) => (index.get(a) ?? Infinity) - (index.get(b) ?? Infinity))
}

/**
 * The spec's nodes, named `<namePrefix><index>`, spread round-robin over the zones, each starting at a seeded
 * moment of `startSpread` after `startMillis` (drawn from `random`'s "start" split).
 */
export const simulatedNodes = (spec: ClusterSpec, settings: NodeAgentSettings | undefined, random: SeededRandomService, startMillis: number): Array<SimulatedNode> => {
  const prefix = spec.namePrefix ?? "node-"
  const zones = spec.zones && spec.zones.length > 0 ? spec.zones : ["zone-a"]
  const region = spec.region ?? "region-1"
  const cpu = spec.shape?.cpu ?? "4"
  const memory = spec.shape?.memory ?? "16Gi"
  const pods = spec.shape?.pods ?? (settings ? podCapacity(cores(cpu), settings.podsPerCore, settings.maxPods) : 0)
  const spread = spec.startSpread ?? 10_000
  const startRandom = random.split("start")
  const nodes: Array<SimulatedNode> = []
  for (let i = 0; i < spec.nodes; i++) {
    nodes.push(makeNode({ name: `${prefix}${i}`, zone: zones[i % zones.length]!, region, cpu, memory, pods, startAt: startMillis + Math.floor(startRandom.next() * spread) }))
  }
  return nodes
}

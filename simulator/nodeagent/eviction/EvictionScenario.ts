/**
 * The `eviction:` section of a scenario file run in virtual time: one node with a usage model, its pods created
 * on the simulated API server, the eviction manager with the configured thresholds. The result lists every
 * eviction, the pressure-condition timeline and the events by reason (docs/scheduler.md).
 */
import { Clock, Duration, Effect, Either, Schema } from "effect"
import { parseQuantity } from "../../../src/api/go/Quantity.js"
import { Events, Leases, Nodes, Pods } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { microTime } from "../../apiserver/SystemMeta.js"
import { nodeLeaseNamespace } from "../../../src/api/WellKnown.js"
import { make as makeRecorder } from "../../events/EventRecorder.js"
import { DurationMs, QuantityString } from "../../../src/api/go/Schemas.js"
import { parseThresholdConfig } from "../config/eviction.js"
import { evictionMetrics } from "./EvictionMetrics.js"
import { runEvictionManager, type EvictionRecord } from "./EvictionManager.js"
import type { UsageCurve } from "./UsageModel.js"

const Curve = Schema.Struct({
  base: Schema.optionalWith(QuantityString, { default: () => "0" }),
  /** Growth per second, a quantity ("1Mi"). */
  perSecond: Schema.optional(QuantityString),
  steps: Schema.optional(Schema.Array(Schema.Struct({ at: DurationMs, add: QuantityString }))),
  max: Schema.optional(QuantityString)
}).annotations({ identifier: "UsageCurve" })

const PodSpec = Schema.Struct({
  name: Schema.String,
  namespace: Schema.optionalWith(Schema.String, { default: () => "default" }),
  container: Schema.optionalWith(Schema.String, { default: () => "app" }),
  priority: Schema.optionalWith(Schema.Int, { default: () => 0 }),
  memoryRequest: Schema.optional(QuantityString),
  ephemeralRequest: Schema.optional(QuantityString),
  critical: Schema.optional(Schema.Boolean),
  memory: Schema.optional(Curve),
  disk: Schema.optional(Curve),
  inodes: Schema.optional(Curve),
  pids: Schema.optional(Curve)
}).annotations({ identifier: "EvictionPod" })

export const DefaultEvictionDurationMs = 20 * 60_000

/** Pods of the one eviction node: the node agent's default `maxPods` is 110; beyond 1,000 nothing is learnt. */
export const MaxEvictionPods = 1_000

/**
 * The `eviction:` section of a scenario file. Its seed is the scenario's (one simulation for every section,
 * docs/scenarios.md "One simulation").
 */
export const EvictionSection = Schema.Struct({
  /** When the section's measurement ends; default the scenario's `duration`, else 20m. */
  duration: Schema.optional(DurationMs),
  node: Schema.Struct({
    name: Schema.optionalWith(Schema.String, { default: () => "node-0" }),
    memory: QuantityString,
    allocatableMemory: Schema.optional(QuantityString),
    nodefs: Schema.optionalWith(QuantityString, { default: () => "100Gi" }),
    nodefsInodes: Schema.optionalWith(QuantityString, { default: () => "6553600" }),
    imagefs: Schema.optionalWith(QuantityString, { default: () => "100Gi" }),
    imagefsInodes: Schema.optionalWith(QuantityString, { default: () => "6553600" }),
    pids: Schema.optionalWith(QuantityString, { default: () => "32768" })
  }).annotations({ identifier: "EvictionNode" }),
  system: Schema.optionalWith(
    Schema.Struct({ memory: Schema.optional(Curve), nodefs: Schema.optional(Curve), imagefs: Schema.optional(Curve), pids: Schema.optional(Curve) }),
    { default: () => ({}) }
  ),
  /** NodeAgentConfiguration eviction fields. */
  config: Schema.optionalWith(
    Schema.Struct({
      evictionHard: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
      evictionSoft: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
      evictionSoftGracePeriod: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
      evictionMinimumReclaim: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
      evictionPressureTransitionPeriod: Schema.optionalWith(DurationMs, { default: () => 5 * 60_000 }),
      enforceNodeAllocatable: Schema.optional(Schema.Array(Schema.String))
    }).pipe(
      // the thresholds parse as the node agent parses them at startup: a bad map is a decode error here
      Schema.filter((c) => {
        const parsed = parseThresholdConfig(thresholdFields(c))
        return Either.isLeft(parsed) ? parsed.left : undefined
      })
    ),
    { default: () => ({ evictionPressureTransitionPeriod: 5 * 60_000 }) }
  ),
  pods: Schema.Array(PodSpec).pipe(Schema.maxItems(MaxEvictionPods))
}).annotations({ identifier: "EvictionSection" })
export type EvictionSection = typeof EvictionSection.Type

interface ThresholdFields {
  readonly evictionHard?: Readonly<Record<string, string>> | undefined
  readonly evictionSoft?: Readonly<Record<string, string>> | undefined
  readonly evictionSoftGracePeriod?: Readonly<Record<string, string>> | undefined
  readonly evictionMinimumReclaim?: Readonly<Record<string, string>> | undefined
  readonly enforceNodeAllocatable?: ReadonlyArray<string> | undefined
}

const thresholdFields = (c: ThresholdFields) => ({
  ...(c.evictionHard ? { evictionHard: c.evictionHard } : {}),
  ...(c.evictionSoft ? { evictionSoft: c.evictionSoft } : {}),
  ...(c.evictionSoftGracePeriod ? { evictionSoftGracePeriod: c.evictionSoftGracePeriod } : {}),
  ...(c.evictionMinimumReclaim ? { evictionMinimumReclaim: c.evictionMinimumReclaim } : {}),
  ...(c.enforceNodeAllocatable ? { enforceNodeAllocatable: c.enforceNodeAllocatable } : {})
})

export interface EvictionScenarioResult {
  readonly virtualMs: number
  readonly evictions: ReadonlyArray<EvictionRecord>
  readonly conditions: ReadonlyArray<{ readonly atMs: number; readonly conditions: ReadonlyArray<string> }>
  readonly events: Record<string, number>
  readonly podPhases: Record<string, string>
}

const q = (s: string): number => {
  const r = parseQuantity(s)
  if (Either.isLeft(r)) throw new Error(`bad quantity ${JSON.stringify(s)}: ${r.left}`)
  return r.right.value()
}

const curve = (c: typeof Curve.Type | undefined): UsageCurve | undefined =>
  c === undefined
    ? undefined
    : {
        base: q(c.base),
        ...(c.perSecond ? { perSecond: q(c.perSecond) } : {}),
        ...(c.steps ? { steps: c.steps.map((s) => ({ atMs: s.at, add: q(s.add) })) } : {}),
        ...(c.max ? { max: q(c.max) } : {})
      }

/** How often the section renews its node's Lease when asked to (the node agent's default renew interval). */
const LeaseRenewMs = 10_000

/**
 * The node's heartbeat: a Lease renewed every 10 s, so a node lifecycle controller in the same simulation keeps the
 * eviction node Ready (it has no node agent of its own; docs/scenarios.md "One simulation").
 */
const renewLease = (node: string) =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    for (;;) {
      const now = yield* Clock.currentTimeMillis
      const spec = { holderIdentity: node, leaseDurationSeconds: 40, renewTime: microTime(now) }
      const got = yield* Effect.either(client.get(Leases, node, { namespace: nodeLeaseNamespace }))
      yield* Effect.ignore(
        Either.isRight(got)
          ? client.update(Leases, { ...got.right, spec }, { namespace: nodeLeaseNamespace })
          : client.create(Leases, { metadata: { name: node, namespace: nodeLeaseNamespace }, spec }, { namespace: nodeLeaseNamespace })
      )
      yield* Effect.sleep(Duration.millis(LeaseRenewMs))
    }
  })

export interface EvictionSectionOptions {
  /** Renew the node's Lease (a node lifecycle controller runs in the same simulation). Default false. */
  readonly heartbeat?: boolean
}

export const evictionScenarioEffect = (s: EvictionSection, options: EvictionSectionOptions = {}) =>
  Effect.scoped(
    Effect.gen(function* () {
      const client = yield* ApiClient
      const start = yield* Clock.currentTimeMillis
      if (options.heartbeat) yield* Effect.forkScoped(renewLease(s.node.name))
      const thresholds = parseThresholdConfig(thresholdFields(s.config))
      if (Either.isLeft(thresholds)) return yield* Effect.die(new Error(thresholds.left))
      const n = s.node
      yield* Effect.orDie(
        client.create(Nodes, {
          metadata: { name: n.name },
          status: { capacity: { memory: n.memory }, allocatable: { memory: n.allocatableMemory ?? n.memory }, conditions: [{ type: "Ready", status: "True" }] }
        })
      )
      for (const p of s.pods) {
        const requests: Record<string, string> = {}
        if (p.memoryRequest) requests.memory = p.memoryRequest
        if (p.ephemeralRequest) requests["ephemeral-storage"] = p.ephemeralRequest
        yield* Effect.orDie(
          client.create(
            Pods,
            { metadata: { name: p.name, namespace: p.namespace }, spec: { nodeName: n.name, priority: p.priority, containers: [{ name: p.container, image: "app", resources: { requests } }] } },
            { namespace: p.namespace }
          )
        )
      }
      const recorder = yield* makeRecorder({ reportingController: "node-agent", reportingInstance: n.name, qps: 5, burst: 10 })
      const metrics = yield* evictionMetrics
      const evictions: EvictionRecord[] = []
      const conditions: Array<{ atMs: number; conditions: string[] }> = []
      yield* Effect.forkScoped(
        runEvictionManager({
          nodeName: n.name,
          thresholds: thresholds.right,
          pressureTransitionPeriodMs: s.config.evictionPressureTransitionPeriod,
          recorder,
          model: {
            capacity: {
              memory: q(n.memory),
              ...(n.allocatableMemory ? { allocatableMemory: q(n.allocatableMemory) } : {}),
              nodefsBytes: q(n.nodefs),
              nodefsInodes: q(n.nodefsInodes),
              imagefsBytes: q(n.imagefs),
              imagefsInodes: q(n.imagefsInodes),
              pids: q(n.pids)
            },
            system: {
              ...(s.system.memory ? { memory: curve(s.system.memory)! } : {}),
              ...(s.system.nodefs ? { nodefsBytes: curve(s.system.nodefs)! } : {}),
              ...(s.system.imagefs ? { imagefsBytes: curve(s.system.imagefs)! } : {}),
              ...(s.system.pids ? { pids: curve(s.system.pids)! } : {})
            },
            pods: s.pods.map((p) => ({
              namespace: p.namespace,
              name: p.name,
              container: p.container,
              priority: p.priority,
              ...(p.memoryRequest ? { memoryRequest: p.memoryRequest } : {}),
              ...(p.ephemeralRequest ? { ephemeralRequest: p.ephemeralRequest } : {}),
              ...(p.critical ? { critical: true } : {}),
              ...(p.memory ? { memory: curve(p.memory)! } : {}),
              ...(p.disk ? { disk: curve(p.disk)! } : {}),
              ...(p.inodes ? { inodes: curve(p.inodes)! } : {}),
              ...(p.pids ? { pids: curve(p.pids)! } : {})
            }))
          },
          onEvicted: (e) => {
            evictions.push(e)
            metrics?.evicted(e.signal)
          },
          onConditions: (c, atMs) => conditions.push({ atMs, conditions: [...c] })
        })
      )
      yield* Effect.sleep(Duration.millis(s.duration ?? DefaultEvictionDurationMs))
      yield* recorder.flush
      const events: Record<string, number> = {}
      for (const e of (yield* Effect.orDie(client.list(Events, {}))).items) {
        const r = String(e.reason ?? "")
        events[r] = (events[r] ?? 0) + ((e.series as { count?: number } | undefined)?.count ?? 1)
      }
      const podPhases: Record<string, string> = {}
      for (const p of (yield* Effect.orDie(client.list(Pods, {}))).items)
        podPhases[`${p.metadata.namespace}/${p.metadata.name}`] = String((p.status as { phase?: string } | undefined)?.phase ?? "Pending")
      const result: EvictionScenarioResult = { virtualMs: (yield* Clock.currentTimeMillis) - start, evictions, conditions, events, podPhases }
      return result
    })
  )

/**
 * The `eviction:` section of a scenario file run in virtual time: one node with a usage model, its pods created
 * on the simulated API server, the eviction manager with the configured thresholds. The result lists every
 * eviction, the pressure-condition timeline and the events by reason (docs/scheduler.md).
 */
import { Clock, Duration, Effect, Either, Layer, Schema } from "effect"
import { parseQuantity } from "../../../src/api/go/Quantity.js"
import { Events, Nodes, Pods } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { ApiServer } from "../../apiserver/ApiServer.js"
import { make as makeRecorder } from "../../events/EventRecorder.js"
import * as Simulation from "../../kernel/Simulation.js"
import { parseMs } from "../../scheduler/SchedulerScenario.js"
import { parseThresholdConfig } from "../config/eviction.js"
import { runEvictionManager, type EvictionRecord } from "./EvictionManager.js"
import type { UsageCurve } from "./UsageModel.js"
import * as InProcessClient from "../../apiserver/InProcessClient.js"

const Curve = Schema.Struct({
  base: Schema.optionalWith(Schema.String, { default: () => "0" }),
  /** Growth per second, a quantity ("1Mi"). */
  perSecond: Schema.optional(Schema.String),
  steps: Schema.optional(Schema.Array(Schema.Struct({ at: Schema.String, add: Schema.String }))),
  max: Schema.optional(Schema.String)
})

const PodSpec = Schema.Struct({
  name: Schema.String,
  namespace: Schema.optionalWith(Schema.String, { default: () => "default" }),
  container: Schema.optionalWith(Schema.String, { default: () => "app" }),
  priority: Schema.optionalWith(Schema.Number, { default: () => 0 }),
  memoryRequest: Schema.optional(Schema.String),
  ephemeralRequest: Schema.optional(Schema.String),
  critical: Schema.optional(Schema.Boolean),
  memory: Schema.optional(Curve),
  disk: Schema.optional(Curve),
  inodes: Schema.optional(Curve),
  pids: Schema.optional(Curve)
})

export const EvictionScenario = Schema.Struct({
  seed: Schema.optionalWith(Schema.Number, { default: () => 1 }),
  duration: Schema.optionalWith(Schema.String, { default: () => "20m" }),
  node: Schema.Struct({
    name: Schema.optionalWith(Schema.String, { default: () => "node-0" }),
    memory: Schema.String,
    allocatableMemory: Schema.optional(Schema.String),
    nodefs: Schema.optionalWith(Schema.String, { default: () => "100Gi" }),
    nodefsInodes: Schema.optionalWith(Schema.String, { default: () => "6553600" }),
    imagefs: Schema.optionalWith(Schema.String, { default: () => "100Gi" }),
    imagefsInodes: Schema.optionalWith(Schema.String, { default: () => "6553600" }),
    pids: Schema.optionalWith(Schema.String, { default: () => "32768" })
  }),
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
      evictionPressureTransitionPeriod: Schema.optionalWith(Schema.String, { default: () => "5m" }),
      enforceNodeAllocatable: Schema.optional(Schema.Array(Schema.String))
    }),
    { default: () => ({ evictionPressureTransitionPeriod: "5m" }) }
  ),
  pods: Schema.Array(PodSpec)
})
export type EvictionScenario = typeof EvictionScenario.Type
export type EvictionScenarioInput = typeof EvictionScenario.Encoded

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
        ...(c.steps ? { steps: c.steps.map((s) => ({ atMs: parseMs(s.at), add: q(s.add) })) } : {}),
        ...(c.max ? { max: q(c.max) } : {})
      }

export const evictionScenarioEffect = (s: EvictionScenario) =>
  Effect.scoped(
    Effect.gen(function* () {
      const client = yield* ApiClient
      const start = yield* Clock.currentTimeMillis
      const thresholds = parseThresholdConfig({
        ...(s.config.evictionHard ? { evictionHard: s.config.evictionHard } : {}),
        ...(s.config.evictionSoft ? { evictionSoft: s.config.evictionSoft } : {}),
        ...(s.config.evictionSoftGracePeriod ? { evictionSoftGracePeriod: s.config.evictionSoftGracePeriod } : {}),
        ...(s.config.evictionMinimumReclaim ? { evictionMinimumReclaim: s.config.evictionMinimumReclaim } : {}),
        ...(s.config.enforceNodeAllocatable ? { enforceNodeAllocatable: s.config.enforceNodeAllocatable } : {})
      })
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
      const evictions: EvictionRecord[] = []
      const conditions: Array<{ atMs: number; conditions: string[] }> = []
      yield* Effect.forkScoped(
        runEvictionManager({
          nodeName: n.name,
          thresholds: thresholds.right,
          pressureTransitionPeriodMs: parseMs(s.config.evictionPressureTransitionPeriod),
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
          onEvicted: (e) => evictions.push(e),
          onConditions: (c, atMs) => conditions.push({ atMs, conditions: [...c] })
        })
      )
      yield* Effect.sleep(Duration.millis(parseMs(s.duration)))
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

/** Runs the `eviction:` section in a fresh simulation and returns its JSON-serialisable result. */
export const runEvictionScenario = (input: EvictionScenarioInput): EvictionScenarioResult => {
  const scenario = Schema.decodeUnknownSync(EvictionScenario)(input)
  const sim = Simulation.make({ seed: scenario.seed })
  const layer = InProcessClient.layer.pipe(Layer.provide(ApiServer.layer({ seed: scenario.seed })))
  const exit = sim.run(Effect.provide(evictionScenarioEffect(scenario), layer))
  sim.interruptAll()
  if (!exit) throw new Error("eviction scenario did not finish")
  if (exit._tag === "Failure") throw new Error(`eviction scenario failed: ${String(exit.cause)}`)
  return exit.value
}

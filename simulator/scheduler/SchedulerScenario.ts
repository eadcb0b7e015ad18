/**
 * Scenario-level runs of the scheduler in virtual time: nodes, scheduler replicas under leader election, pod
 * batches created at a rate, and an optional leader kill with the failover measured as
 * leader lost → new leader → first bind. A scenario's `scheduler:` section runs it as a section of its one
 * simulation (app/scenario/Simulated.ts; docs/scheduler.md), or beside a real-time cluster (`RealTimeCluster.ts`).
 */
import { Clock, Duration, Effect, Fiber, Schema } from "effect"
import { Events, Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { failureKey, hasStatusCode } from "../../src/client/TransportError.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import type { KObject } from "../../src/api/Object.js"
import { make as makeRecorder, reportingInstanceOf, type RecorderStats } from "../events/EventRecorder.js"
import { runEventTtl } from "../events/EventTtl.js"
import * as LeaderElector from "../leaderelection/LeaderElector.js"
import { makeSchedulerCore, runInformers, runSchedulingLoop, type SchedulerCore, type SchedulerStats } from "./Scheduler.js"
import { schedulerMetrics } from "./SchedulerMetrics.js"
import { DurationMs, NonNegativeQuantityString } from "../../src/api/go/Schemas.js"

/** Largest counts a `scheduler:` section may ask for (docs/scenarios.md "Bounds"): beyond them a run exhausts memory. */
export const SchedulerBounds = { nodesPerGroup: 100_000, podsPerBatch: 1_000_000, ratePerSecond: 100_000, replicas: 10, podsPerNode: 1_000 } as const

export const DefaultSchedulerDurationMs = 5 * 60_000

const count = (max: number) => Schema.Int.pipe(Schema.between(0, max))
const TaintEffect = Schema.Literal("NoSchedule", "PreferNoSchedule", "NoExecute")

export const NodeGroup = Schema.Struct({
  count: count(SchedulerBounds.nodesPerGroup),
  cpu: Schema.optionalWith(NonNegativeQuantityString, { default: () => "4" }),
  memory: Schema.optionalWith(NonNegativeQuantityString, { default: () => "16Gi" }),
  pods: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, SchedulerBounds.podsPerNode)), { default: () => 110 }),
  labels: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  taints: Schema.optional(Schema.Array(Schema.Struct({ key: Schema.String, value: Schema.optional(Schema.String), effect: TaintEffect })))
}).annotations({ identifier: "SchedulerNodeGroup" })

export const PodBatch = Schema.Struct({
  /** Virtual time of the first pod, e.g. "10s". */
  at: Schema.optionalWith(DurationMs, { default: () => 0 }),
  count: count(SchedulerBounds.podsPerBatch),
  /** Pods created per second; 0 = all at once. */
  rate: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, SchedulerBounds.ratePerSecond)), { default: () => 0 }),
  namePrefix: Schema.optionalWith(Schema.String, { default: () => "pod" }),
  namespace: Schema.optionalWith(Schema.String, { default: () => "default" }),
  cpu: Schema.optional(NonNegativeQuantityString),
  memory: Schema.optional(NonNegativeQuantityString),
  priority: Schema.optional(Schema.Int),
  nodeSelector: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  tolerations: Schema.optional(
    Schema.Array(
      Schema.Struct({
        key: Schema.optional(Schema.String),
        operator: Schema.optional(Schema.Literal("Exists", "Equal")),
        value: Schema.optional(Schema.String),
        effect: Schema.optional(TaintEffect)
      })
    )
  )
}).annotations({ identifier: "SchedulerPodBatch" })

/**
 * The `scheduler:` section of a scenario file. Its seed is the scenario's: every section of a file runs in one
 * simulation (docs/scenarios.md "One simulation"). `nodes` may be empty when the scenario has a `cluster`, whose
 * nodes the scheduler then places pods on.
 */
export const SchedulerSection = Schema.Struct({
  /** When the section's measurement ends; default the scenario's `duration`, else 5m. */
  duration: Schema.optional(DurationMs),
  nodes: Schema.optionalWith(Schema.Array(NodeGroup), { default: () => [] }),
  /** Scheduler replicas; leader election is on when more than one (or `leaderElect: true`). */
  replicas: Schema.optionalWith(Schema.Int.pipe(Schema.between(1, SchedulerBounds.replicas)), { default: () => 1 }),
  leaderElect: Schema.optional(Schema.Boolean),
  leaseDuration: Schema.optionalWith(DurationMs, { default: () => 15_000 }),
  renewDeadline: Schema.optionalWith(DurationMs, { default: () => 10_000 }),
  retryPeriod: Schema.optionalWith(DurationMs, { default: () => 2_000 }),
  percentageOfNodesToScore: Schema.optionalWith(Schema.Number.pipe(Schema.between(0, 100)), { default: () => 0 }),
  batches: Schema.Array(PodBatch),
  /** Crash the current leader at this virtual time (no release). */
  killLeaderAt: Schema.optional(DurationMs),
  /** Events TTL; default 1h. */
  eventTtl: Schema.optionalWith(DurationMs, { default: () => 3_600_000 }),
  /** Record events (default true). */
  events: Schema.optionalWith(Schema.Boolean, { default: () => true })
}).annotations({ identifier: "SchedulerSection" })
export type SchedulerSection = typeof SchedulerSection.Type

export interface FailoverResult {
  readonly killedAtMs: number
  readonly killedIdentity: string
  /** True when no replica led at `killedAtMs` (a kill at 0 s, before the first election): a replica died, no leader. */
  readonly beforeAnyLeader?: true
  readonly newLeader: string | undefined
  readonly newLeaderAtMs: number | undefined
  readonly firstBindAfterMs: number | undefined
  /** leader lost → new leader. */
  readonly leaderLostToNewLeaderMs: number | undefined
  /** new leader → its first bind. */
  readonly newLeaderToFirstBindMs: number | undefined
  /** leader lost → first bind. */
  readonly totalMs: number | undefined
}

export interface SchedulerScenarioResult {
  readonly virtualMs: number
  /** The batches' pods created (one that existed already counts); `createErrorsByCode` says why the others were not. */
  readonly podsCreated: number
  /** The batches' creates that failed, by status code (`failureKey`); absent when none did. */
  readonly createErrorsByCode?: Readonly<Record<string, number>>
  /** Successful binds (of any pod: the scheduler binds every pod without a node it sees). */
  readonly binds: number
  /** The section's own pods bound, each once (at most `podsCreated`). */
  readonly podsBound: number
  /** Pods bound that the section did not create: a user's or the load phases' pods without a node. */
  readonly otherPodsBound: number
  readonly firstBindMs: number | undefined
  readonly lastBindMs: number | undefined
  readonly leaders: ReadonlyArray<{ readonly identity: string; readonly atMs: number }>
  readonly leaseTransitions: number | undefined
  readonly failover: FailoverResult | undefined
  readonly instances: ReadonlyArray<{ readonly identity: string } & SchedulerStats>
  readonly events: { readonly byReason: Record<string, number>; readonly inStore: number; readonly recorders: ReadonlyArray<RecorderStats> }
}

const makeNode = (name: string, g: typeof NodeGroup.Type) => ({
  metadata: { name, labels: { "platform.io/hostname": name, ...(g.labels ?? {}) } },
  spec: g.taints ? { taints: g.taints.map((t) => ({ key: t.key, value: t.value ?? "", effect: t.effect })) } : {},
  status: {
    capacity: { cpu: g.cpu, memory: g.memory, pods: String(g.pods) },
    allocatable: { cpu: g.cpu, memory: g.memory, pods: String(g.pods) },
    conditions: [{ type: "Ready", status: "True" }]
  }
})

const makePod = (name: string, b: typeof PodBatch.Type, labels: Readonly<Record<string, string>>) => {
  const requests: Record<string, string> = {}
  if (b.cpu) requests.cpu = b.cpu
  if (b.memory) requests.memory = b.memory
  return {
    metadata: { name, namespace: b.namespace, labels: { app: b.namePrefix, ...labels } },
    spec: {
      containers: [{ name: "app", image: "registry.example/app:1", resources: { requests } }],
      ...(b.priority !== undefined ? { priority: b.priority } : {}),
      ...(b.nodeSelector ? { nodeSelector: b.nodeSelector } : {}),
      ...(b.tolerations ? { tolerations: b.tolerations } : {})
    }
  }
}

/** What differs when the section runs on the real clock against a real server (simulator/cluster/RealTimeCluster.ts). */
export interface SchedulerSectionLive {
  /** Host part of replica `r`'s identity and reporting instance (default `scheduler-<r>`): drivers sharing a cluster need distinct ones. */
  readonly host?: (replica: number) => string
  /** Added to the batches' pods (the driver's ownership label, so cleanup finds them once bound). */
  readonly podLabels?: Readonly<Record<string, string>>
  /** Told of every pod created, with the time its create was sent (the pod-startup SLI). */
  readonly onPodCreated?: (pod: KObject, t: number) => void
  /** Run the event TTL controller (default true: the simulated server has none; a real one expires events itself). */
  readonly eventExpiry?: boolean
}

/** The scenario as an effect on the ambient clock (inside a Simulation, or on the real clock with `live`). */
export const schedulerScenarioEffect = (scenario: SchedulerSection, live: SchedulerSectionLive = {}) =>
  Effect.scoped(
    Effect.gen(function* () {
      const client = yield* ApiClient
      const start = yield* Clock.currentTimeMillis
      const durationMs = scenario.duration ?? DefaultSchedulerDurationMs
      let nodeIndex = 0
      for (const g of scenario.nodes) {
        for (let i = 0; i < g.count; i++) {
          const name = `node-${String(nodeIndex++).padStart(5, "0")}`
          yield* Effect.orDie(client.create(Nodes, makeNode(name, g)))
        }
      }
      if (scenario.events && live.eventExpiry !== false) yield* Effect.forkScoped(runEventTtl({ ttlMs: scenario.eventTtl }))

      const leaderElect = scenario.leaderElect ?? scenario.replicas > 1
      const metrics = yield* schedulerMetrics
      const leaders: Array<{ identity: string; atMs: number }> = []
      const binds: Array<{ atMs: number; identity: string; pod: string }> = []
      // the section's pods, to tell its binds from those of pods others created on the same server
      const ownPods = new Set<string>()
      const recorders: Array<{ stats: Effect.Effect<RecorderStats> }> = []
      const instances: Array<{ identity: string; core: SchedulerCore; elector?: LeaderElector.LeaderElector; fiber: Fiber.RuntimeFiber<unknown, unknown> }> = []

      for (let r = 0; r < scenario.replicas; r++) {
        const host = live.host?.(r) ?? `scheduler-${r}`
        const identity = `${host}_${String(r).padStart(8, "0")}-0000-4000-8000-000000000000`
        const recorder = scenario.events
          ? yield* makeRecorder({ reportingController: "default-scheduler", reportingInstance: reportingInstanceOf("default-scheduler", host) })
          : undefined
        if (recorder) recorders.push(recorder)
        const core = yield* makeSchedulerCore({
          percentageOfNodesToScore: scenario.percentageOfNodesToScore,
          ...(recorder ? { recorder } : {}),
          onBound: (p, _n, now) => binds.push({ atMs: now - start, identity, pod: `${p.namespace}/${p.name}` }),
          ...(metrics ? { onAttempt: (result: "scheduled" | "unschedulable" | "error", seconds: number) => metrics.attempt(result, "default-scheduler", seconds) } : {})
        })
        yield* Effect.forkScoped(runInformers(core))
        if (!leaderElect) {
          metrics?.track(core, () => true, LeaderElector.schedulerLeaderElectionDefaults.name)
          const fiber = yield* Effect.forkScoped(runSchedulingLoop(core))
          instances.push({ identity, core, fiber })
          continue
        }
        const elector = yield* Effect.orDie(
          LeaderElector.make({
            ...LeaderElector.schedulerLeaderElectionDefaults,
            identity,
            leaseDuration: scenario.leaseDuration,
            renewDeadline: scenario.renewDeadline,
            retryPeriod: scenario.retryPeriod,
            ...(recorder ? { recorder } : {})
          })
        )
        metrics?.track(core, () => elector.isLeader(), LeaderElector.schedulerLeaderElectionDefaults.name)
        const lead = Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          leaders.push({ identity, atMs: now - start })
          return yield* runSchedulingLoop(core)
        })
        const fiber = yield* Effect.forkScoped(elector.run(lead))
        instances.push({ identity, core, elector, fiber })
      }

      let podsCreated = 0
      const createErrors: Record<string, number> = {}
      for (const b of scenario.batches) {
        const at = b.at
        yield* Effect.forkScoped(
          Effect.gen(function* () {
            yield* Effect.sleep(Duration.millis(at))
            const perTick = b.rate > 0 ? Math.max(1, Math.round(b.rate / 10)) : b.count
            const tick = b.rate > 0 ? (perTick * 1000) / b.rate : 0
            for (let i = 0; i < b.count; ) {
              for (let k = 0; k < perTick && i < b.count; k++, i++) {
                const sentAt = yield* Clock.currentTimeMillis
                const made = yield* Effect.either(client.create(Pods, makePod(`${b.namePrefix}-${i}`, b, live.podLabels ?? {}), { namespace: b.namespace }))
                if (made._tag === "Right") live.onPodCreated?.(made.right.object, sentAt)
                // a pod that exists already (a run before, same names) counts as created, as a setup create does
                if (made._tag === "Left" && !hasStatusCode(made.left, 409)) {
                  const key = failureKey(made.left)
                  createErrors[key] = (createErrors[key] ?? 0) + 1
                  continue
                }
                ownPods.add(`${b.namespace}/${b.namePrefix}-${i}`)
                podsCreated++
              }
              if (tick > 0 && i < b.count) yield* Effect.sleep(Duration.millis(tick))
            }
          })
        )
      }

      let failover: FailoverResult | undefined
      // a kill at or after the section's end does not happen, as a fault at or after the run's end (docs/scheduler.md)
      if (scenario.killLeaderAt !== undefined && scenario.killLeaderAt < durationMs) {
        yield* Effect.sleep(Duration.millis(scenario.killLeaderAt))
        const now = (yield* Clock.currentTimeMillis) - start
        const leader = instances.find((i) => i.elector?.isLeader())
        const victim = leader ?? instances[0]!
        victim.elector?.crash()
        yield* Fiber.interrupt(victim.fiber)
        yield* Effect.sleep(Duration.millis(Math.max(0, durationMs - now)))
        const next = leaders.find((l) => l.atMs >= now && l.identity !== victim.identity)
        const firstBind = next ? binds.find((b) => b.atMs >= next.atMs && b.identity === next.identity) : undefined
        failover = {
          killedAtMs: now,
          killedIdentity: victim.identity,
          ...(leader === undefined ? { beforeAnyLeader: true as const } : {}),
          newLeader: next?.identity,
          newLeaderAtMs: next?.atMs,
          firstBindAfterMs: firstBind?.atMs,
          leaderLostToNewLeaderMs: next ? next.atMs - now : undefined,
          newLeaderToFirstBindMs: next && firstBind ? firstBind.atMs - next.atMs : undefined,
          totalMs: firstBind ? firstBind.atMs - now : undefined
        }
      } else yield* Effect.sleep(Duration.millis(durationMs))

      const events = yield* Effect.orDie(client.list(Events, {}))
      const byReason: Record<string, number> = {}
      for (const e of events.items) {
        const reason = String(e.reason ?? "")
        const series = e.series as { count?: number } | undefined
        byReason[reason] = (byReason[reason] ?? 0) + (series?.count ?? 1)
      }
      const lease = yield* Effect.either(client.get(Leases, "platform-scheduler", { namespace: "platform-system" }))
      const result: SchedulerScenarioResult = {
        virtualMs: (yield* Clock.currentTimeMillis) - start,
        podsCreated,
        binds: binds.length,
        podsBound: new Set(binds.filter((b) => ownPods.has(b.pod)).map((b) => b.pod)).size,
        otherPodsBound: new Set(binds.filter((b) => !ownPods.has(b.pod)).map((b) => b.pod)).size,
        firstBindMs: binds[0]?.atMs,
        lastBindMs: binds[binds.length - 1]?.atMs,
        leaders,
        leaseTransitions:
          lease._tag === "Right" ? Number((lease.right.spec as { leaseTransitions?: number } | undefined)?.leaseTransitions ?? 0) : undefined,
        failover,
        instances: instances.map((i) => ({ identity: i.identity, ...i.core.snapshot() })),
        events: { byReason, inStore: events.items.length, recorders: yield* Effect.all(recorders.map((r) => r.stats)) },
        ...(Object.keys(createErrors).length > 0 ? { createErrorsByCode: createErrors } : {})
      }
      return result
    })
  )

/**
 * A cluster section on the real clock against any API server (docs/cluster.md "Real time"): the same node-agent
 * shards, observer, lifecycle controller and faults as `ClusterRun.ts` — one assembly, `ClusterAssembly.ts` — with
 * the clock and the client swapped — the
 * caller's `ApiClient` (HTTP to `clustersim serve` or a kube-apiserver, or in-process) and Effect's live clock
 * (`SimClock.layerReal`). What changes with them lives in `LiveRequests`: requests are launched beside a shard's
 * loop and their ends read from the clock. The shards keep their due queues (one timer per shard, as KWOK keeps
 * one timer queue), the observer is fed by informers (`ObserverFeed.ts`): one Node and one Lease watch for all
 * agents, and one shared pod watch filtered here unless the scenario asks for a watch per node.
 *
 * The lifecycle controller runs under leader election (a Lease `clustersim-node-lifecycle` in the system namespace),
 * so drivers sharing a cluster run one between them. The scenario's `scheduler:` section runs here too, once the
 * agents run: the same replicas as in virtual time (`schedulerScenarioEffect`), electing a leader on the
 * `platform-scheduler` Lease in the system namespace as kube-scheduler does, binding the pods they find without a
 * node; a stop or the end interrupts them, and the leader releases its Lease (upstream `ReleaseOnCancel`).
 *
 * Ownership (`Ownership.ts`): agents register their Nodes and Leases with clustersim's label, adopt those an
 * earlier run left, and stop at once on a node of the same name without the label. At the end (or on a stop) the
 * owned nodes and leases are deleted with `cleanup`, or counted and reported as left.
 *
 * Execution segments (`segment`, docs/distributed.md "Real-time clusters"): every segment plans every node, runs the
 * agents of those it owns, and the first runs the singletons (controller, scheduler, server faults).
 */
import { Cause, Clock, Deferred, Effect, Fiber, FiberSet } from "effect"
import { hostname } from "node:os"
import type { KObject } from "../../src/api/Object.js"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { nodeLeaseNamespace, simulatedLabel, simulatedLabelValue, systemNamespace, TaintKeys } from "../../src/api/WellKnown.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import type { Credentials } from "../apiserver/auth/Authenticator.js"
import { nodeAgentCredentials, nodeControllerCredentials, schedulerCredentials } from "../apiserver/auth/ComponentIdentities.js"
import type { ServerAdminService } from "../../src/client/ServerAdmin.js"
import type { ReflectorObserver, ReflectorOptions } from "../../src/informer/Reflector.js"
import { encodeHistogram, summarize } from "../../src/loadgen/LatencyRecorder.js"
import { GeneratorHealth, type HealthReport } from "../../src/loadgen/GeneratorHealth.js"
import * as TokenBucket from "../events/TokenBucket.js"
import * as SeededRandom from "../kernel/SeededRandom.js"
import * as LeaderElector from "../leaderelection/LeaderElector.js"
import { schedulerScenarioEffect, type SchedulerSection } from "../scheduler/SchedulerScenario.js"
import { ClusterObserver } from "./ClusterObserver.js"
import { countingFailures } from "./CountingClient.js"
import { failedSection, lifecycleController, makeShards, memoryPressure, planCluster, planResult } from "./ClusterAssembly.js"
import type { ClusterResult } from "./ClusterResult.js"
import { resolveCluster } from "./ClusterSetup.js"
import type { ClusterFault, ClusterSpec } from "./ClusterSpec.js"
import { feedChanges } from "./ObserverFeed.js"
import { leftOver, removeOwned, type Leftovers } from "./Ownership.js"
import { PodStartupSli, type PodStartupResult } from "./PodStartupSli.js"
import { NodeNetwork } from "../nodeagent/NodeNetwork.js"
import { type ExecutionSegment, ownsName, runsOnce, wholeRun } from "../../src/loadgen/ExecutionSegment.js"

export interface RealTimeClusterOptions {
  readonly spec: ClusterSpec
  readonly faults: ReadonlyArray<ClusterFault>
  readonly seed: number
  readonly durationMs: number
  /** Where a relative `nodeAgent.file` is resolved (the scenario's directory). */
  readonly baseDir?: string
  /** Delete the owned nodes and leases at the end (`--cleanup`); otherwise they are counted and left. */
  readonly cleanup: boolean
  /** The target's failure hooks (`clustersim serve --admin`), which `apiserver-pause` needs. */
  readonly admin: ServerAdminService | undefined
  /** Completes to stop the run early (Ctrl-C); it then cleans up as at the end. */
  readonly stop?: Effect.Effect<void>
  /**
   * The scenario's `scheduler:` section (its `duration` resolved), run beside the agents; its result is the
   * artifact's `sections.scheduler`, as in virtual time. Its `nodes` groups must be empty: pods go to the agents' nodes.
   */
  readonly scheduler?: SchedulerSection
  /**
   * The components' clients by identity (serve's live cluster, docs/serve.md: node agents as `system:node:<name>`,
   * the lifecycle controller and the scheduler as theirs, as `ClusterRun.ts` runs them on an authorizing server);
   * without it, every component uses the caller's client.
   */
  readonly clientAs?: (credentials: Credentials) => ApiClientService
  /**
   * This process's execution segment (docs/distributed.md): its agents are the nodes it owns (a stable hash of the
   * name, src/loadgen/ExecutionSegment.ts `ownsName`), with their leases, status and pods; the run's singletons — the
   * lifecycle controller, the scheduler section, the server faults — run in the first segment only, which observes every
   * node for the controller. Default: the whole cluster.
   */
  readonly segment?: ExecutionSegment
  /**
   * With `segment`: the run's common start on this machine's clock (epoch ms; default this run's own start), from
   * which the pod start-up stages another segment must join are timed (./PodStartupSli.ts `crossSegment`).
   */
  readonly originMs?: number
  /** About every 5 s. */
  readonly onProgress?: (p: { readonly elapsedMs: number; readonly registered: number; readonly leaseWrites: number; readonly errors: number }) => void
}

/** What only a real-time run measures: the driver's own health, request outcomes, ownership. */
export interface RealTimeReport {
  /** The driver's CPU and event-loop lag; `saturated` flags a run whose driver, not the server, was the limit. */
  readonly driver: HealthReport & { readonly cpuMsPer1000Nodes: number }
  readonly statusLatency: ReturnType<typeof summarize> & { readonly hdr: string }
  readonly errorsByCode: Readonly<Record<string, number>>
  readonly throttled: { readonly requests: number; readonly totalMs: number }
  readonly registered: number
  readonly adopted: number
  /** Nodes of the scenario's names found without clustersim's label: left alone, their agents stopped. */
  readonly foreignNodes: ReadonlyArray<string>
  readonly podStartup?: PodStartupResult
  /** The scheduler section's failed requests by status code (with it only; 404 and 409 are its ordinary answers). */
  readonly schedulerErrorsByCode?: Readonly<Record<string, number>>
  readonly cleanup: Leftovers & { readonly deleted: boolean }
}

export type RealTimeClusterResult = ClusterResult & {
  readonly realTime: RealTimeReport
  /** The sections run beside the cluster (`scheduler`): a result, or `{ finished: false }` when stopped first. */
  readonly sections: Readonly<Record<string, unknown>>
}

/** The lifecycle controller's election (kube-controller-manager's timings: 15 s lease, 10 s deadline, 2 s retry). */
const lifecycleElection = {
  namespace: systemNamespace,
  name: "clustersim-node-lifecycle",
  leaseDuration: 15_000,
  renewDeadline: 10_000,
  retryPeriod: 2_000,
  releaseOnCancel: true
} as const

/** Real time a section may take past the end to finish and read its results (it started after the informers synced). */
const SectionReportMs = 15_000

/** A real-time shard wakes at least this often by default (ms): how late an event may start. */
export const DefaultRealTimeResolutionMs = 50

/** What a real-time run cannot do (each with the reason); empty when it can run. */
export const realTimeProblems = (
  spec: ClusterSpec,
  faults: ReadonlyArray<ClusterFault>,
  hasAdmin: boolean,
  scheduler?: SchedulerSection
): ReadonlyArray<string> => {
  const problems: Array<string> = []
  if (scheduler !== undefined && scheduler.nodes.length > 0)
    problems.push("scheduler.nodes: in real time the scheduler places pods on the cluster's simulated nodes (cluster.nodes); bare scheduler nodes exist only in virtual time")
  if (spec.images !== undefined) problems.push("cluster.images: image pulls are modelled in virtual time only; run without --target")
  faults.forEach((f, i) => {
    if (f.type === "registry-outage" || f.type === "expire-registry-credentials") problems.push(`faults[${i}]: ${f.type} needs cluster.images (virtual time only)`)
    if ((f.type === "apiserver-pause" || f.type === "apiserver-restart") && !hasAdmin) problems.push(`faults[${i}]: ${f.type} needs a target with failure hooks (clustersim serve --admin)`)
  })
  return problems
}

export const runRealTimeCluster = (o: RealTimeClusterOptions): Effect.Effect<RealTimeClusterResult, string, ApiClient> =>
  Effect.scoped(
    Effect.gen(function* () {
      const spec = o.spec
      const problems = realTimeProblems(spec, o.faults, o.admin !== undefined, o.scheduler)
      if (problems.length > 0) return yield* Effect.fail(problems.join("; "))
      const resolved = resolveCluster(spec, o.baseDir)
      if (resolved._tag === "Left") return yield* Effect.fail(`invalid cluster spec: ${resolved.left.join("; ")}`)
      const { lifecycle } = resolved.right
      const client = yield* ApiClient
      const clock = yield* Effect.clock
      const health = yield* GeneratorHealth.make()
      const startMillis = yield* Clock.currentTimeMillis
      const random = SeededRandom.make(o.seed).split("cluster")
      // every segment plans every node from the seed (the same nodes and faults everywhere), then runs its own
      const whole = planCluster({ spec, resolved: resolved.right, faults: o.faults, seed: o.seed, durationMs: o.durationMs, random, startMillis, images: false })
      const segment = o.segment ?? wholeRun
      const plan = segment.count === 1 ? whole : { ...whole, nodes: whole.nodes.filter((n) => ownsName(segment, n.name)) }
      const singletons = runsOnce(segment)
      const { nodes, observer, metrics } = plan
      const names = new Set(nodes.map((n) => n.name))
      // the first segment's controller watches every node; the others see only their own
      const observedNames = singletons ? new Set(whole.nodes.map((n) => n.name)) : names
      const requests = yield* FiberSet.make()
      const driver = spec.driver ?? {}
      const podStartup = new PodStartupSli(startMillis)
      // ---- the agents: the caller's client, their requests launched beside a shard's loop and timed by the clock
      const clientAs = o.clientAs
      const { shards, shardOf } = makeShards(plan, {
        client,
        ...(clientAs ? { clientOf: (node: string) => clientAs(nodeAgentCredentials(node)) } : {}),
        resolutionMs: spec.resolution ?? DefaultRealTimeResolutionMs,
        podStarted: (pod, _node, t) => podStartup.running(pod, t),
        ownerLabel: { key: simulatedLabel, value: simulatedLabelValue },
        // what a real kubelet writes for stock clients: on the real clock they read these objects (docs/serve.md)
        network: new NodeNetwork(whole.nodes.map((n) => n.name)),
        live: {
          now: () => clock.unsafeCurrentTimeMillis(),
          launch: (request) => Effect.asVoid(FiberSet.run(requests, request)),
          total: driver.qps !== undefined && driver.qps > 0 ? TokenBucket.make(driver.qps, driver.burst ?? Math.max(1, Math.ceil(driver.qps))) : undefined
        }
      })

      // ---- the agents' view of the server: one Node watch, one Lease watch (for the controller), the pod watches
      const owned = `${simulatedLabel}=${simulatedLabelValue}`
      const ours = (obj: KObject) => observedNames.has(obj.metadata.name ?? "")
      const observe = (change: Parameters<ClusterObserver["observe"]>[0]) => observer.observe(change)
      // A LIST the credentials may not make is retried forever by its informer (as client-go's reflector does):
      // the first such refusal ends the run's start, naming the request, instead of waiting for a sync that never comes.
      const refused = yield* Deferred.make<never, string>()
      const reflectorObserver: ReflectorObserver = {
        failed: (error, during) =>
          during === "list" && error._tag === "ApiError" && (error.code === 401 || error.code === 403)
            ? Effect.asVoid(Deferred.fail(refused, `the informers cannot start: ${error.code} ${error.message}`))
            : Effect.void
      }
      const feed = (options: ReflectorOptions, onChange: typeof observe, accept?: (obj: KObject) => boolean) =>
        feedChanges({ ...options, observer: reflectorObserver }, onChange, accept)
      const informers = [yield* feed({ resource: Nodes, labelSelector: owned }, observe, ours)]
      if (lifecycle.enabled) informers.push(yield* feed({ resource: Leases, namespace: nodeLeaseNamespace, labelSelector: owned }, observe, ours))
      const nodeNameOf = (pod: KObject) => (pod.spec as { nodeName?: string } | undefined)?.nodeName ?? ""
      // with the scheduler, the shared watch also sees pods not yet bound: the pod-startup SLI times a load phase's pods from there
      const scheduler = singletons ? o.scheduler : undefined
      const onNode = (pod: KObject) => observedNames.has(nodeNameOf(pod)) || (scheduler !== undefined && nodeNameOf(pod) === "")
      const podChange = (change: Parameters<ClusterObserver["observe"]>[0]) => {
        if (change.type === "ADDED" && nodeNameOf(change.object) === "") podStartup.pending(change.object, change.time)
        podStartup.observed(change.object, change.time)
        observer.observe(change)
      }
      if (driver.podWatch === "per-node") {
        for (const n of observedNames) informers.push(yield* feed({ resource: Pods, fieldSelector: `spec.nodeName=${n}` }, podChange))
      } else informers.push(yield* feed({ resource: Pods }, podChange, onNode))
      yield* Effect.raceFirst(Effect.forEach(informers, (i) => i.synced, { discard: true }), Deferred.await(refused))

      // ---- agents, controller, faults
      const running = [] as Array<Fiber.RuntimeFiber<unknown, unknown>>
      for (const shard of shards) running.push(yield* Effect.fork(shard.run))
      if (lifecycle.enabled && singletons) {
        // under leader election, so several drivers of one cluster run one controller between them
        const elector = yield* Effect.orDie(
          LeaderElector.make({ ...lifecycleElection, identity: `${hostname()}_${random.split("identity").next().toString(36).slice(2, 10)}` })
        ).pipe(Effect.provide(SeededRandom.layer(o.seed)))
        const controller = clientAs ? Effect.provideService(lifecycleController(plan), ApiClient, clientAs(nodeControllerCredentials)) : lifecycleController(plan)
        running.push(yield* Effect.fork(Effect.forever(elector.run(controller))))
      }
      for (const p of singletons ? plan.pauses : []) {
        const admin = o.admin!
        running.push(yield* Effect.fork(Effect.sleep(p.from - startMillis).pipe(Effect.zipRight(Effect.ignore(admin.pause(p.to - p.from))))))
      }
      for (const at of singletons ? plan.restarts : []) {
        const admin = o.admin!
        running.push(yield* Effect.fork(Effect.sleep(at - startMillis).pipe(Effect.zipRight(Effect.ignore(admin.compact)), Effect.zipRight(Effect.ignore(admin.dropWatches)))))
      }
      const pressure = memoryPressure(plan, shardOf)
      if (pressure !== undefined) running.push(yield* Effect.fork(pressure))
      // the scheduler section once the agents run, so its pods find registered nodes
      const sections: Record<string, unknown> = {}
      let schedulerFiber: Fiber.RuntimeFiber<void> | undefined
      const schedulerErrors: Record<string, number> = {}
      if (scheduler) {
        sections.scheduler = { finished: false }
        const driverId = random.split("scheduler-identity").next().toString(36).slice(2, 8)
        const live = {
          host: (r: number) => `${hostname()}-${driverId}-scheduler-${r}`,
          podLabels: { [simulatedLabel]: simulatedLabelValue },
          onPodCreated: (pod: KObject, t: number) => podStartup.created(pod, t),
          eventExpiry: false
        }
        schedulerFiber = yield* Effect.fork(
          schedulerScenarioEffect(scheduler, live).pipe(
            Effect.provide(SeededRandom.layer(o.seed)),
            Effect.provideService(ApiClient, countingFailures(clientAs ? clientAs(schedulerCredentials) : client, schedulerErrors)),
            Effect.matchCause({
              onSuccess: (r) => void (sections.scheduler = r),
              onFailure: (c) => void (Cause.isInterruptedOnly(c) || (sections.scheduler = failedSection(c)))
            })
          )
        )
      }
      const pods = yield* createPods(nodes.map((n) => n.name), spec.podsPerNode ?? 0, lifecycle.defaultTolerationSeconds, podStartup)
      if (o.onProgress) {
        const report = o.onProgress
        running.push(
          yield* Effect.fork(
            Effect.forever(
              Effect.sleep(5_000).pipe(
                Effect.zipRight(Clock.currentTimeMillis),
                Effect.map((now) =>
                  report({ elapsedMs: now - startMillis, registered: metrics.registrations + metrics.adopted, leaseWrites: metrics.leaseWrites, errors: Object.values(metrics.errorsByCode).reduce((a, b) => a + b, 0) })
                )
              )
            )
          )
        )
      }

      // ---- run until the end or a stop, then stop the agents and clean up (or count what is left)
      const stopped = yield* Effect.raceFirst(Effect.as(Effect.sleep(o.durationMs), false), Effect.as(o.stop ?? Effect.never, true))
      if (schedulerFiber !== undefined) {
        // at the end the section reads its results; on a stop it is interrupted (the leader releases its Lease)
        if (!stopped) yield* Effect.raceFirst(Fiber.await(schedulerFiber), Effect.raceFirst(Effect.sleep(SectionReportMs), o.stop ?? Effect.never))
        yield* Fiber.interrupt(schedulerFiber)
      }
      const reachedMs = (yield* Clock.currentTimeMillis) - startMillis
      yield* Fiber.interruptAll(running)
      yield* FiberSet.clear(requests)
      const driverHealth = yield* health.summary
      const cleanup = o.cleanup ? { ...(yield* removeOwned(names)), deleted: true } : { ...(yield* leftOver(names)), deleted: false }
      const base = planResult(plan, { pods, kernel: { timersFired: 0, tasksRun: 0 }, reachedMs, wallMs: reachedMs })
      const cpuMs = driverHealth.cpu.userMs + driverHealth.cpu.systemMs
      return {
        ...base,
        realTime: {
          driver: { ...driverHealth, cpuMsPer1000Nodes: nodes.length > 0 ? (cpuMs * 1000) / nodes.length : 0 },
          statusLatency: { ...summarize(metrics.statusLatency), hdr: encodeHistogram(metrics.statusLatency) },
          errorsByCode: metrics.errorsByCode,
          throttled: { requests: metrics.throttled, totalMs: Math.round(metrics.throttledMs) },
          registered: metrics.registrations,
          adopted: metrics.adopted,
          foreignNodes: metrics.foreignNodes,
          // a segment's scheduler binds pods to others' nodes, its agents run pods others created: halves for the merge
          ...(pods > 0 || scheduler || podStartup.ranUnseen > 0 ? { podStartup: podStartup.result(segment.count > 1 ? { originMs: o.originMs ?? startMillis } : undefined) } : {}),
          ...(scheduler ? { schedulerErrorsByCode: schedulerErrors } : {}),
          cleanup
        },
        sections
      }
    })
  )

/** `podsPerNode` pods per node, bound to it at creation (as `SeedPods.ts` writes them in a simulation), 16 at a time. */
const createPods = (nodes: ReadonlyArray<string>, podsPerNode: number, tolerationSeconds: number, sli: PodStartupSli): Effect.Effect<number, never, ApiClient> =>
  Effect.gen(function* () {
    if (podsPerNode === 0) return 0
    const client = yield* ApiClient
    const tolerations = [TaintKeys.notReady, TaintKeys.unreachable].map((key) => ({ key, operator: "Exists", effect: "NoExecute", tolerationSeconds }))
    const work = nodes.flatMap((node) => Array.from({ length: podsPerNode }, (_, i) => ({ node, name: `${node}-pod-${i}` })))
    let created = 0
    yield* Effect.forEach(
      work,
      ({ node, name }) =>
        Effect.gen(function* () {
          const at = yield* Clock.currentTimeMillis
          const pod = {
            metadata: { name, namespace: "default", labels: { app: "sim", [simulatedLabel]: simulatedLabelValue } },
            spec: { nodeName: node, containers: [{ name: "app", image: "registry.example/app:1", resources: { requests: { cpu: "100m", memory: "128Mi" } } }], tolerations }
          }
          const made = yield* Effect.either(client.create(Pods, pod, { namespace: "default" }))
          if (made._tag === "Right") {
            created++
            sli.created(made.right.object, at)
          }
        }),
      { concurrency: 16, discard: true }
    )
    return created
  })

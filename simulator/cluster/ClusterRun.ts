/**
 * Runs a simulated cluster in virtual time: the `Simulation` kernel drives an in-process `ApiServer`, node-agent
 * shards, the node lifecycle controller, timed faults and an optional workload (all on the virtual clock), then
 * reports a JSON result. The cluster is assembled as on the real clock (`ClusterAssembly.ts`); here the transport is
 * the in-process server with modelled service times, and the observer reads its store. Same spec, faults and seed ⇒ the same result; only the `wall` field depends on the host.
 */
import { Cause, Effect, Either, Layer } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { inProcessClient } from "../apiserver/InProcessClient.js"
import * as InProcessClient from "../apiserver/InProcessClient.js"
import type { Credentials } from "../apiserver/auth/Authenticator.js"
import { ClientAs, nodeAgentCredentials, nodeControllerCredentials } from "../apiserver/auth/ComponentIdentities.js"
import { ApiServer, type ApiServerConfig, type ApiServerImpl } from "../apiserver/ApiServer.js"
import type { Change } from "../apiserver/Store.js"
import { parameters, ServiceTime, ServiceTimeModel, uniformOf, wrapClient } from "../apiserver/ServiceTime.js"
import type { SeededRandom, SeededRandomService } from "../kernel/SeededRandom.js"
import { labelled } from "../kernel/FiberLabel.js"
import { yieldToHost } from "../kernel/SimClock.js"
import * as Simulation from "../kernel/Simulation.js"
import type { ImagePulls } from "../nodeagent/images/ImagePulls.js"
import { podKey, pullPodImages } from "../nodeagent/images/PodImageStep.js"
import { registryFaultProblems } from "../nodeagent/images/ImagesSpec.js"
import type { SimulatedNode } from "../nodeagent/SimulatedNode.js"
import { failedSection, lifecycleController, makeShards, memoryPressure, planCluster, planResult } from "./ClusterAssembly.js"
import type { ClusterResult } from "./ClusterResult.js"
import { resolveCluster, type ResolvedCluster } from "./ClusterSetup.js"
import type { ClusterFault, ClusterSpec } from "./ClusterSpec.js"
import { seedPods } from "./SeedPods.js"
import type { Registry } from "prom-client"
import { ModelledFlowControlMetrics } from "../apiserver/ModelledFlowControlMetrics.js"
import { ModelledRequestMetrics } from "../apiserver/ModelledRequestMetrics.js"
import { NodeAgentExportedMetrics } from "../nodeagent/NodeAgentExportedMetrics.js"
import { makeSchedulerMetrics, SchedulerMetrics } from "../scheduler/SchedulerMetrics.js"
import { EvictionMetrics, makeEvictionMetrics } from "../nodeagent/eviction/EvictionMetrics.js"

/**
 * A section of a scenario that runs inside the same simulation (the scheduler's replicas, an eviction node…):
 * started at time 0 with the simulation's client; what it returns is its result.
 */
export interface SimulatedSection {
  readonly name: string
  readonly run: Effect.Effect<unknown, unknown, ApiClient | SeededRandom>
}

export interface ClusterRunOptions {
  readonly spec: ClusterSpec
  readonly faults: ReadonlyArray<ClusterFault>
  readonly seed: number
  readonly durationMs: number
  /** Called every chunk of virtual time so a CLI can show progress. */
  readonly onProgress?: (p: { readonly virtualMs: number; readonly wallMs: number }) => void
  /** Load phases to run inside the simulation, against the in-process client (virtual time). */
  readonly workload?: Effect.Effect<void, never, ApiClient>
  /** Where a relative `nodeAgent.file` is resolved (the scenario's directory). Default: the working directory. */
  readonly baseDir?: string
  /** Virtual time between two `onProgress` calls (ms). Default 1 minute. */
  readonly progressEveryMs?: number
  /** Also call `onProgress` when this much wall time passed since the last call (ms), however slow virtual time runs. */
  readonly progressEveryWallMs?: number
  /** More parts of the scenario, run in the same simulation (`SimulatedSection`). */
  readonly sections?: ReadonlyArray<SimulatedSection>
  /** Settings of the simulated API server (the scenario's `server:` section). */
  readonly server?: Partial<ApiServerConfig>
  /** Told of every change of the simulated server's store, as written (to compare runs write by write). */
  readonly onChange?: (change: Change) => void
  /** The run's modelled metrics (`run --metrics-out`): registered in `registers`, scraped at virtual instants. */
  readonly metrics?: ModelledMetricsOptions
}

/**
 * The modelled metrics of a run (docs/metrics.md): the API server's (`ModelledRequestMetrics.ts`,
 * `ModelledFlowControlMetrics.ts`), the node agents' (`NodeAgentExportedMetrics.ts`, `EvictionMetrics.ts`) and the scheduler's (`SchedulerMetrics.ts`) are registered in `registers`, and
 * `scrape` is called at the start, every `everyMs` of virtual time and at the end, with the virtual clock's reading —
 * between slices, while nothing in the simulation runs, so a scrape sees one instant and changes nothing.
 */
export interface ModelledMetricsOptions {
  readonly registers: ReadonlyArray<Registry>
  /** Whole seconds (the slices stop on whole virtual seconds). */
  readonly everyMs: number
  readonly scrape: (virtualMillis: number) => Effect.Effect<void>
}

/** Options of a simulation that need not have a cluster: without `spec` it runs no node agents and no controller. */
export type SimulationOptions = Omit<ClusterRunOptions, "spec"> & { readonly spec: ClusterSpec | undefined }

/** What one simulation produced: the cluster result (with a `cluster` spec) and each section's result. */
export interface SimulationResult {
  readonly cluster?: ClusterResult
  /** Results of the sections that finished; an unfinished section is `{ finished: false }`. */
  readonly sections: Readonly<Record<string, unknown>>
  /** Virtual time reached (ms); less than `durationMs` when the run was stopped. */
  readonly reachedMs: number
  readonly stopped: boolean
  /**
   * The node agents' requests the server answered with an error, by status code (`ShardContext`'s count; a request
   * given up after 429s counts as 429; one that found the server unreachable — a partition, a pause — is not here).
   * Outside `cluster`, whose document the result hashes cover.
   */
  readonly nodeAgentErrorsByCode?: Readonly<Record<string, number>>
}

export type { ClusterResult } from "./ClusterResult.js"

/** Virtual clock reading at the start of every run: 2026-01-01T00:00:00Z. Result times count from here. */
export const startMillis = Date.UTC(2026, 0, 1)

/**
 * The node agents' image step and their start-up latency record: a pod could start once it existed and its node's
 * agent was up; it started when it was written Running.
 */
const imageSteps = (pulls: ImagePulls, random: SeededRandomService) => ({
  preparePod: (pod: KObject, node: SimulatedNode, t: number) => pullPodImages(pulls, random, pod, node.name, t),
  podStarted: (pod: KObject, node: SimulatedNode, t: number) => {
    const created = Date.parse(pod.metadata.creationTimestamp ?? "")
    pulls.podStarted(pod.metadata.uid ?? podKey(pod), t - Math.max(Number.isNaN(created) ? t : created, node.startAt))
  }
})

/**
 * A cluster alone, run to its end in one go (no host turns, so `Effect.runSync` runs it): `runSimulation` with a
 * cluster spec; an invalid spec is a defect here (callers build their specs in code).
 */
export const runSimulatedCluster = (options: ClusterRunOptions): Effect.Effect<ClusterResult> =>
  Effect.suspend(() => {
    const faultProblems = registryFaultProblems(options.spec.images, options.faults)
    if (faultProblems.length > 0) {
      return Effect.die(new Error(`invalid cluster spec: ${faultProblems.map((p) => `faults[${p.index}].${p.path.join(".")}: ${p.message}`).join("; ")}`))
    }
    return runSimulation({ ...options, hostTurns: false }).pipe(
      Effect.map((r) => r.cluster!),
      Effect.orDieWith((message) => new Error(message))
    )
  })

/** Wall time one slice of virtual time may take before the host event loop gets a turn (signals, I/O). */
export const SliceWallMs = 50

/**
 * The whole scenario in one simulation, in slices of at most ~50 ms of wall time with a host turn between them, so
 * a Ctrl-C is seen within a slice: when `stopRequested` answers true the run ends where it is and the result
 * covers the virtual time reached. Slices only stop the driver on whole virtual seconds, between events: with or
 * without host turns the same options give the same result.
 */
export const runSimulation = (
  options: SimulationOptions & {
    readonly stopRequested?: Effect.Effect<boolean>
    /** Give the host a turn every `SliceWallMs` of wall time (default); false runs to the end in one go, synchronously. */
    readonly hostTurns?: boolean
  }
): Effect.Effect<SimulationResult, string> =>
  Effect.gen(function* () {
    // The caller's clock, outside the virtual kernel: it times the slices and the `wall` figures, never the run.
    const outer = yield* Effect.clock
    const wallClock = () => outer.unsafeCurrentTimeMillis()
    let resolved: ResolvedCluster | undefined
    if (options.spec !== undefined) {
      const r = resolveCluster(options.spec, options.baseDir)
      if (Either.isLeft(r)) return yield* Effect.fail(`invalid cluster spec: ${r.left.join("; ")}`)
      resolved = r.right
    }
    const built = build(options, resolved, wallClock)
    const progressEvery = options.progressEveryMs ?? 60_000
    let nextProgress = startMillis + progressEvery
    let lastProgressWall = wallClock()
    const totals = { timersFired: 0, tasksRun: 0 }
    let stopped = false
    const metrics = options.metrics
    let lastScrape = startMillis
    let nextScrape = Infinity
    let scrapeDue = false
    if (metrics !== undefined) {
      yield* metrics.scrape(startMillis)
      nextScrape = startMillis + metrics.everyMs
    }
    for (;;) {
      const sliceStart = wallClock()
      /** The wall-clock part of a report: the progress line however slowly virtual time goes; true when the slice is over. */
      const wallReport = (now: number): boolean => {
        const wall = wallClock()
        if (options.onProgress && options.progressEveryWallMs !== undefined && wall - lastProgressWall >= options.progressEveryWallMs) {
          lastProgressWall = wall
          options.onProgress({ virtualMs: now - startMillis, wallMs: wall - built.wallStart })
        }
        return options.hostTurns !== false && wall - sliceStart >= SliceWallMs
      }
      let outcome: Simulation.RunResult
      try {
        outcome = built.sim.runUntil(built.target, {
          progressEvery: 1_000,
          // the slices' whole seconds, also after a slice that ended within an instant (below)
          progressOrigin: startMillis,
          onProgress: (p) => {
            if (options.onProgress && p.now >= nextProgress) {
              nextProgress += progressEvery
              lastProgressWall = wallClock()
              options.onProgress({ virtualMs: p.now - startMillis, wallMs: lastProgressWall - built.wallStart })
            }
            // (the report at the target itself ends the run anyway: a stop there would only start the slice again)
            if (wallReport(p.now) && p.now < built.target) built.sim.stop()
            // a scrape: the slice ends on its instant, before that instant's events
            if (p.now >= nextScrape && p.now < built.target) {
              scrapeDue = true
              built.sim.stop()
            }
          },
          // many events at one instant: the progress line and the host's turn (a Ctrl-C) do not wait for the clock to
          // move; the next slice goes on with the instant's rest in the same order, so the result is the same
          onBusy: (b) => {
            if (wallReport(b.now)) built.sim.stop()
          }
        })
      } catch (e) {
        if (!(e instanceof Simulation.Livelock)) throw e
        built.sim.interruptAll()
        return yield* Effect.fail(`the simulation stopped making progress at ${virtualTime(e.at)}: ${e.message.replace(/^Simulation: livelock at virtual time \d+ ms: /, "")}`)
      }
      const failed = built.failure()
      if (failed !== undefined) {
        built.sim.interruptAll()
        return yield* Effect.fail(failed)
      }
      totals.timersFired += outcome.timersFired
      totals.tasksRun += outcome.tasksRun
      // a scrape stopped the slice, or the slice ended on a scrape's instant (the run's end)
      if (metrics !== undefined && (scrapeDue || built.sim.now() >= nextScrape)) {
        scrapeDue = false
        lastScrape = built.sim.now()
        yield* metrics.scrape(lastScrape)
        while (nextScrape <= lastScrape) nextScrape += metrics.everyMs
      }
      // a section measures up to the end and then reads its results through the (modelled) API: give it time
      if (!outcome.stopped && built.unfinishedSections() && built.target < built.sectionDeadline) {
        built.target = Math.min(built.sectionDeadline, built.target + 1_000)
        continue
      }
      if (!outcome.stopped) break
      yield* yieldToHost
      if (options.stopRequested && (yield* options.stopRequested)) {
        stopped = true
        break
      }
    }
    const reachedMs = built.sim.now() - startMillis
    // the last scrape: where the run ended
    if (metrics !== undefined && built.sim.now() > lastScrape) yield* metrics.scrape(built.sim.now())
    built.sim.interruptAll()
    return { ...built.finish(totals, reachedMs), reachedMs, stopped }
  })

/** A clock reading as virtual time since the start: `1m30.5s`. */
const virtualTime = (at: number): string => {
  const ms = at - startMillis
  const minutes = Math.floor(ms / 60_000)
  const seconds = (ms - minutes * 60_000) / 1000
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`
}

/** Virtual time past the end a section may take to report (its final reads go through the modelled API). */
export const SectionReportMs = 60_000

interface Built {
  readonly sim: Simulation.Simulation
  target: number
  readonly sectionDeadline: number
  readonly unfinishedSections: () => boolean
  readonly wallStart: number
  /** Why the run cannot go on: a part of the cluster (a shard, the lifecycle controller…) failed. */
  readonly failure: () => string | undefined
  /** The results, after the simulation ran to `reachedMs` (ms since the start). */
  readonly finish: (
    kernel: { readonly timersFired: number; readonly tasksRun: number },
    reachedMs: number
  ) => { cluster?: ClusterResult; sections: Record<string, unknown>; nodeAgentErrorsByCode?: Readonly<Record<string, number>> }
}

/** Builds the simulation: nodes, agents, controllers, faults, workload and sections forked, nothing run yet. */
const build = (options: SimulationOptions, resolved: ResolvedCluster | undefined, wallClock: () => number): Built => {
  const wallStart = wallClock()
  const { seed, durationMs } = options
  const withCluster = options.spec !== undefined && resolved !== undefined
  // without a cluster: no nodes, no agents, no lifecycle controller (an empty spec keeps the code below simple)
  const spec: ClusterSpec = options.spec ?? { nodes: 0 }
  const sim = Simulation.make({ seed, startMillis })
  const random = sim.random.split("cluster")
  const plan = planCluster({ spec, resolved, faults: options.faults, seed, durationMs, random, startMillis, images: true })
  const { nodes, imagePulls, pauses, observer } = plan
  const model = new ServiceTimeModel(parameters(spec.serviceTime), uniformOf(random))
  const resolutionMs = spec.resolution ?? 1_000
  let seededPods = 0
  let storedCount: ((r: ResourceType) => number) | undefined
  const metrics = options.metrics
  const schedulerMetrics = metrics === undefined ? undefined : makeSchedulerMetrics(metrics.registers)
  // the cluster's memory pressure and the `eviction` section both count here, with or without a cluster
  const evictionMetrics = metrics === undefined ? undefined : makeEvictionMetrics(metrics.registers)
  /** The run's metrics for what a section or the cluster's eviction managers export (nothing without `--metrics-out`). */
  const withRunMetrics = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    schedulerMetrics === undefined || evictionMetrics === undefined
      ? effect
      : effect.pipe(Effect.provideService(SchedulerMetrics, schedulerMetrics), Effect.provideService(EvictionMetrics, evictionMetrics))
  if (metrics !== undefined && withCluster) {
    model.observer = new ModelledRequestMetrics(metrics.registers, (r) => storedCount?.(r) ?? 0)
    if (model.apf !== undefined) model.apf.observer = new ModelledFlowControlMetrics(metrics.registers, () => sim.now(), model.apf.serverConcurrencyLimit)
    const agents = new NodeAgentExportedMetrics(metrics.registers, () => sim.now())
    plan.metrics.observer = agents
    if (imagePulls !== undefined) imagePulls.onEvent = (e) => agents.imageEvent(e)
  }

  const serverLayer = ApiServer.layer({ ...options.server, seed })
  const serviceTimeLayer = Layer.succeed(ServiceTime, model)
  // the latency model belongs to the cluster section (`serviceTime`); without one the client answers at once
  const clientLayer = withCluster ? ServiceTime.layerClient.pipe(Layer.provide(InProcessClient.layer), Layer.provide(serviceTimeLayer)) : InProcessClient.layer
  const layers = clientLayer.pipe(Layer.provideMerge(serverLayer))
  const sectionResults: Record<string, unknown> = {}
  // A part of the cluster that fails ends the run with its error: the result would otherwise read as if it had run.
  let failure: string | undefined
  const part = (name: string) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<void, never, R> =>
    effect.pipe(
      labelled(name),
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.void
          : Effect.sync(() => {
              failure ??= `${name} failed: ${Cause.pretty(cause).split("\n")[0]}`
              sim.stop()
            })
      ),
      Effect.asVoid
    )

  const program = Effect.gen(function* () {
    const server = yield* ApiServer
    // An authorizing server: every component runs under its own identity (docs/auth.md), a misconfigured role is 403s.
    const clientAs = server.access.allowsEverything
      ? undefined
      : (credentials: Credentials) => (withCluster ? wrapClient(inProcessClient(server, credentials), model) : inProcessClient(server, credentials))
    if (withCluster) yield* startCluster(server, clientAs)
    for (const section of options.sections ?? []) {
      sectionResults[section.name] = { finished: false }
      yield* Effect.forkDaemon(
        (clientAs ? Effect.provideService(section.run, ClientAs, clientAs) : section.run).pipe(
          labelled(`the ${section.name} section`),
          withRunMetrics,
          Effect.tap((r) => Effect.sync(() => void (sectionResults[section.name] = r))),
          Effect.catchAllCause((c) => Effect.sync(() => void (sectionResults[section.name] = failedSection(c))))
        )
      )
    }
    if (options.workload) {
      const workload = clientAs ? Effect.provideService(options.workload, ClientAs, clientAs) : options.workload
      // the cluster's service-time model, for a workload that books some requests as another identity's (kubelet-style
      // reflectors as their node: `modelledClient(inProcessClient(server), model, identity)`, bench/cluster/clientLoad.ts)
      yield* Effect.forkDaemon(labelled("the load phases")(withCluster ? Effect.provideService(workload, ServiceTime, model) : workload))
    }
    return yield* Effect.never
  }).pipe(Effect.provide(layers))

  const startCluster = (server: ApiServerImpl, clientAs: ((credentials: Credentials) => ApiClientService) | undefined) => Effect.gen(function* () {
    const store = server.store
    storedCount = (r) => store.count(r)
    observer.attach(store)
    model.objectCount = (resource) => store.count(resource)
    model.indexedObjectCount = (resource, value) => store.countIndexed(resource, value)
    if (options.onChange) store.subscribe(options.onChange)
    // The agents' own client: in-process, without the service-time layer (a shard books modelled times itself).
    const nodeClients = new Map<string, ApiClientService>()
    const { shards, shardOf } = makeShards(plan, {
      client: inProcessClient(server),
      // The agents' requests skip the service-time wrapper (the shards book times themselves): the plain identity client.
      ...(clientAs
        ? {
            clientOf: (node: string) => {
              let client = nodeClients.get(node)
              if (client === undefined) nodeClients.set(node, (client = inProcessClient(server, nodeAgentCredentials(node))))
              return client
            }
          }
        : {}),
      serviceTime: model,
      resolutionMs,
      ...(imagePulls !== undefined ? imageSteps(imagePulls, random.split("pod-workers")) : {})
    })
    seededPods = seedPods(store, nodes, spec.podsPerNode ?? 0, {
      random: random.split("pods"),
      tolerationSeconds: resolved!.lifecycle.defaultTolerationSeconds,
      startMillis,
      imagePulls
    })
    for (const [i, shard] of shards.entries()) yield* Effect.forkDaemon(part(shards.length > 1 ? `the node agents (shard ${i})` : "the node agents")(shard.run))
    yield* Effect.forkDaemon(part("the API server's compaction")(server.admission.compactEvery(10_000)))
    if (resolved!.lifecycle.enabled) {
      const controller = lifecycleController(plan)
      yield* Effect.forkDaemon(part("the node lifecycle controller")(clientAs ? Effect.provideService(controller, ApiClient, clientAs(nodeControllerCredentials)) : controller))
    }
    for (const p of pauses) {
      yield* Effect.forkDaemon(part("an apiserver pause")(Effect.sleep(p.from - startMillis).pipe(Effect.zipRight(server.pause(p.to - p.from)))))
    }
    // a restart: the pause above, its watches closed and a watch cache with no history before now
    for (const at of plan.restarts) {
      yield* Effect.forkDaemon(part("an apiserver restart")(Effect.sleep(at - startMillis).pipe(Effect.zipRight(server.compact()), Effect.zipRight(server.dropWatches()))))
    }
    const pressure = memoryPressure(plan, shardOf)
    if (pressure !== undefined) yield* Effect.forkDaemon(part("the memory-pressure fault")(withRunMetrics(pressure)))
  })

  sim.fork(part("the simulation's set-up")(program))
  return {
    sim,
    target: startMillis + durationMs,
    sectionDeadline: startMillis + durationMs + SectionReportMs,
    unfinishedSections: () => Object.values(sectionResults).some((r) => (r as { finished?: unknown }).finished === false && !("error" in (r as object))),
    wallStart,
    failure: () => failure,
    finish: (kernel, reachedMs) => {
      const serverModel = {
        modelled: true as const,
        parameters: model.params,
        ...(model.apf ? { priorityLevels: model.apf.metrics() } : {}),
        ...(model.givenUp > 0 ? { givenUp: model.givenUp } : {}),
        ...(model.params.relistMemory === true ? { relistMemory: model.relistMemory.report(startMillis) } : {})
      }
      const cluster = withCluster
        ? { cluster: planResult(plan, { pods: seededPods, kernel, reachedMs, wallMs: wallClock() - wallStart, serverModel }), nodeAgentErrorsByCode: { ...plan.metrics.errorsByCode } }
        : {}
      return { ...cluster, sections: { ...sectionResults } }
    }
  }
}

/** The result without its host-dependent part, for comparisons and hashes. */
export const deterministicPart = (result: ClusterResult): Omit<ClusterResult, "wall"> => {
  const { wall: _wall, ...rest } = result
  return rest
}

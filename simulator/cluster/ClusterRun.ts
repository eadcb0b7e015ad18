/**
 * Runs a simulated cluster in virtual time: the `Simulation` kernel drives an in-process `ApiServer`, node-agent
 * shards, the node lifecycle controller, timed faults and an optional workload (all on the virtual clock), then
 * reports a JSON result. Same spec, faults and seed ⇒ the same result; only the `wall` field depends on the host.
 */
import { Cause, Effect, Either, Layer } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { inProcessClient } from "../apiserver/InProcessClient.js"
import type { Credentials } from "../apiserver/auth/Authenticator.js"
import { ClientAs, nodeAgentCredentials, nodeControllerCredentials } from "../apiserver/auth/ComponentIdentities.js"
import { ApiServer, type ApiServerConfig, type ApiServerImpl } from "../apiserver/ApiServer.js"
import { makeLifecycleLog } from "../controllers/nodelifecycle/LifecycleSettings.js"
import { runNodeLifecycleController } from "../controllers/nodelifecycle/NodeLifecycleController.js"
import { EventRecorder } from "../events/EventRecorder.js"
import type { SeededRandom, SeededRandomService } from "../kernel/SeededRandom.js"
import { modelledClient, parameters, ServiceTime, ServiceTimeModel, uniformOf, wrapClient } from "../apiserver/ServiceTime.js"
import { ModelClientAs } from "../apiserver/ModelClientAs.js"
import { yieldToHost } from "../kernel/SimClock.js"
import * as Simulation from "../kernel/Simulation.js"
import { resolveCluster, simulatedNodes, type ResolvedCluster } from "./ClusterSetup.js"
import { applyFaults } from "./Faults.js"
import { seedPods } from "./SeedPods.js"
import { NodeAgentMetrics, settingsOf } from "../nodeagent/AgentEnvironment.js"
import { LeaseTimeline } from "../nodeagent/LeaseTimeline.js"
import { NodeAgentShard } from "../nodeagent/NodeAgentShard.js"
import type { SimulatedNode } from "../nodeagent/SimulatedNode.js"
import type { Change } from "../apiserver/Store.js"
import type { EvictionRecord } from "../nodeagent/eviction/EvictionManager.js"
import { ImagePulls } from "../nodeagent/images/ImagePulls.js"
import { podKey, pullPodImages } from "../nodeagent/images/PodImageStep.js"
import { registryFaultProblems } from "../nodeagent/images/ImagesSpec.js"
import { ClusterObserver } from "./ClusterObserver.js"
import { clusterResult, type ClusterResultBody } from "./ClusterResult.js"
import { runMemoryPressure } from "./Pressure.js"
import type { ClusterFault, ClusterSpec } from "./ClusterSpec.js"
import * as InProcessClient from "../apiserver/InProcessClient.js"

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
}

/** Options of a simulation that need not have a cluster: without `spec` it runs no node agents and no controller. */
export type SimulationOptions = Omit<ClusterRunOptions, "spec"> & { readonly spec: ClusterSpec | undefined }

/** What one simulation produced: the cluster result (with a `cluster` spec) and each section's result. */
export interface SimulationResult {
  readonly cluster?: ClusterResultBody
  /** Results of the sections that finished; an unfinished section is `{ finished: false }`. */
  readonly sections: Readonly<Record<string, unknown>>
  /** Virtual time reached (ms); less than `durationMs` when the run was stopped. */
  readonly reachedMs: number
  readonly stopped: boolean
}

export type { ClusterResultBody } from "./ClusterResult.js"

/** The JSON-serialisable result of a simulated-cluster run. */
export type ClusterResult = Record<string, unknown>

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

export const runSimulatedCluster = (options: ClusterRunOptions): Effect.Effect<ClusterResult> =>
  Effect.clockWith((outer) =>
    Effect.suspend(() => {
      const resolved = resolveCluster(options.spec, options.baseDir)
      if (Either.isLeft(resolved)) return Effect.die(new Error(`invalid cluster spec: ${resolved.left.join("; ")}`))
      const faultProblems = registryFaultProblems(options.spec.images, options.faults)
      if (faultProblems.length > 0) {
        return Effect.die(new Error(`invalid cluster spec: ${faultProblems.map((p) => `faults[${p.index}].${p.path.join(".")}: ${p.message}`).join("; ")}`))
      }
      return Effect.sync(() => run(options, resolved.right, () => outer.unsafeCurrentTimeMillis()) as unknown as ClusterResult)
    })
  )

/** The synchronous core: builds the simulation, runs it to the end, collects the result. */
export const run = (options: ClusterRunOptions, resolved: ResolvedCluster, wallClock: () => number): ClusterResultBody => {
  const built = build(options, resolved, wallClock)
  const onProgress = options.onProgress
  const outcome = built.sim.runUntil(built.target, {
    progressEvery: options.progressEveryMs ?? 60_000,
    ...(onProgress ? { onProgress: (p: Simulation.Progress) => onProgress({ virtualMs: p.now - startMillis, wallMs: wallClock() - built.wallStart }) } : {})
  })
  built.sim.interruptAll()
  return built.finish(outcome, options.durationMs).cluster!
}

/** Wall time one slice of virtual time may take before the host event loop gets a turn (signals, I/O). */
export const SliceWallMs = 50

/**
 * The whole scenario in one simulation, in slices of at most ~50 ms of wall time with a host turn between them, so
 * a Ctrl-C is seen within a slice: when `stopRequested` answers true the run ends where it is and the result
 * covers the virtual time reached. The same options give the same result as `runSimulatedCluster`: slices only
 * stop the driver on whole virtual seconds, between events.
 */
export const runSimulation = (options: SimulationOptions & { readonly stopRequested?: Effect.Effect<boolean> }): Effect.Effect<SimulationResult, string> =>
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
    for (;;) {
      const sliceStart = wallClock()
      const outcome = built.sim.runUntil(built.target, {
        progressEvery: 1_000,
        onProgress: (p) => {
          const wall = wallClock()
          if (options.onProgress && (p.now >= nextProgress || (options.progressEveryWallMs !== undefined && wall - lastProgressWall >= options.progressEveryWallMs))) {
            if (p.now >= nextProgress) nextProgress += progressEvery
            lastProgressWall = wall
            options.onProgress({ virtualMs: p.now - startMillis, wallMs: wall - built.wallStart })
          }
          // (the report at the target itself ends the run anyway: a stop there would only start the slice again)
          if (wall - sliceStart >= SliceWallMs && p.now < built.target) built.sim.stop()
        }
      })
      totals.timersFired += outcome.timersFired
      totals.tasksRun += outcome.tasksRun
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
    built.sim.interruptAll()
    return { ...built.finish(totals, reachedMs), reachedMs, stopped }
  })

/** Virtual time past the end a section may take to report (its final reads go through the modelled API). */
export const SectionReportMs = 60_000

interface Built {
  readonly sim: Simulation.Simulation
  target: number
  readonly sectionDeadline: number
  readonly unfinishedSections: () => boolean
  readonly wallStart: number
  /** The results, after the simulation ran to `reachedMs` (ms since the start). */
  readonly finish: (kernel: { readonly timersFired: number; readonly tasksRun: number }, reachedMs: number) => { cluster?: ClusterResultBody; sections: Record<string, unknown> }
}

/** Builds the simulation: nodes, agents, controllers, faults, workload and sections forked, nothing run yet. */
const build = (options: SimulationOptions, resolved: ResolvedCluster | undefined, wallClock: () => number): Built => {
  const wallStart = wallClock()
  const { seed, durationMs } = options
  const withCluster = options.spec !== undefined && resolved !== undefined
  // without a cluster: no nodes, no agents, no lifecycle controller (an empty spec keeps the code below simple)
  const spec: ClusterSpec = options.spec ?? { nodes: 0 }
  const nodeAgent = resolved?.nodeAgent
  const sim = Simulation.make({ seed, startMillis })
  const random = sim.random.split("cluster")
  const settings = nodeAgent ? settingsOf(nodeAgent) : undefined
  const nodes = simulatedNodes(spec, settings, random, startMillis)

  // ---- faults, known in advance: per-node stop times and partition windows, server pauses
  const faultRandom = random.split("faults")
  const imagePulls = spec.images === undefined || nodeAgent === undefined ? undefined : new ImagePulls(spec.images, nodeAgent, random.split("images"), startMillis)
  const { pauses, applied } = applyFaults(options.faults, nodes, startMillis, faultRandom, imagePulls)

  const model = new ServiceTimeModel(parameters(spec.serviceTime), uniformOf(random))
  const metrics = new NodeAgentMetrics(new LeaseTimeline(startMillis, durationMs))
  const lifecycleEnabled = resolved?.lifecycle.enabled ?? false
  const observer = new ClusterObserver(startMillis, lifecycleEnabled)
  const lifecycleLog = makeLifecycleLog()
  const shardCount = Math.max(1, Math.min(nodes.length, spec.shards ?? 1))
  const resolutionMs = spec.resolution ?? 1_000
  let seededPods = 0

  const serverLayer = ApiServer.layer({ ...options.server, seed })
  const serviceTimeLayer = Layer.succeed(ServiceTime, model)
  // the latency model belongs to the cluster section (`serviceTime`); without one the client answers at once
  const clientLayer = withCluster ? ServiceTime.layerClient.pipe(Layer.provide(InProcessClient.layer), Layer.provide(serviceTimeLayer)) : InProcessClient.layer
  const layers = clientLayer.pipe(Layer.provideMerge(serverLayer))
  const sectionResults: Record<string, unknown> = {}

  const evictions: Array<EvictionRecord> = []
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
          Effect.tap((r) => Effect.sync(() => void (sectionResults[section.name] = r))),
          Effect.catchAllCause((c) => Effect.sync(() => void (sectionResults[section.name] = { finished: false, error: Cause.pretty(c).split("\n")[0] })))
        )
      )
    }
    if (options.workload) {
      const workload = clientAs ? Effect.provideService(options.workload, ClientAs, clientAs) : options.workload
      // the workload's modelled client under other identities (kubelet-style reflectors as their node)
      const inner = inProcessClient(server)
      yield* Effect.forkDaemon(withCluster ? Effect.provideService(workload, ModelClientAs, (identity) => modelledClient(inner, model, identity)) : workload)
    }
    return yield* Effect.never
  }).pipe(Effect.provide(layers))

  const startCluster = (server: ApiServerImpl, clientAs: ((credentials: Credentials) => ApiClientService) | undefined) => Effect.gen(function* () {
    const store = server.store
    observer.attach(store)
    model.objectCount = (resource) => store.count(resource)
    model.indexedObjectCount = (resource, value) => store.countIndexed(resource, value)
    if (options.onChange) store.subscribe(options.onChange)
    // The agents' own client: in-process, without the service-time layer (a shard books modelled times itself).
    const nodeClients = new Map<string, ApiClientService>()
    const env = {
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
      settings: settings!,
      metrics,
      pauses,
      resolutionMs,
      ...(imagePulls !== undefined ? imageSteps(imagePulls, random.split("pod-workers")) : {})
    }
    const shards: Array<NodeAgentShard> = []
    const shardOf = new Map<string, NodeAgentShard>()
    for (let s = 0; s < shardCount; s++) {
      const own = nodes.filter((_, i) => i % shardCount === s)
      const shard = new NodeAgentShard(own, env, random.split(`shard-${s}`))
      for (const n of own) {
        observer.route(n.name, shard)
        shardOf.set(n.name, shard)
      }
      shards.push(shard)
    }
    seededPods = seedPods(store, nodes, spec.podsPerNode ?? 0, {
      random: random.split("pods"),
      tolerationSeconds: resolved!.lifecycle.defaultTolerationSeconds,
      startMillis,
      imagePulls
    })
    for (const shard of shards) yield* Effect.forkDaemon(shard.run)
    yield* Effect.forkDaemon(server.admission.compactEvery(10_000))
    if (lifecycleEnabled) {
      const recorder = EventRecorder.layer({ reportingController: "node-controller", reportingInstance: "node-controller" })
      const source = { nodes: () => observer.nodes.values(), node: (name: string) => observer.nodes.get(name), changedNodes: () => observer.changedNodes(), leases: () => observer.changedLeases() }
      const controller = runNodeLifecycleController(resolved!.lifecycle, lifecycleLog, source).pipe(Effect.provide(recorder))
      yield* Effect.forkDaemon(clientAs ? Effect.provideService(controller, ApiClient, clientAs(nodeControllerCredentials)) : controller)
    }
    for (const p of pauses) {
      yield* Effect.forkDaemon(Effect.sleep(p.from - startMillis).pipe(Effect.zipRight(server.pause(p.to - p.from))))
    }
    if (spec.memoryPressure && spec.memoryPressure.length > 0) {
      const pressure = runMemoryPressure(
        spec.memoryPressure,
        nodes,
        spec.podsPerNode ?? 0,
        nodeAgent!,
        (e) => evictions.push(e),
        (node, conditions) => shardOf.get(node)?.setPressure(node, conditions)
      )
      yield* Effect.forkDaemon(Effect.orDie(pressure))
    }
  })

  sim.fork(program)
  return {
    sim,
    target: startMillis + durationMs,
    sectionDeadline: startMillis + durationMs + SectionReportMs,
    unfinishedSections: () => Object.values(sectionResults).some((r) => (r as { finished?: unknown }).finished === false && !("error" in (r as object))),
    wallStart,
    finish: (kernel, reachedMs) => {
      const serverModel = {
        modelled: true as const,
        parameters: model.params,
        ...(model.apf ? { priorityLevels: model.apf.metrics() } : {}),
        ...(model.givenUp > 0 ? { givenUp: model.givenUp } : {})
      }
      const record = { seed, durationMs, nodes, pods: seededPods, metrics, observer, lifecycleLog, evictions, applied, imagePulls, serverModel }
      return { ...(withCluster ? { cluster: clusterResult(record, kernel, reachedMs, wallClock() - wallStart) } : {}), sections: { ...sectionResults } }
    }
  }

}

/** The result without its host-dependent part, for comparisons and hashes. */
export const deterministicPart = (result: ClusterResult): ClusterResult => {
  const { wall: _wall, ...rest } = result
  return rest
}

/**
 * The workload controllers of a kube-controller-manager, as one unit: the Deployment and ReplicaSet controllers
 * and the minimal garbage collector of their dependents, on shared informers (one list and watch each of
 * Deployments, ReplicaSets and Pods, as a `SharedInformerFactory` gives them), each controller with its own work
 * queue and worker. Runs on the context's `ApiClient` and `Clock` (real or virtual) until interrupted.
 */
import { Effect, type Scope } from "effect"
import { Deployments, Pods, ReplicaSets } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { startInformer, type EventHandlers } from "../../src/informer/Informer.js"
import * as EventRecorder from "../events/EventRecorder.js"
import { DeploymentController } from "./deployment/DeploymentController.js"
import { GarbageCollector } from "./garbagecollector/GarbageCollector.js"
import { ReplicaSetController } from "./replicaset/ReplicaSetController.js"
import * as WorkQueue from "./WorkQueue.js"

export interface WorkloadControllers {
  readonly deployments: DeploymentController
  readonly replicaSets: ReplicaSetController
  readonly garbageCollector: GarbageCollector
  /** Completes once the informers have listed (client-go `WaitForCacheSync`). */
  readonly synced: Effect.Effect<void>
}

/** Starts the informers and the workers in the current scope; they stop with it. */
export const startWorkloadControllers = (options: { readonly host?: string } = {}): Effect.Effect<WorkloadControllers, never, ApiClient | Scope.Scope> =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    const host = options.host ?? "clustersim"
    const recorder = (controller: string) => EventRecorder.make({ reportingController: controller, reportingInstance: EventRecorder.reportingInstanceOf(controller, host) })
    const rsQueue = yield* WorkQueue.make
    const deployQueue = yield* WorkQueue.make
    const gcQueue = yield* WorkQueue.make
    // the informers start before the controllers that read their caches: handlers are added to these lists after
    const handlers = { pods: [] as Array<EventHandlers>, replicaSets: [] as Array<EventHandlers>, deployments: [] as Array<EventHandlers> }
    const pods = yield* startInformer({ resource: Pods }, relay(handlers.pods))
    const replicaSets = yield* startInformer({ resource: ReplicaSets }, relay(handlers.replicaSets))
    const deployments = yield* startInformer({ resource: Deployments }, relay(handlers.deployments))
    const rsController = new ReplicaSetController({ client, recorder: yield* recorder("replicaset-controller"), pods: pods.cache, replicaSets: replicaSets.cache, queue: rsQueue })
    const deployController = new DeploymentController({
      client,
      recorder: yield* recorder("deployment-controller"),
      deployments: deployments.cache,
      replicaSets: replicaSets.cache,
      queue: deployQueue
    })
    const gc = new GarbageCollector({ client, replicaSets: replicaSets.cache, pods: pods.cache, queue: gcQueue })
    handlers.pods.push(rsController.podHandlers)
    handlers.replicaSets.push(rsController.replicaSetHandlers, deployController.replicaSetHandlers, gc.ownerHandlers)
    handlers.deployments.push(deployController.deploymentHandlers, gc.ownerHandlers)
    const synced = Effect.all([pods.synced, replicaSets.synced, deployments.synced], { discard: true })
    // workers start once the caches hold the first lists (`WaitForNamedCacheSync`), then catch up on every object
    yield* Effect.forkScoped(
      Effect.gen(function* () {
        yield* synced
        for (const rs of replicaSets.cache.list()) rsQueue.add(`${rs.metadata.namespace}/${rs.metadata.name}`)
        for (const d of deployments.cache.list()) deployQueue.add(`${d.metadata.namespace}/${d.metadata.name}`)
        yield* Effect.all([rsQueue.run((k) => rsController.sync(k)), deployQueue.run((k) => deployController.sync(k)), gcQueue.run((k) => gc.sync(k))], {
          concurrency: "unbounded",
          discard: true
        })
      })
    )
    return { deployments: deployController, replicaSets: rsController, garbageCollector: gc, synced }
  })

/** One handler set telling every set in `list` (which may grow after the informer started). */
const relay = (list: ReadonlyArray<EventHandlers>): EventHandlers => ({
  onAdd: (o, now, initial) => {
    for (const h of list) h.onAdd?.(o, now, initial)
  },
  onUpdate: (old, o, now) => {
    for (const h of list) h.onUpdate?.(old, o, now)
  },
  onDelete: (o, now) => {
    for (const h of list) h.onDelete?.(o, now)
  }
})

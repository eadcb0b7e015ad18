/** The reflector tests' harness: a tapped client that records (and can fail) requests, an informer measured as the load generator measures it, store-vs-server checks. */
import { Effect, Layer, Random, type Scope, Stream } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { ListOptions, WatchOptions } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import type { ApiError } from "../../src/api/Status.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { hasWatchPulls, type WatchPulls } from "../../src/client/Capabilities.js"
import type { ServerAdmin } from "../../src/client/ServerAdmin.js"
import { LatencyRecorder, type SeriesSnapshot } from "../../src/loadgen/LatencyRecorder.js"
import { type Informer, startInformer } from "../../src/informer/Informer.js"
import type { ReflectorOptions } from "../../src/informer/Reflector.js"
import { reflectorMetrics } from "../../src/loadgen/ReflectorMetrics.js"
import { clientLayer, type Transport } from "../support/transports.js"
import type { ApiServerConfig } from "../../simulator/apiserver/ApiServer.js"


/** Real time for sockets and fibers to make progress; the Clock stays where the test put it. */
export const settle = (ms = 10) => Effect.promise(() => new Promise<void>((r) => setTimeout(r, ms)))

export const eventually = <R>(what: string, check: Effect.Effect<boolean, unknown, R>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 300; i++) {
      if (yield* check) return
      yield* settle()
    }
    return yield* Effect.die(new Error(`timed out waiting for: ${what}`))
  })

/** Every request the reflector makes, and faults to inject into the next ones. */
export interface Tap {
  readonly lists: Array<ListOptions>
  readonly watches: Array<WatchOptions>
  failNextWatch?: ApiError | undefined
  /** Runs once, before the first LIST that carries a continue token. */
  beforeFirstContinue?: Effect.Effect<void> | undefined
}

/** Records a watch; the failure it is to get, if one was set. */
export const tapWatch = (tap: Tap, opts: WatchOptions | undefined): ApiError | undefined => {
  tap.watches.push(opts ?? {})
  const failure = tap.failNextWatch
  tap.failNextWatch = undefined
  return failure
}

export const tappedPullWatch = (pullWatch: WatchPulls["pullWatch"], tap: Tap): WatchPulls["pullWatch"] => (resource, opts) =>
  Effect.suspend(() => {
    const failure = tapWatch(tap, opts)
    return failure ? Effect.fail(failure) : pullWatch(resource, opts)
  })

export const tapClient = (inner: ApiClientService, tap: Tap): ApiClientService => ({
  ...inner,
  list: (resource, opts) =>
    Effect.suspend(() => {
      tap.lists.push(opts ?? {})
      const hook = opts?.continue ? tap.beforeFirstContinue : undefined
      if (hook) tap.beforeFirstContinue = undefined
      return hook ? Effect.zipRight(hook, inner.list(resource, opts)) : inner.list(resource, opts)
    }),
  watch: (resource, opts) =>
    Stream.suspend(() => {
      const failure = tapWatch(tap, opts)
      return failure ? Stream.fail(failure) : inner.watch(resource, opts)
    }),
  // the in-process client's pulls tapped the same way, so the reflector reads them as it does outside tests
  ...(hasWatchPulls(inner) ? { pullWatch: tappedPullWatch(inner.pullWatch, tap) } : {})
})

export const newTap = (): Tap => ({ lists: [], watches: [] })

/** An informer measured as the load generator measures it. */
export const start = (tap: Tap, opts: ReflectorOptions) =>
  Effect.gen(function* () {
    const inner = yield* ApiClient
    const observer = yield* reflectorMetrics(opts.resource.plural, opts.namespace ? "namespace" : "cluster")
    return yield* startInformer({ ...opts, observer }).pipe(Effect.provideService(ApiClient, tapClient(inner, tap)))
  })

/** A reflector that has synced and opened its first watch. */
export const watching = (opts: ReflectorOptions) =>
  Effect.gen(function* () {
    const tap = newTap()
    const reflector = yield* start(tap, opts)
    yield* reflector.synced
    yield* eventually("watch opened", Effect.sync(() => tap.watches.length === 1))
    return { tap, reflector }
  })

export const run = <A, E>(transport: Transport, body: Effect.Effect<A, E, ApiClient | ServerAdmin | LatencyRecorder | Scope.Scope>, config: Partial<ApiServerConfig> = {}) =>
  body.pipe(
    Effect.scoped,
    Effect.provide(Layer.merge(clientLayer(transport, config), LatencyRecorder.layer())),
    Effect.withRandom(Random.make(42))
  )

export const cm = (name: string, labels: Record<string, string> = {}, annotations: Record<string, string> = {}) => ({
  metadata: { name, labels, annotations },
  data: { v: "1" }
})

export const event = (name: string) => ({
  metadata: { name },
  eventTime: "2023-05-01T12:00:00.000000Z",
  reportingController: "platform.io/scheduler",
  reportingInstance: "scheduler-1",
  action: "Binding",
  reason: "Scheduled",
  type: "Normal",
  note: `event ${name}`,
  regarding: { kind: "Pod", namespace: "default", name: "p" }
})

/** name → resourceVersion of the server's objects and of the reflector's store. */
export const versions = (items: ReadonlyArray<KObject>) =>
  Object.fromEntries(items.map((o) => [o.metadata.name!, o.metadata.resourceVersion!]).sort(([a], [b]) => (a! < b! ? -1 : 1)))

export const storeMatchesServer = (reflector: Informer, resource: ResourceType, namespace: string, labelSelector?: string) =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    const server = yield* api.list(resource, { namespace, labelSelector })
    const local = reflector.cache.list()
    return JSON.stringify(versions(server.items)) === JSON.stringify(versions(local))
  })

export const series = (metric: string) =>
  Effect.map(
    Effect.flatMap(LatencyRecorder, (r) => r.snapshot),
    (all): Record<string, SeriesSnapshot> => Object.fromEntries(all.filter((s) => s.key.metric === metric).map((s) => [s.key.operation, s]))
  )


/**
 * The client every part of clustersim talks to an API server through. Two layers with one contract:
 * `layerInProcess` calls the simulated server directly (the simulator's path), `layerHttp` speaks the wire
 * protocol with undici to any server URL — the simulated one or a real one.
 */
import { Context, Effect, Either, Layer, Stream } from "effect"
import type { KList, KObject, WatchEvent } from "../api/Object.js"
import type {
  DeleteOptions,
  DeleteResult,
  GetOptions,
  ListOptions,
  PatchType,
  WatchOptions,
  WriteOptions,
  WriteResult
} from "../api/Requests.js"
import type { ResourceType } from "../api/Resources.js"
import type { ApiError } from "../api/Status.js"
import { ApiServer, WaitFor, type ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { makeHttpClient, type HttpClientOptions } from "./HttpTransport.js"

export interface ApiClientService {
  readonly get: (resource: ResourceType, name: string, opts?: GetOptions) => Effect.Effect<KObject, ApiError>
  readonly list: (resource: ResourceType, opts?: ListOptions) => Effect.Effect<KList, ApiError>
  readonly create: (resource: ResourceType, obj: KObject | unknown, opts?: WriteOptions) => Effect.Effect<WriteResult, ApiError>
  /** PUT; the name comes from `obj.metadata.name`. */
  readonly update: (resource: ResourceType, obj: KObject, opts?: WriteOptions) => Effect.Effect<WriteResult, ApiError>
  readonly patch: (
    resource: ResourceType,
    name: string,
    patchType: PatchType,
    patch: unknown,
    opts?: WriteOptions
  ) => Effect.Effect<WriteResult, ApiError>
  readonly delete: (resource: ResourceType, name: string, opts?: DeleteOptions) => Effect.Effect<DeleteResult, ApiError>
  readonly deleteCollection: (resource: ResourceType, opts?: ListOptions & DeleteOptions) => Effect.Effect<KList, ApiError>
  /** A watch stream; opening errors (400, 422, …) fail the stream before the first event. */
  readonly watch: (resource: ResourceType, opts?: WatchOptions) => Stream.Stream<WatchEvent, ApiError>
  /**
   * In-process clients only: the same client answering at once, as the server stands at `now` (the caller's
   * `Clock` time). Its verbs return the answer itself, an `Either` (which is also an effect), wherever the server
   * can answer without waiting, and the effect otherwise. A caller that keeps its own clock, like the node-agent
   * shards running thousands of agents on one fiber, saves the fiber steps of an effect per request.
   * Undefined while the server holds requests (an admin pause): use the effectful verbs then.
   */
  readonly at?: (now: number) => ApiClientService | undefined
}

/** The in-process client of one server (what `layerInProcess` provides). */
export const inProcessClient = (server: ApiServerImpl): ApiClientService => {
  const effectful: ApiClientService = {
    get: (resource, name, opts) => server.get(resource, name, opts),
    list: (resource, opts) => server.list(resource, opts),
    create: (resource, obj, opts) => server.create(resource, { value: obj }, opts),
    update: (resource, obj, opts) => server.update(resource, obj.metadata.name ?? "", { value: obj }, opts),
    patch: (resource, name, patchType, patch, opts) => server.patch(resource, name, patchType, { value: patch }, opts),
    delete: (resource, name, opts) => server.delete(resource, name, opts),
    deleteCollection: (resource, opts) => server.deleteCollection(resource, opts),
    watch: (resource, opts) => Stream.unwrapScoped(server.watch(resource, opts))
  }
  // One immediate client per instant: callers ask for it per request, and most requests share an instant.
  let instant = Number.NaN
  let immediate = effectful
  return {
    ...effectful,
    at: (now) => {
      if (server.paused) return undefined
      if (now !== instant) {
        instant = now
        immediate = immediateClient(server, effectful, now)
      }
      return immediate
    }
  }
}

/** Answers at `now` as the server's effectful verbs would, without their effect; what must wait stays an effect. */
const immediateClient = (server: ApiServerImpl, effectful: ApiClientService, now: number): ApiClientService => {
  // What every request does on arrival (once per instant).
  server.compactUpTo(now)
  const answered = <A>(answer: Either.Either<A, ApiError> | WaitFor, wait: () => Effect.Effect<A, ApiError>): Effect.Effect<A, ApiError> =>
    answer instanceof WaitFor ? wait() : answer
  return {
    get: (resource, name, opts) => answered(server.getNow(resource, name, opts), () => effectful.get(resource, name, opts)),
    list: (resource, opts) => answered(server.listNow(resource, opts), () => effectful.list(resource, opts)),
    create: (resource, obj, opts = {}) => server.createAt(resource, { value: obj }, opts, now),
    update: (resource, obj, opts = {}) => server.updateAt(resource, obj.metadata.name ?? "", { value: obj }, opts, now),
    patch: (resource, name, patchType, patch, opts = {}) => server.patchAt(resource, name, patchType, { value: patch }, opts, now),
    delete: (resource, name, opts = {}) => server.deleteAt(resource, name, opts, now),
    deleteCollection: effectful.deleteCollection,
    watch: effectful.watch
  }
}

export class ApiClient extends Context.Tag("clustersim/ApiClient")<ApiClient, ApiClientService>() {
  /**
   * Direct calls into the simulated server of the context. Bodies are handed over, not copied, and results are
   * the stored objects' parts: neither may be changed afterwards (as with an informer's cache).
   */
  static readonly layerInProcess: Layer.Layer<ApiClient, never, ApiServer> = Layer.effect(
    ApiClient,
    Effect.map(ApiServer, inProcessClient)
  )

  /** The wire protocol over undici, for any server URL. */
  static readonly layerHttp = (options: HttpClientOptions): Layer.Layer<ApiClient> =>
    Layer.scoped(ApiClient, makeHttpClient(options))
}

/**
 * The client every part of clustersim talks to an API server through. Two layers with one contract:
 * `layerInProcess` calls the simulated server directly (the simulator's path), `layerHttp` speaks the wire
 * protocol with undici to any server URL — the simulated one or a real one.
 */
import { Context, Effect, Layer, Stream } from "effect"
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
import { ApiServer, type ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
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
}

/** The in-process client of one server (what `layerInProcess` provides). */
export const inProcessClient = (server: ApiServerImpl): ApiClientService => ({
  get: (resource, name, opts) => server.get(resource, name, opts),
  list: (resource, opts) => server.list(resource, opts),
  create: (resource, obj, opts) => server.create(resource, { value: obj }, opts),
  update: (resource, obj, opts) => server.update(resource, obj.metadata.name ?? "", { value: obj }, opts),
  patch: (resource, name, patchType, patch, opts) => server.patch(resource, name, patchType, { value: patch }, opts),
  delete: (resource, name, opts) => server.delete(resource, name, opts),
  deleteCollection: (resource, opts) => server.deleteCollection(resource, opts),
  watch: (resource, opts) => Stream.unwrapScoped(server.watch(resource, opts))
})

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

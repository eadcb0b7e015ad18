/**
 * The client every part of clustersim talks to an API server through: the contract, and `layerHttp`, which speaks
 * the wire protocol with undici to any server URL — the simulated one or a real one. The other implementation,
 * direct calls into a simulated server of the same process, lives with that server
 * (`simulator/apiserver/InProcessClient.ts`); both pass one contract suite (`test/contract`).
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

export class ApiClient extends Context.Tag("clustersim/ApiClient")<ApiClient, ApiClientService>() {
  /** The wire protocol over undici, for any server URL. */
  static readonly layerHttp = (options: HttpClientOptions): Layer.Layer<ApiClient> =>
    Layer.scoped(ApiClient, makeHttpClient(options))
}

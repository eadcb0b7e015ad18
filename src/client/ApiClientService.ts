/**
 * The contract every API client implements — the HTTP transport (`HttpTransport.ts`), the in-process client
 * (`simulator/apiserver/InProcessClient.ts`), its immediate view, and their wrappers (`Transform.ts`): the verbs and
 * `watch`, nothing else. What one transport does faster is a capability of its own (`Capabilities.ts`), in the type
 * of the transports that have it. `ApiClient.ts` is its service tag; this file is apart from the tag, so a transport
 * implements it without importing the module that builds the transports.
 */
import type { Effect, Stream } from "effect"
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
import type { ClientError } from "./TransportError.js"

export interface ApiClientService {
  readonly get: (resource: ResourceType, name: string, opts?: GetOptions) => Effect.Effect<KObject, ClientError>
  readonly list: (resource: ResourceType, opts?: ListOptions) => Effect.Effect<KList, ClientError>
  readonly create: (resource: ResourceType, obj: KObject | unknown, opts?: WriteOptions) => Effect.Effect<WriteResult, ClientError>
  /** PUT; the name comes from `obj.metadata.name`. */
  readonly update: (resource: ResourceType, obj: KObject, opts?: WriteOptions) => Effect.Effect<WriteResult, ClientError>
  readonly patch: (
    resource: ResourceType,
    name: string,
    patchType: PatchType,
    patch: unknown,
    opts?: WriteOptions
  ) => Effect.Effect<WriteResult, ClientError>
  readonly delete: (resource: ResourceType, name: string, opts?: DeleteOptions) => Effect.Effect<DeleteResult, ClientError>
  readonly deleteCollection: (resource: ResourceType, opts?: ListOptions & DeleteOptions) => Effect.Effect<KList, ClientError>
  /** A watch stream; opening errors (400, 422, …) fail the stream before the first event. */
  readonly watch: (resource: ResourceType, opts?: WatchOptions) => Stream.Stream<WatchEvent, ClientError>
}

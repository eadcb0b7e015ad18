/**
 * The contract every API client implements — the HTTP transport (`HttpTransport.ts`), the in-process client
 * (`simulator/apiserver/InProcessClient.ts`) and their wrappers; `ApiClient.ts` is its service tag. Apart from the
 * tag, so a transport implements it without importing the module that builds the transports.
 */
import type { Chunk, Effect, Option, Scope, Stream } from "effect"
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
import type { TrafficCounter } from "./HttpClientOptions.js"
import type { WireEncoding } from "./WireEncoding.js"

/** The next batch of events (waiting for one); fails with `None` when the watch has ended, `Some` when it broke. */
export type WatchPull = Effect.Effect<Chunk.Chunk<WatchEvent>, Option.Option<ClientError>>

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
  /**
   * In-process clients only: the same watch as pulls of event batches, open for the life of the scope; opening errors
   * fail the effect. Read it with `openWatchPull` (`WatchPull.ts`), which falls back to `watch` without it. A wrapper
   * that changes `watch` must change this too, or leave it out.
   */
  readonly pullWatch?: (resource: ResourceType, opts?: WatchOptions) => Effect.Effect<WatchPull, ClientError, Scope.Scope>
  /**
   * HTTP clients only: a GET or DELETE of one object whose answer is measured, not decoded — its status (a non-2xx
   * answer fails with the Status it carries, as the decoded verbs do) and its body bytes. What a load action that
   * reads nothing of the object needs; decoding is most of a client's work per GET (docs/benchmarks.md).
   */
  readonly measure?: (verb: "GET" | "DELETE", resource: ResourceType, name: string, opts?: GetOptions) => Effect.Effect<Measured, ClientError>
  /**
   * HTTP clients only: `measure` of one verb, resource and namespace as a plain call with a callback — a load
   * executor's per-request path without an Effect per request (`DirectIteration`, src/loadgen/Arrival.ts). Resolves
   * the target's names first; `undefined` where each request needs an Effect of its own: a credential source to
   * consult, or names that could not be discovered yet.
   */
  readonly directMeasure?: (verb: "GET" | "DELETE", resource: ResourceType, opts?: GetOptions) => Effect.Effect<DirectMeasure | undefined>
  /**
   * HTTP clients only: the same client (its connections and the names it discovered) speaking `encoding`, and
   * counting its body bytes in `traffic` as well as where this one counts them — a load action's own encoding and
   * bytes.
   */
  readonly variant?: (o: { readonly encoding?: WireEncoding; readonly traffic?: TrafficCounter }) => ApiClientService
  /**
   * In-process clients only: the same client answering at once, as the server stands at `now` (the caller's
   * `Clock` time). Its verbs return the answer itself, an `Either` (which is also an effect), wherever the server
   * can answer without waiting, and the effect otherwise. A caller that keeps its own clock, like the node-agent
   * shards running thousands of agents on one fiber, saves the fiber steps of an effect per request.
   * Undefined while the server holds requests (an admin pause): use the effectful verbs then.
   */
  readonly at?: (now: number) => ApiClientService | undefined
  /**
   * HTTP clients only: requests sent as given — method, path with its query, headers, body — under the client's
   * credential and connections; any answer is a value (a replay compares codes, src/replay/). What a replay of an
   * audit log needs, whose requests are URIs, not typed calls.
   */
  readonly raw?: RawSender
}

export interface RawRequest {
  readonly method: string
  /** Path and query, sent byte for byte. */
  readonly path: string
  /** Flat `[name, value, …]` (a name may repeat: `Impersonate-Group`), added to the client's own. */
  readonly headers: ReadonlyArray<string>
  readonly body?: string | undefined
  /** A long-running request (a watch): the answer comes with its headers, the body is read and dropped until `close`. */
  readonly longRunning?: boolean
  /** Read a 2xx JSON answer's `metadata.resourceVersion` (a replayed update of a kind that needs one). */
  readonly readResourceVersion?: boolean
}

export interface RawAnswer {
  readonly code: number
  /** A non-2xx answer's Status message, when it carried one. */
  readonly message?: string
  /** The answer's `metadata.resourceVersion`, when the request asked for it (`readResourceVersion`). */
  readonly resourceVersion?: string
  /** A long-running answer: stop reading and close the connection. */
  readonly close?: () => void
  /** A long-running answer: resolves when the server ended it (or `close` did). */
  readonly ended?: Promise<void>
}

export interface RawSender {
  /** The target's origin (`http://127.0.0.1:6443`), for the replay's safety check. */
  readonly origin: string
  /** Fails only when no answer came (a `TransportError`). */
  readonly send: (request: RawRequest) => Effect.Effect<RawAnswer, ClientError>
}

/** `measure` of one object by name; `done` gets the failure (the Status of a non-2xx answer, a connection error) or `undefined`. */
export type DirectMeasure = (name: string, done: (failure: ClientError | undefined) => void) => void

/** What `measure` reads of an answer. */
export interface Measured {
  readonly code: number
  readonly bytesIn: number
  readonly bytesOut: number
}

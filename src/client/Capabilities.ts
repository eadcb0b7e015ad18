/**
 * What a transport does faster than the contract's verbs (`ApiClientService.ts`), each a capability of its own, in the
 * type of the transports that have it: the HTTP transport measures answers without decoding them and hands out
 * variants of itself (`HttpClientService`); the in-process client hands out a watch's events as pulls and answers at
 * once as the server stands at an instant (`InProcessClientService`). A wrapper made with `transform` (`Transform.ts`)
 * has the contract and keeps the watch pulls (wrapped as its `watch` is); one that must keep another capability says
 * so in its type, and the compiler holds it to it. A reader asks with the guards below, on the client it was given:
 * a wrapper that does not have a capability is read through the contract, never around the wrapper.
 */
import type { Chunk, Effect, Option, Scope } from "effect"
import type { WatchEvent } from "../api/Object.js"
import type { GetOptions, WatchOptions } from "../api/Requests.js"
import type { ResourceType } from "../api/Resources.js"
import type { ClientError } from "./TransportError.js"
import type { ApiClientService } from "./ApiClientService.js"
import type { TrafficCounter } from "./HttpClientOptions.js"
import type { WireEncoding } from "./WireEncoding.js"

/** The next batch of events (waiting for one); fails with `None` when the watch has ended, `Some` when it broke. */
export type WatchPull = Effect.Effect<Chunk.Chunk<WatchEvent>, Option.Option<ClientError>>

/**
 * In-process: the same watch as `watch`, as pulls of event batches, open for the life of the scope; opening errors
 * fail the effect. Read it with `openWatchPull` (`WatchPull.ts`), which falls back to `watch` without it.
 */
export interface WatchPulls {
  readonly pullWatch: (resource: ResourceType, opts?: WatchOptions) => Effect.Effect<WatchPull, ClientError, Scope.Scope>
}

/** What `measure` reads of an answer. */
export interface Measured {
  readonly code: number
  readonly bytesIn: number
  readonly bytesOut: number
}

/** `measure` of one object by name; `done` gets the failure (the Status of a non-2xx answer, a connection error) or `undefined`. */
export type DirectMeasure = (name: string, done: (failure: ClientError | undefined) => void) => void

/** HTTP: answers measured, not decoded — what a load action that reads nothing of the object needs. */
export interface Measuring {
  /**
   * A GET or DELETE of one object whose answer is measured, not decoded — its status (a non-2xx answer fails with the
   * Status it carries, as the decoded verbs do) and its body bytes. Decoding is most of a client's work per GET
   * (docs/benchmarks.md).
   */
  readonly measure: (verb: "GET" | "DELETE", resource: ResourceType, name: string, opts?: GetOptions) => Effect.Effect<Measured, ClientError>
  /**
   * `measure` of one verb, resource and namespace as a plain call with a callback — a load executor's per-request path
   * without an Effect per request (`DirectIteration`, src/loadgen/Arrival.ts). Resolves the target's names first;
   * `undefined` where each request needs an Effect of its own: a credential source to consult, or names that could not
   * be discovered yet.
   */
  readonly directMeasure: (verb: "GET" | "DELETE", resource: ResourceType, opts?: GetOptions) => Effect.Effect<DirectMeasure | undefined>
}

/** HTTP: the same client (its connections, the names it discovered) speaking another encoding, counting its own bytes. */
export interface Variants {
  readonly variant: (o: { readonly encoding?: WireEncoding; readonly traffic?: TrafficCounter }) => HttpClientService
}

/**
 * In-process: the same client answering at once, as the server stands at `now` (the caller's `Clock` time). Its verbs
 * return the answer itself, an `Either` (which is also an effect), wherever the server can answer without waiting,
 * and the effect otherwise. A caller that keeps its own clock, like the node-agent shards running thousands of agents
 * on one fiber, saves the fiber steps of an effect per request. Undefined while the server holds requests (an admin
 * pause): use the effectful verbs then. The view itself is a client of the contract (test/contract runs it).
 */
export interface ImmediateView {
  readonly at: (now: number) => (ApiClientService & WatchPulls) | undefined
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
/**
 * HTTP: requests sent as given — method, path with its query, headers, body — under the client's credential and
 * connections; any answer is a value (a replay compares codes, src/replay/). What a replay of an audit log needs,
 * whose requests are URIs, not typed calls.
 */
export interface RawSending {
  readonly raw: RawSender
}

/** The HTTP transport (`HttpTransport.ts`). */
export type HttpClientService = ApiClientService & Measuring & Variants & RawSending

/** The in-process client (`simulator/apiserver/InProcessClient.ts`) and the wrappers that keep all it has. */
export type InProcessClientService = ApiClientService & WatchPulls & ImmediateView

export const hasWatchPulls = <C extends ApiClientService>(client: C): client is C & WatchPulls => "pullWatch" in client
export const isMeasuring = <C extends ApiClientService>(client: C): client is C & Measuring => "measure" in client
export const hasVariants = <C extends ApiClientService>(client: C): client is C & Variants => "variant" in client
export const hasImmediateView = <C extends ApiClientService>(client: C): client is C & ImmediateView => "at" in client
export const hasRawSender = <C extends ApiClientService>(client: C): client is C & RawSending => "raw" in client

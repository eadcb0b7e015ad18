/**
 * The one way to wrap a client: a decorator says what it does to a request (every verb but watches, in one
 * function) and, if anything, before a watch opens and to its events; `transform` applies that to every verb, to
 * `watch`, and to the watch pulls when the client has them (`Capabilities.ts`), so no verb and no watch path is
 * missed. The other capabilities are not carried: what they do goes around a wrapper, so the wrapped client has the
 * contract and is read through it. A wrapper that must keep one builds it itself and says so in its type.
 */
import { Chunk, Effect, Stream } from "effect"
import type { WatchEvent } from "../api/Object.js"
import type { DeleteOptions, GetOptions, ListOptions, WatchOptions, WriteOptions } from "../api/Requests.js"
import type { ResourceType } from "../api/Resources.js"
import type { ClientError } from "./TransportError.js"
import type { ApiClientService } from "./ApiClientService.js"
import { hasWatchPulls, type WatchPull, type WatchPulls } from "./Capabilities.js"

export type Verb = "get" | "list" | "create" | "update" | "patch" | "delete" | "deletecollection" | "watch"

/** One call as a decorator sees it: its verb, resource and options, the body of a write. */
export interface Call {
  readonly verb: Verb
  readonly resource: ResourceType
  readonly opts: GetOptions | ListOptions | WriteOptions | DeleteOptions | WatchOptions | undefined
  /** A write's body (create, update: the object; patch: the patch). */
  readonly body?: unknown
}

export interface Decorator {
  /**
   * A request (every verb but `watch`): `send()` makes it on the wrapped client — call it when the request goes (an
   * in-process write copies its body then); `send(other)` the same call on another client (the wrapped in-process
   * client's immediate view, `Capabilities.ts`).
   */
  readonly request: <A>(call: Call, send: (on?: ApiClientService) => Effect.Effect<A, ClientError>) => Effect.Effect<A, ClientError>
  /** Before a watch opens, as a stream or as pulls (a check, a booking); its failure fails the opening. */
  readonly beforeWatch?: (call: Call) => Effect.Effect<void, ClientError>
  /** Each watch event, as it is handed on. */
  readonly event?: (event: WatchEvent) => WatchEvent
  /**
   * The whole watch stream, for a decorator that must see it (its first event, its end): the result then has no
   * watch pulls, so its readers read this stream.
   */
  readonly watchStream?: (call: Call, stream: Stream.Stream<WatchEvent, ClientError>) => Stream.Stream<WatchEvent, ClientError>
}

/**
 * `client` with `decorator` applied to every verb and watch path; the watch pulls kept when `client` has them (and the
 * decorator does not wrap the whole stream).
 */
export function transform(client: ApiClientService & WatchPulls, decorator: Decorator): ApiClientService & WatchPulls
export function transform(client: ApiClientService, decorator: Decorator): ApiClientService
export function transform(client: ApiClientService, d: Decorator): ApiClientService & Partial<WatchPulls> {
  const { request, beforeWatch, event, watchStream } = d
  const watch = (resource: ResourceType, opts?: WatchOptions): Stream.Stream<WatchEvent, ClientError> => {
    const mapped = event === undefined ? client.watch(resource, opts) : Stream.map(client.watch(resource, opts), event)
    const stream = watchStream === undefined ? mapped : watchStream({ verb: "watch", resource, opts }, mapped)
    return beforeWatch === undefined ? stream : Stream.unwrap(Effect.as(beforeWatch({ verb: "watch", resource, opts }), stream))
  }
  const wrapped: ApiClientService = {
    get: (resource, name, opts) => request({ verb: "get", resource, opts }, (on = client) => on.get(resource, name, opts)),
    list: (resource, opts) => request({ verb: "list", resource, opts }, (on = client) => on.list(resource, opts)),
    create: (resource, obj, opts) => request({ verb: "create", resource, opts, body: obj }, (on = client) => on.create(resource, obj, opts)),
    update: (resource, obj, opts) => request({ verb: "update", resource, opts, body: obj }, (on = client) => on.update(resource, obj, opts)),
    patch: (resource, name, patchType, patch, opts) => request({ verb: "patch", resource, opts, body: patch }, (on = client) => on.patch(resource, name, patchType, patch, opts)),
    delete: (resource, name, opts) => request({ verb: "delete", resource, opts }, (on = client) => on.delete(resource, name, opts)),
    deleteCollection: (resource, opts) => request({ verb: "deletecollection", resource, opts }, (on = client) => on.deleteCollection(resource, opts)),
    watch
  }
  if (!hasWatchPulls(client) || watchStream !== undefined) return wrapped
  const pullWatch = (resource: ResourceType, opts?: WatchOptions) => {
    const pulls = event === undefined ? client.pullWatch(resource, opts) : Effect.map(client.pullWatch(resource, opts), (pull): WatchPull => Effect.map(pull, (batch) => Chunk.map(batch, event)))
    return beforeWatch === undefined ? pulls : Effect.zipRight(beforeWatch({ verb: "watch", resource, opts }), pulls)
  }
  return { ...wrapped, pullWatch }
}

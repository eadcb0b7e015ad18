/**
 * A watch read one batch of events at a time, without `Stream` stages. Effect 3 sends each chunk of a stream through
 * its channel executor, some 30–50 µs per chunk; a simulated cluster's thousands of reflectors read a chunk per event
 * and per bookmark, so there that was most of a reflector's cost (docs/benchmarks.md "With clients"). A client that
 * can hand out its events directly (the in-process one) offers `pullWatch`; any other is read through its `watch`
 * stream. Either way the reader sees the same events and errors.
 */
import { Effect, Option, Scope, Stream } from "effect"
import type { Chunk } from "effect"
import type { WatchEvent } from "../api/Object.js"
import type { WatchOptions } from "../api/Requests.js"
import type { ResourceType } from "../api/Resources.js"
import type { ApiClientService } from "./ApiClientService.js"
import { hasWatchPulls, type WatchPull } from "./Capabilities.js"
import type { ClientError } from "./TransportError.js"

export type { WatchPull } from "./Capabilities.js"

/** Opens `client`'s watch as pulls, for the life of the scope: its `pullWatch` when it has one, its stream otherwise. */
export const openWatchPull = (client: ApiClientService, resource: ResourceType, opts?: WatchOptions): Effect.Effect<WatchPull, ClientError, Scope.Scope> =>
  hasWatchPulls(client) ? client.pullWatch(resource, opts) : Stream.toPull(client.watch(resource, opts))

/**
 * What a reader's waiting fiber can skip: `take` is offered each batch as it would have been woken for it, and
 * either handles it as the fiber would have (true) or does nothing (false: the fiber is woken for it after all).
 */
export type TakeBatch = (batch: Chunk.Chunk<WatchEvent>) => boolean

/**
 * Pulls that can hand batches to a `TakeBatch` without waking their reader (`simulator/apiserver/WatchEventBuffer.ts`):
 * the pull → the same pull with `take` offered each batch first. A pull another layer wraps is not here, and is read
 * as a pull.
 */
const takingPulls = new WeakMap<WatchPull, (take: TakeBatch) => WatchPull>()

/** Registers `pull` as one that can hand its batches to a `TakeBatch` (`takingPulls`). */
export const offersTaking = (pull: WatchPull, taking: (take: TakeBatch) => WatchPull): void => void takingPulls.set(pull, taking)

/**
 * What a reader whose watch ended cleanly, while it waited, watches next: the options of its next watch — counted
 * as its re-watch, its state now that watch's — or undefined when it would do anything else (it is woken to the end).
 */
export type WatchAgain = () => WatchOptions | undefined

/**
 * A client's watch as pulls whose reader, parked with `take`, goes on to the watch `again` gives at each clean end
 * without being woken for it, as it would have opened that watch itself (`simulator/apiserver/WatchChain.ts`);
 * undefined where the client has none for these options.
 */
export type OpenWatchChain = (
  resource: ResourceType,
  opts: WatchOptions | undefined,
  take: TakeBatch,
  again: WatchAgain
) => Effect.Effect<WatchPull, ClientError, Scope.Scope> | undefined

/** Clients whose watches can be read as chains (`OpenWatchChain`): registered by the client that made them, never passed on by a wrapper. */
const chainingClients = new WeakMap<ApiClientService, OpenWatchChain>()

/** Registers `client` as one whose watches can be read as chains. */
export const offersWatchChains = (client: ApiClientService, open: OpenWatchChain): void => void chainingClients.set(client, open)

/**
 * Reads batches into `onBatch` until the watch ends (success), breaks (its error), or `onBatch` answers false.
 * A loop of plain effects: nothing of one batch is kept for the next. `take`: the batches it handles do not wake the
 * reading fiber, when the pull can do that (`takingPulls`); the fiber's own steps were most of a reflector's cost per
 * event and per bookmark (docs/benchmarks.md "With clients").
 */
export const readWatch = (pull: WatchPull, onBatch: (batch: Chunk.Chunk<WatchEvent>) => Effect.Effect<boolean>, take?: TakeBatch): Effect.Effect<void, ClientError> => {
  const taking = take === undefined ? undefined : takingPulls.get(pull)
  const source = taking === undefined ? pull : taking(take!)
  const next: Effect.Effect<void, ClientError> = Effect.matchEffect(source, {
    onFailure: (end) => (Option.isNone(end) ? Effect.void : Effect.fail(end.value)),
    onSuccess: (batch) => Effect.flatMap(onBatch(batch), (more) => (more ? next : Effect.void))
  })
  return next
}

/**
 * Opens `client`'s watch and reads it (`readWatch`) in a scope of its own, closed as the read ends, however it ends.
 * With `again`, where the client has chains (`OpenWatchChain`), the watches after each clean end are read on in it.
 * Unlike `Effect.scoped`, it closes the scope with the `Scope` still in the context: a finalizer registered with
 * `Effect.addFinalizer` (the HTTP transport's watch has two) compares the fiber's refs with those it saw when
 * registered, and an unchanged context is one comparison instead of a diff (~12 % of a re-watch's instructions while
 * the in-process watch still registered three).
 */
export const readWatchScoped = (
  client: ApiClientService,
  resource: ResourceType,
  opts: WatchOptions | undefined,
  onBatch: (batch: Chunk.Chunk<WatchEvent>) => Effect.Effect<boolean>,
  take?: TakeBatch,
  again?: WatchAgain
): Effect.Effect<void, ClientError> =>
  Effect.flatMap(Scope.make(), (scope) => {
    // a chain's pull takes with `take` itself
    const chained = take !== undefined && again !== undefined ? chainingClients.get(client)?.(resource, opts, take, again) : undefined
    const read = chained === undefined ? Effect.flatMap(openWatchPull(client, resource, opts), (pull) => readWatch(pull, onBatch, take)) : Effect.flatMap(chained, (pull) => readWatch(pull, onBatch))
    return Scope.extend(
      Effect.onExit(read, (exit) => Scope.close(scope, exit)),
      scope
    )
  })

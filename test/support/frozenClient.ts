/**
 * The in-process client with every value that crosses it deep-frozen: the bodies a caller hands in (before the
 * server sees them) and whatever comes back (results, list items, watch events, and so the stored objects they
 * share). A hidden mutation on either side — a caller changing what it got, or the server changing what it was
 * given or what it stored — then throws instead of silently changing the store (docs/architecture.md "Value
 * semantics"). Tests only: freezing costs every request a walk of its values.
 */
import { Chunk, Effect, Either, Layer, Stream } from "effect"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"

/** Freezes `value` and everything reachable from it; returns it. */
export const deepFreeze = <A>(value: A): A => {
  if (typeof value !== "object" || value === null || Object.isFrozen(value)) return value
  Object.freeze(value)
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key])
  return value
}

/** An immediate answer (an Either) stays one; an effect freezes its value when it succeeds. */
const frozenResult = <A, E>(result: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Either.isEither(result) ? (Either.map(result as Either.Either<A, E>, deepFreeze) as unknown as Effect.Effect<A, E>) : Effect.map(result, deepFreeze)

/** Watch pulls whose events are frozen (the reflector's way in, src/client/WatchPull.ts). */
const frozenPullWatch = (pullWatch: NonNullable<ApiClientService["pullWatch"]>): NonNullable<ApiClientService["pullWatch"]> => (resource, opts) =>
  Effect.map(pullWatch(resource, opts), (pull) => Effect.map(pull, (batch) => Chunk.map(batch, deepFreeze)))

/** `client` with everything that crosses it frozen, its immediate view (`at`) included. */
export const frozenClient = (client: ApiClientService): ApiClientService => {
  const frozen: ApiClientService = {
    get: (resource, name, opts) => frozenResult(client.get(resource, name, opts)),
    list: (resource, opts) => frozenResult(client.list(resource, opts)),
    create: (resource, obj, opts) => frozenResult(client.create(resource, deepFreeze(obj), opts)),
    update: (resource, obj, opts) => frozenResult(client.update(resource, deepFreeze(obj), opts)),
    patch: (resource, name, patchType, patch, opts) => frozenResult(client.patch(resource, name, patchType, deepFreeze(patch), opts)),
    delete: (resource, name, opts) => frozenResult(client.delete(resource, name, opts)),
    deleteCollection: (resource, opts) => frozenResult(client.deleteCollection(resource, opts)),
    watch: (resource, opts) => Stream.map(client.watch(resource, opts), deepFreeze),
    ...(client.pullWatch !== undefined ? { pullWatch: frozenPullWatch(client.pullWatch) } : {})
  }
  const at = client.at
  return at === undefined ? frozen : { ...frozen, at: (now) => {
    const immediate = at(now)
    return immediate === undefined ? undefined : frozenClient({ ...immediate, at: undefined } as ApiClientService)
  } }
}

/** `InProcessClient.layer`, frozen: what the contract suites run over in-process. */
export const layerFrozen: Layer.Layer<ApiClient, never, ApiServer> = Layer.effect(
  ApiClient,
  Effect.map(ApiServer, (server) => frozenClient(inProcessClient(server)))
)

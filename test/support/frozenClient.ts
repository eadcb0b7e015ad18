/**
 * The in-process client with every value that crosses it deep-frozen: the bodies a caller hands in (before the
 * server sees them) and whatever comes back (results, list items, watch events, and so the stored objects they
 * share). A hidden mutation on either side — a caller changing what it got, or the server changing what it was
 * given or what it stored — then throws instead of silently changing the store (docs/architecture.md "Value
 * semantics"). Tests only: freezing costs every request a walk of its values.
 */
import { Effect, Either, Layer } from "effect"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import type { InProcessClientService, WatchPulls } from "../../src/client/Capabilities.js"
import { transform } from "../../src/client/Transform.js"
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

/** Bodies frozen before the server sees them, answers and watch events when they come (`transform`: every path). */
const freezing = (client: ApiClientService & WatchPulls): ApiClientService & WatchPulls =>
  transform(client, {
    request: (call, send) => {
      deepFreeze(call.body)
      return frozenResult(send())
    },
    event: deepFreeze
  })

/** `client` with everything that crosses it frozen, its immediate view (`at`) included. */
export const frozenClient = (client: InProcessClientService): InProcessClientService => {
  const frozen = freezing(client)
  return {
    ...frozen,
    at: (now: number) => {
      const immediate = client.at(now)
      return immediate === undefined ? undefined : freezing(immediate)
    }
  }
}

/** `InProcessClient.layer`, frozen: what the contract suites run over in-process. */
export const layerFrozen: Layer.Layer<ApiClient, never, ApiServer> = Layer.effect(
  ApiClient,
  Effect.map(ApiServer, (server) => frozenClient(inProcessClient(server)))
)

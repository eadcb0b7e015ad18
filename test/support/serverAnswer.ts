/**
 * `Effect.flip` for a request expected to be refused by the server: the error it failed with, typed as the
 * server's answer. A request that got no answer at all (a `TransportError`: refused, reset) is not what such a test
 * expects, so it is a defect there, not a Status to compare.
 */
import { Effect } from "effect"
import { isTransportError, type TransportError } from "../../src/client/TransportError.js"

export const serverAnswer = <A, E, R>(request: Effect.Effect<A, E, R>): Effect.Effect<Exclude<E, TransportError>, A, R> =>
  Effect.flatMap(Effect.flip(request), (e) => (isTransportError(e) ? Effect.die(e) : Effect.succeed(e as Exclude<E, TransportError>)))

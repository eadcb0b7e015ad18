/**
 * An `ApiClientService` that counts its failed requests by HTTP status code (or what happened to one without an answer): what a component running beside the
 * node agents on the real clock (the scheduler section) failed to do, so that a run whose requests failed never
 * passes. Watches are not counted: a closed or expired watch is the informer's to reopen (410 is routine).
 */
import { Effect } from "effect"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { type ClientError, failureKey } from "../../src/client/TransportError.js"
import { transform } from "../../src/client/Transform.js"

/**
 * Answers that are a component's ordinary outcome, not a failure: 404 (the elector's GET before the Lease exists)
 * and 409 (a lost election race, an optimistic-concurrency conflict retried, a pod bound meanwhile).
 */
export const expectedFailureCodes: ReadonlySet<number> = new Set([404, 409])

/** The failed requests of `counts` that are not ordinary outcomes (`expectedFailureCodes`). */
export const unexpectedFailures = (counts: Readonly<Record<string, number>>): number =>
  Object.entries(counts).reduce((sum, [code, n]) => (expectedFailureCodes.has(Number(code)) ? sum : sum + n), 0)

export const countingFailures = (client: ApiClientService, counts: Record<string, number>): ApiClientService => {
  const counted = <A>(request: Effect.Effect<A, ClientError>): Effect.Effect<A, ClientError> =>
    Effect.tapError(request, (e) => Effect.sync(() => void (counts[failureKey(e)] = (counts[failureKey(e)] ?? 0) + 1)))
  return transform(client, { request: (_call, send) => counted(send()) })
}

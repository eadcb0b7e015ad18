/**
 * client-go's answer to 429 Too Many Requests (`rest/request.go`, `checkWait` and `retry.IsNextRetry`): the
 * request is sent again after the server's `Retry-After` (1 s from API Priority and Fairness), at most
 * `MaxRetries` (10) times; then the 429 is the caller's error. Other errors pass through at once.
 */
import { Effect } from "effect"
import type { ApiError } from "../api/Status.js"
import { type ClientError, hasStatusCode } from "./TransportError.js"

/** client-go's default `maxRetries` of a request. */
export const MaxRetries = 10

export const isTooManyRequests = (e: ClientError): e is ApiError => hasStatusCode(e, 429)

/** Runs `request`, again after each 429's Retry-After (default 1 s), up to `MaxRetries` more times. */
export const retryTooManyRequests = <A, R>(request: Effect.Effect<A, ClientError, R>, maxRetries = MaxRetries): Effect.Effect<A, ClientError, R> => {
  const attempt = (retriesLeft: number): Effect.Effect<A, ClientError, R> =>
    Effect.catchIf(request, (e): e is ApiError => retriesLeft > 0 && isTooManyRequests(e), (e) =>
      Effect.zipRight(Effect.sleep((e.status.details?.retryAfterSeconds ?? 1) * 1000), Effect.suspend(() => attempt(retriesLeft - 1)))
    )
  return attempt(maxRetries)
}

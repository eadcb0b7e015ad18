/**
 * A request's deadline, as kube-apiserver's `endpoints/filters/request_deadline.go` (`WithRequestDeadline`) sets it
 * before authentication: the server's request timeout (`serve --request-timeout`, docs/limits.md), or the request's
 * own `timeout` query parameter (a Go duration) when that is shorter. A `timeout` Go cannot parse is a 400 `invalid
 * timeout specified in the request URL - time: invalid duration "abc"`; `0` or a negative value is no wish of the
 * client's, and the server's timeout holds (upstream's `userSpecifiedTimeout > 0`). Long-running requests (watches,
 * which have `timeoutSeconds`, and the streaming subresources) take no deadline and their `timeout` is not read.
 * The deadline counts from the request's arrival and covers its wait in API Priority and Fairness's queues too: what
 * passes it is answered 504 `Timeout` (`filters/timeout.go`).
 */
import { Either } from "effect"
import { parseDuration } from "../../../src/api/go/Duration.js"
import * as Status from "../../../src/api/Status.js"
import type { ApiError } from "../../../src/api/Status.js"
import type { RequestInfo } from "../RequestInfo.js"

/** The streaming subresources upstream's `LongRunningFunc` names (`BasicLongRunningRequestCheck`). */
const longRunningSubresources: ReadonlySet<string> = new Set(["attach", "exec", "log", "portforward", "proxy"])

/** Upstream's long-running check: the verbs watch and proxy, and the streaming subresources of a resource. */
export const isLongRunning = (info: RequestInfo): boolean =>
  info.verb === "watch" || info.verb === "proxy" || (info.isResourceRequest && longRunningSubresources.has(info.subresource))

/**
 * How long the request may take from its arrival, in ms (`undefined`: no deadline — a long-running request, or a
 * server without a request timeout and a request without a `timeout` of its own), or the 400 for a malformed value.
 */
export const requestDeadline = (info: RequestInfo, query: URLSearchParams, serverTimeoutMs: number): Either.Either<number | undefined, ApiError> => {
  if (isLongRunning(info)) return Either.right(undefined)
  const server = serverTimeoutMs > 0 ? serverTimeoutMs : undefined
  // `url.Values.Get`: the first value; empty is none
  const value = query.get("timeout")
  if (value === null || value === "") return Either.right(server)
  const parsed = parseDuration(value)
  if (Either.isLeft(parsed)) return Either.left(Status.badRequest(`invalid timeout specified in the request URL - ${parsed.left}`))
  const asked = parsed.right
  return Either.right(asked > 0 && (server === undefined || asked < server) ? asked : server)
}

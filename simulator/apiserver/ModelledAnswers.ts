/**
 * What the clients timed by the service-time model share (`PoolTimedClient.ts`, `ApfTimedClient.ts`,
 * `WatchListBooking.ts`): a 429's answer, a served answer's status code, sleeps in whole microseconds, a call's
 * namespace and subresource for its APF attributes, and the server memory a served LIST holds (`RelistMemory.ts`).
 */
import { Cause, Effect, Either, type Exit, Option } from "effect"
import type { KList, KObject } from "../../src/api/Object.js"
import type { ListOptions, WriteOptions } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import type { Call } from "../../src/client/Transform.js"
import type { ClientError } from "../../src/client/TransportError.js"
import { storedItemsLength } from "./JsonLength.js"
import { listHeldBytes, type ListSource } from "./RelistMemory.js"
import { planList } from "./ResourceVersion.js"
import { RetryAfterSeconds, successCode, type ServiceTimeModel } from "./ServiceTimeModel.js"

export const rejected = (): ApiError => Status.tooManyRequests("Too many requests, please try again later.", RetryAfterSeconds)

/** The status code of an answer: `successCode` or the error's; none for a defect or an interruption. */
export const codeOf = (verb: string, answer: Either.Either<unknown, unknown> | Exit.Exit<unknown, unknown>): number | undefined => {
  if (answer._tag === "Right" || answer._tag === "Success") return successCode(verb)
  const error = answer._tag === "Left" ? answer.left : Option.getOrUndefined(Cause.failureOption(answer.cause))
  if (typeof error !== "object" || error === null || !("_tag" in error)) return undefined
  return (error as ClientError)._tag === "ApiError" ? ((error as ApiError).status.code ?? 500) : undefined
}

/** The time from `from` to `to` (ms) in whole microseconds, so the virtual clock stays on exact instants. */
export const untilMicros = (from: number, to: number): number => Math.round((to - from) * 1000) / 1000

/** Sleeps from `from` to `to` (ms), `untilMicros` of it. */
export const sleepUntil = (from: number, to: number): Effect.Effect<void> => {
  const ms = untilMicros(from, to)
  return ms > 0 ? Effect.sleep(ms) : Effect.void
}

/** The namespace a request is in: a PUT's comes from its object when the options give none. */
export const namespaceOf = (call: Call): string | undefined => call.opts?.namespace ?? (call.verb === "update" ? (call.body as KObject).metadata.namespace : undefined)

/** A write's subresource (reads and deletes name none). */
export const subresourceOf = (call: Call): string | undefined =>
  call.verb === "create" || call.verb === "update" || call.verb === "patch" ? (call.opts as WriteOptions | undefined)?.subresource : undefined

/** Where the cacher answers a LIST from (`planList`, the spec's table; an invalid one is refused and holds nothing). */
const listSource = (resource: ResourceType, opts: ListOptions | undefined): ListSource => {
  const plan = planList(opts ?? {}, resource.watchCached)
  return Either.isRight(plan) && (plan.right._tag === "Any" || plan.right._tag === "NotOlderThanCached") ? "cache" : "storage"
}

/** A served LIST's held bytes (`RelistMemory.ts`): its response, and from etcd the page as etcd returned it. */
export const listHeld = (model: ServiceTimeModel, resource: ResourceType, opts: ListOptions | undefined) => {
  const source = listSource(resource, opts)
  return (list: KList, start: number, end: number): void => {
    model.relistMemory.record("list", start, end, listHeldBytes(storedItemsLength(list.items), source))
  }
}

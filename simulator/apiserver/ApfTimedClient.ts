/**
 * A client whose calls take their modelled time on the `Clock` under API Priority and Fairness (`apfTimed`): each
 * booked at arrival with its expected size, waiting in its queue, answered with 429 when its level rejects it (and
 * retried as client-go does), its latency from the size it really had.
 */
import { Effect, Either, type Exit } from "effect"
import { parseFieldSelector } from "../../src/api/FieldSelector.js"
import type { KList, KObject } from "../../src/api/Object.js"
import type { GetOptions, ListOptions, WatchOptions } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import type { ApiError } from "../../src/api/Status.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { hasImmediateView } from "../../src/client/Capabilities.js"
import { isTooManyRequests, MaxRetries, retryTooManyRequests } from "../../src/client/TooManyRequests.js"
import type { ClientError } from "../../src/client/TransportError.js"
import { transform, type Call } from "../../src/client/Transform.js"
import { offersWatchChains, type OpenWatchChain } from "../../src/client/WatchPull.js"
import type { ApiServerImpl } from "./ApiServer.js"
import { listSeats } from "./apf/WorkEstimate.js"
import { pinnedIndexValue } from "./FieldIndex.js"
import { directServerOf } from "./InProcessClient.js"
import { storedJsonLength } from "./JsonLength.js"
import { defaultIdentity, type ModelIdentity, type ModelRequest } from "./ModelRequests.js"
import { codeOf, listHeld, namespaceOf, rejected, sleepUntil, subresourceOf } from "./ModelledAnswers.js"
import { approximateBytes, type RequestClass, type ServiceTimeModel } from "./ServiceTimeModel.js"
import { withWatchList } from "./WatchListBooking.js"

/** The seats of a LIST: from the objects it processes (the watch cache for rv "0" or no limit). */
const listRequestSeats = (model: ServiceTimeModel, resource: ResourceType, opts: ListOptions | undefined): number =>
  listSeats({
    stored: model.objectCount(resource),
    limit: opts?.limit,
    fromCache: opts?.resourceVersion === "0" || !(opts?.limit !== undefined && opts.limit > 0),
    selector: Boolean(opts?.labelSelector || opts?.fieldSelector)
  })

/**
 * A request booked and answered at once (nearly every read: dispatched on arrival, and the in-process server could
 * answer then): its answer, and when its service time ends (ms). The effect of such a request sleeps until `end`, then
 * gives `answer`.
 */
export class AnsweredAt<A> {
  constructor(
    readonly answer: Either.Either<A, ClientError>,
    readonly end: number
  ) {}
}

/**
 * One attempt of a request under APF at `now`, as far as it goes without waiting: booked at arrival with the size it is
 * expected to have (`estimate`: a LIST's objects from the stored count and its limit, the body of a write), waiting in
 * its queue, then sent to the server when dispatched; its latency counts the size it really had. A 429 comes when the
 * level answers it, and nothing reaches the server (a rejected request costs the simulator nothing, however often it
 * is retried).
 *
 * A read dispatched on arrival — nearly every one — is answered on the spot when the server can (`answerAt`: an
 * in-process server's immediate view, `ApiClientService.at`): `AnsweredAt`, the rest being one sleep; the server reads
 * at the same instant either way. Anything else is the effect of the rest of the attempt. Steps per request were most
 * of a modelled GET's cost (`bench/getPath.ts`, docs/benchmarks.md "With clients").
 */
const attemptAt = <A>(
  now: number,
  model: ServiceTimeModel,
  cls: RequestClass,
  request: ModelRequest,
  estimate: { readonly objects: number; readonly bytes: number },
  call: Effect.Effect<A, ClientError>,
  responseSize: (a: A) => { objects: number; bytes: number },
  answerAt?: (now: number) => Either.Either<A, ClientError> | undefined,
  onServed?: (a: A, start: number, end: number) => void
): AnsweredAt<A> | Effect.Effect<A, ClientError> => {
  const factor = model.factor(cls)
  const booked = model.book(now, cls, estimate.objects, estimate.bytes, request, factor)
  if ("rejectedAt" in booked) {
    if (request.verb !== "watch") model.observer?.served(request, 429, now, booked.rejectedAt, booked.rejectedAt)
    return Effect.zipRight(sleepUntil(now, booked.rejectedAt), Effect.failSync(rejected))
  }
  // a dispatched request once the server has answered: when its service time ends, from the size it really had
  const served = (answer: Either.Either<A, ClientError> | Exit.Exit<A, ClientError>): number => {
    const size =
      cls === "read" && answer._tag === "Right" ? responseSize(answer.right)
      : cls === "read" && answer._tag === "Success" ? responseSize(answer.value)
      : { objects: 0, bytes: estimate.bytes }
    const end = booked.start + model.serviceMs(cls, size.objects, size.bytes) * factor
    if (model.observer !== undefined && request.verb !== "watch") {
      const code = codeOf(request.verb, answer)
      if (code !== undefined) model.observer.served(request, code, now, booked.start, end)
    }
    if (onServed !== undefined && answer._tag === "Right") onServed(answer.right, booked.start, end)
    else if (onServed !== undefined && answer._tag === "Success") onServed(answer.value, booked.start, end)
    return end
  }
  const answered = booked.start === now ? answerAt?.(now) : undefined
  if (answered !== undefined) return new AnsweredAt(answered, served(answered))
  return Effect.flatMap(Effect.zipRight(sleepUntil(now, booked.start), Effect.exit(call)), (answer) =>
    Effect.zipRight(sleepUntil(booked.start, served(answer)), answer)
  )
}

/** The effect of an attempt from `now` on: an answer at once sleeps until its end. */
const rest = <A>(now: number, attempt: AnsweredAt<A> | Effect.Effect<A, ClientError>): Effect.Effect<A, ClientError> =>
  attempt instanceof AnsweredAt ? Effect.zipRight(sleepUntil(now, attempt.end), attempt.answer) : attempt

/** One request under APF in virtual time (`attemptAt`), retried after each 429 as client-go does. */
const apfTimed = <A>(
  model: ServiceTimeModel,
  cls: RequestClass,
  request: ModelRequest,
  estimate: { readonly objects: number; readonly bytes: number },
  call: Effect.Effect<A, ClientError>,
  responseSize: (a: A) => { objects: number; bytes: number },
  answerAt?: (now: number) => Either.Either<A, ClientError> | undefined,
  onServed?: (a: A, start: number, end: number) => void
): Effect.Effect<A, ClientError> =>
  retryTooManyRequests(
    Effect.clockWith((clock) => {
      const now = clock.unsafeCurrentTimeMillis()
      return rest(now, attemptAt(now, model, cls, request, estimate, call, responseSize, answerAt, onServed))
    })
  )

/**
 * `retryTooManyRequests(request)` whose first attempt was already made and went on as `first`: a 429 from it is
 * retried as the first attempt's would have been, with `request`.
 */
const retriedAfter = <A>(first: Effect.Effect<A, ClientError>, request: Effect.Effect<A, ClientError>): Effect.Effect<A, ClientError> =>
  Effect.catchIf(first, (e): e is ApiError => MaxRetries > 0 && isTooManyRequests(e), (e) =>
    Effect.zipRight(Effect.sleep((e.status.details?.retryAfterSeconds ?? 1) * 1000), Effect.suspend(() => retryTooManyRequests(request, MaxRetries - 1)))
  )

/** The answer of an in-process server at `now` without an effect (a read that must wait for a revision has none). */
const immediately = <A>(inner: ApiClientService, now: number, read: (client: ApiClientService) => Effect.Effect<A, ClientError>): Either.Either<A, ClientError> | undefined => {
  const client = hasImmediateView(inner) ? inner.at(now) : undefined
  if (client === undefined) return undefined
  const answer = read(client)
  return Either.isEither(answer) ? (answer as Either.Either<A, ClientError>) : undefined
}

/**
 * The objects a LIST is expected to process, for the time its seats are held: what is stored, at most its limit (all
 * stored with a selector); with a field selector pinning the type's indexed field (`spec.nodeName=x` for pods) only
 * the objects with that value, as upstream's watch cache reads its index for it (`FieldIndex.ts`). The seats stay
 * upstream's estimate from the stored count (`listRequestSeats`: `list_work_estimator.go` does not look at indexes).
 */
export const listEstimate = (model: ServiceTimeModel, resource: ResourceType, opts: ListOptions | undefined): { readonly objects: number; readonly bytes: number } => {
  const pinned = pinnedValueOf(resource, opts?.fieldSelector)
  const stored = pinned !== undefined ? model.indexedObjectCount(resource, pinned) : model.objectCount(resource)
  const limited = opts?.limit !== undefined && opts.limit > 0 && !(opts.resourceVersion === "0") ? Math.min(opts.limit, stored) : stored
  return { objects: pinned === undefined && (opts?.labelSelector || opts?.fieldSelector) ? stored : limited, bytes: 0 }
}

/** The value a LIST's field selector pins the indexed field to; none for an invalid selector (the server refuses it). */
const pinnedValueOf = (resource: ResourceType, fieldSelector: string | undefined): string | undefined => {
  if (!fieldSelector) return undefined
  const parsed = parseFieldSelector(fieldSelector, resource)
  return Either.isRight(parsed) ? pinnedIndexValue(resource, parsed.right) : undefined
}

const nothing = { objects: 0, bytes: 0 }
const one = { objects: 1, bytes: 0 }
const objectSize = (o: KObject) => ({ objects: 1, bytes: storedJsonLength(o) })
const listSize = (l: KList) => ({ objects: l.items.length, bytes: 0 })
const body = (value: unknown) => ({ objects: 0, bytes: approximateBytes(value) })

const none = () => ({ objects: 0, bytes: 0 })

/**
 * A modelled client's GET made at a given instant without an effect where it can be (`getAt`): a caller that keeps
 * its own timers, like the open loop of the hour with clients (`bench/cluster/OpenLoop.ts`), needs no fiber for a
 * request answered at once — a fiber, its sleep and its wake-up were most of a modelled GET's cost (docs/benchmarks.md
 * "With clients").
 */
export interface TimedReads {
  /**
   * The GET `get` would make if it started at `now` (the `Clock`'s reading): `AnsweredAt` when it is booked and
   * answered at once — the caller takes its answer at `end` — else the effect of the rest of it (a wait in its queue,
   * a 429 and client-go's retries), run from `now` on.
   */
  readonly getAt: (resource: ResourceType, name: string, opts: GetOptions | undefined, now: number) => AnsweredAt<KObject> | Effect.Effect<KObject, ClientError>
}

export const hasTimedReads = <C extends ApiClientService>(client: C): client is C & TimedReads => "getAt" in client

export const wrapClientApf = (inner: ApiClientService, model: ServiceTimeModel, identity: ModelIdentity = defaultIdentity): ApiClientService & TimedReads => {
  const getAt = (resource: ResourceType, name: string, opts: GetOptions | undefined, now: number): AnsweredAt<KObject> | Effect.Effect<KObject, ClientError> => {
    const send = (client: ApiClientService = inner) => client.get(resource, name, opts)
    const request = model.requests.of("get", resource, opts?.namespace, undefined, identity)
    const sent = Effect.suspend(() => send())
    const answerAt = (now: number) => immediately(inner, now, send)
    const first = attemptAt(now, model, "read", request, one, sent, objectSize, answerAt)
    // a 429 is retried, even one the server itself answered
    if (first instanceof AnsweredAt && !(first.answer._tag === "Left" && isTooManyRequests(first.answer.left))) return first
    return retriedAfter(rest(now, first), apfTimed(model, "read", request, one, sent, objectSize, answerAt))
  }
  const timed = withWatchList(transform(inner, {
    request: <A>(call: Call, send: (client?: ApiClientService) => Effect.Effect<A, ClientError>) => {
      const request = model.requests.of(call.verb, call.resource, namespaceOf(call), subresourceOf(call), identity)
      const sent = send()
      switch (call.verb) {
        case "get":
          return apfTimed(model, "read", request, one, sent, objectSize as (a: A) => { objects: number; bytes: number }, (now) => immediately(inner, now, send))
        case "list": {
          const opts = call.opts as ListOptions | undefined
          return apfTimed(
            model,
            "read",
            { ...request, seats: listRequestSeats(model, call.resource, opts) },
            listEstimate(model, call.resource, opts),
            sent,
            listSize as (a: A) => { objects: number; bytes: number },
            (now) => immediately(inner, now, send),
            listHeld(model, call.resource, opts) as (a: A, start: number, end: number) => void
          )
        }
        case "create":
        case "update":
        case "patch":
          return apfTimed(model, "mutating", request, body(call.body), sent, none)
        default:
          return apfTimed(model, "mutating", request, nothing, sent, none)
      }
    },
    beforeWatch: (call) => watchBooked(model, call.resource, call.opts as WatchOptions | undefined, identity)
  }), inner, model, identity)
  const client = { ...timed, getAt }
  const server = directServerOf(inner)
  if (server !== undefined) offersWatchChains(client, watchChains(server, model, identity))
  return client
}

/** A watch holds one seat while it is initialised (its start), then none: booked like a read of nothing. */
const watchBooked = (model: ServiceTimeModel, resource: ResourceType, opts: WatchOptions | undefined, identity: ModelIdentity): Effect.Effect<void, ClientError> =>
  apfTimed(model, "read", model.requests.of("watch", resource, opts?.namespace, undefined, identity), nothing, Effect.void, () => nothing)

const opensAtOnce = (): Either.Either<void, ClientError> => Either.right(undefined)

/**
 * `watchBooked` made at `now` without an effect where it can be: when the watch opens (ms), booked at once — its
 * effect would sleep until then — or the effect of the rest (a wait in its queue; a 429, retried as client-go does).
 */
const watchBookedAt = (model: ServiceTimeModel, resource: ResourceType, opts: WatchOptions | undefined, identity: ModelIdentity, now: number): number | Effect.Effect<void, ClientError> => {
  const request = model.requests.of("watch", resource, opts?.namespace, undefined, identity)
  const first = attemptAt(now, model, "read", request, nothing, Effect.void, () => nothing, opensAtOnce)
  if (first instanceof AnsweredAt) return first.end
  return retriedAfter(first, apfTimed(model, "read", request, nothing, Effect.void, () => nothing))
}

/**
 * The watches of a client over the in-process server read as chains (`WatchChain.ts`), each booked as `watchBooked`
 * books it; a WatchList is booked as `WatchListBooking.ts` books it, and read on its own.
 */
const watchChains = (server: ApiServerImpl, model: ServiceTimeModel, identity: ModelIdentity): OpenWatchChain => {
  return (resource, opts, take, again) =>
    opts?.sendInitialEvents === true
      ? undefined
      : server.openWatchChain(resource, opts ?? {}, take, again, {
          first: (next) => watchBooked(model, resource, next, identity),
          at: (next, now) => watchBookedAt(model, resource, next, identity, now)
        })
}

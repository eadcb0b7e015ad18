/**
 * A client whose calls take their modelled time on the `Clock` without API Priority and Fairness (`apf: false`): a
 * seat of the read or the mutating pool booked for the request part first, the answer's size added as extra service
 * time after it came (`ServiceTimeModel.admit`).
 */
import { Clock, Effect } from "effect"
import type { KList, KObject } from "../../src/api/Object.js"
import type { ListOptions } from "../../src/api/Requests.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import type { ClientError } from "../../src/client/TransportError.js"
import { transform, type Call, type Verb } from "../../src/client/Transform.js"
import { storedJsonLength } from "./JsonLength.js"
import { defaultIdentity, type ModelRequest } from "./ModelRequests.js"
import { codeOf, listHeld, namespaceOf, subresourceOf } from "./ModelledAnswers.js"
import { approximateBytes, type RequestClass, type ServiceTimeModel } from "./ServiceTimeModel.js"
import { withWatchList } from "./WatchListBooking.js"

const timed = <A, E>(
  model: ServiceTimeModel,
  cls: RequestClass,
  requestBytes: number,
  call: Effect.Effect<A, E>,
  responseSize: (a: A) => { objects: number; bytes: number },
  /** What the request is, for the model's observer (made only when there is one). */
  describe: () => ModelRequest,
  onServed?: (a: A, start: number, end: number) => void
): Effect.Effect<A, E> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    // The response size is only known afterwards, so a seat is booked for the request part first and the
    // response part is added as extra service time.
    const factor = model.factor(cls)
    const booked = model.admit(now, cls, 0, requestBytes, factor)
    const wait = Math.round(booked.start - now)
    if (wait > 0) yield* Effect.sleep(wait)
    const result = yield* Effect.exit(call)
    const extra = result._tag === "Success" ? responseSize(result.value) : { objects: 0, bytes: 0 }
    const p = model.params
    const service = booked.end - booked.start + (p.perObjectMs * extra.objects + (p.perKiBMs * extra.bytes) / 1024) * factor
    // Whole microseconds keep the virtual clock on nanosecond-exact instants.
    const sleep = Math.round(service * 1000) / 1000
    if (result._tag === "Success") onServed?.(result.value, booked.start, booked.start + service)
    if (model.observer !== undefined) {
      const request = describe()
      const code = codeOf(request.verb, result)
      if (code !== undefined) model.observer.served(request, code, now, booked.start, booked.start + service)
    }
    if (sleep > 0) yield* Effect.sleep(sleep)
    return yield* result
  })

/** The class of a request by its verb: GET and LIST read, everything else is mutating. */
const classOf = (verb: Verb): RequestClass => (verb === "get" || verb === "list" || verb === "watch" ? "read" : "mutating")

/** What a request's answer adds to its service time: a GET's object, a LIST's (or deleted collection's) items. */
const answerSize = (verb: Verb, answer: unknown): { objects: number; bytes: number } =>
  verb === "get" ? { objects: 1, bytes: storedJsonLength(answer as KObject) }
  : verb === "list" || verb === "deletecollection" ? { objects: (answer as KList).items.length, bytes: 0 }
  : { objects: 0, bytes: 0 }

export const wrapClient = <C extends ApiClientService>(inner: C, model: ServiceTimeModel): ApiClientService =>
  withWatchList(
    transform(inner, {
      request: <A>(call: Call, send: (client?: ApiClientService) => Effect.Effect<A, ClientError>) =>
        timed(
          model,
          classOf(call.verb),
          call.body === undefined ? 0 : approximateBytes(call.body),
          send(),
          (a) => answerSize(call.verb, a),
          () => model.requests.of(call.verb, call.resource, namespaceOf(call), subresourceOf(call)),
          call.verb === "list" ? (listHeld(model, call.resource, call.opts as ListOptions | undefined) as (a: A, start: number, end: number) => void) : undefined
        )
    }),
    inner,
    model,
    defaultIdentity
  )

/**
 * A simple API-server service-time model for virtual time. Latencies of simulated runs come from here, not from
 * how long the in-process server takes on the host.
 *
 * Model (all parameters are scenario settings, `cluster.serviceTime`):
 * - a request costs `readBaseMs` (GET, LIST) or `writeBaseMs` (everything else) + `perObjectMs` × objects returned
 *   + `perKiBMs` × KiB of body (request body for writes, the object for a GET; lists are charged per object only);
 * - requests occupy one seat of their class while served: `max-requests-inflight` seats (default 400) for reads,
 *   `max-mutating-requests-inflight` seats (default 200) for writes. With every seat taken a request waits, FIFO,
 *   for the first seat to free (a queue rather than upstream's 429: the simulated clients would only retry);
 * - latency = wait + service time. Nothing random by default: same requests ⇒ same latencies. With
 *   `readDispersion` / `writeDispersion` (p99 ÷ p50 of a class's service time, fitted by `clustersim calibrate`,
 *   docs/calibration.md) each request's service time is multiplied by a log-normal factor of median 1 drawn from the
 *   seeded random service — a real server's times are spread (GC pauses, event-loop turns), a fixed cost is not;
 * - with `apf` (default true, as API Priority and Fairness is on in 1.26) the seats are instead those of the
 *   priority levels (`apf/PriorityAndFairness.ts`, docs/apf.md): a request is classified, may queue, and is
 *   rejected with 429 when its queues are full; clients retry as client-go does (`src/client/TooManyRequests.ts`);
 * - with `sharedSeats` reads and writes take their seats from one pool of that many — a server that answers every
 *   request on one thread (an event loop: `clustersim serve`; `clustersim calibrate` detects one) makes a write wait
 *   behind a LIST — instead of the two pools or APF's priority levels (such a server has neither).
 *
 * - the server memory LISTs and WatchLists hold while answered (`RelistMemory.ts`, docs/watchlist.md): recorded for
 *   every one, reported in the result with `relistMemory: true`.
 *
 * `ServiceTimeModel.complete` is pure bookkeeping for callers that keep their own clock (the node-agent shards, through
 * `BookedClient.ts`): when a request ends, or that it was given up after client-go's 429 retries (never sent);
 * `layerClient` wraps an `ApiClient` so that each call takes its modelled time on the `Clock` (virtual or real).
 */
import { Cause, Chunk, Clock, Context, Effect, Either, type Exit, Layer, Option, Schema, type Scope, Stream } from "effect"
import { parseFieldSelector } from "../../src/api/FieldSelector.js"
import type { KList, KObject, WatchEvent } from "../../src/api/Object.js"
import type { ListOptions, WatchOptions, WriteOptions } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { MaxRetries, retryTooManyRequests } from "../../src/client/TooManyRequests.js"
import { hasImmediateView, hasWatchPulls, type WatchPull, type WatchPulls } from "../../src/client/Capabilities.js"
import { openWatchPull } from "../../src/client/WatchPull.js"
import { transform, type Call, type Verb } from "../../src/client/Transform.js"
import { PriorityAndFairness } from "./apf/PriorityAndFairness.js"
import { SeatHeap } from "./SeatHeap.js"
import { listSeats, watchSeats } from "./apf/WorkEstimate.js"
import { jsonLength, storedItemsLength, storedJsonLength } from "./JsonLength.js"
import { defaultIdentity, ModelRequests, type ModelIdentity, type ModelRequest } from "./ModelRequests.js"
import { pinnedIndexValue } from "./FieldIndex.js"
import * as SeededRandom from "../kernel/SeededRandom.js"
import type { ClientError } from "../../src/client/TransportError.js"
import { listHeldBytes, RelistMemory, watchListHeldBytes, type ListSource } from "./RelistMemory.js"
import { planList } from "./ResourceVersion.js"

/** p99 ÷ p50 of a request class's service time: at least 1 (1: every request of the class costs the same). */
const Dispersion = Schema.Number.pipe(Schema.finite(), Schema.greaterThanOrEqualTo(1, { message: () => "expected a number ≥ 1 (p99 ÷ p50 of the service time; 1: no dispersion)" }))

const ServiceTimeFields = Schema.Struct({
  readBaseMs: Schema.optional(Schema.NonNegative),
  writeBaseMs: Schema.optional(Schema.NonNegative),
  perObjectMs: Schema.optional(Schema.NonNegative),
  perKiBMs: Schema.optional(Schema.NonNegative),
  maxRequestsInflight: Schema.optional(Schema.Int.pipe(Schema.positive())),
  maxMutatingRequestsInflight: Schema.optional(Schema.Int.pipe(Schema.positive())),
  /** API Priority and Fairness (default true, as in 1.26); false: the two inflight pools, FIFO, no 429. */
  apf: Schema.optional(Schema.Boolean),
  readDispersion: Schema.optional(Dispersion.annotations({ description: "p99 ÷ p50 of a read's service time, a log-normal spread (default 1: none; fitted by clustersim calibrate)" })),
  writeDispersion: Schema.optional(Dispersion.annotations({ description: "p99 ÷ p50 of a write's service time, a log-normal spread (default 1: none; fitted by clustersim calibrate)" })),
  sharedSeats: Schema.optional(
    Schema.Int.pipe(Schema.positive()).annotations({
      description: "reads and writes share one pool of this many seats, without API Priority and Fairness (a server on one event loop: 1; detected by clustersim calibrate)"
    })
  ),
  relistMemory: Schema.optional(
    Schema.Boolean.annotations({
      description: "report the server memory LISTs and WatchLists hold while answered, and its peak (serverModel.relistMemory, docs/watchlist.md); default false"
    })
  )
})

export const ServiceTimeSettings = ServiceTimeFields.pipe(
  Schema.filter((s) =>
    s.sharedSeats !== undefined && s.apf === true
      ? { path: ["sharedSeats"], message: "one shared pool replaces API Priority and Fairness's priority levels: leave apf out or set it to false" }
      : undefined
  )
)
export type ServiceTimeSettings = typeof ServiceTimeSettings.Type

export interface ServiceTimeParameters {
  readonly readBaseMs: number
  readonly writeBaseMs: number
  readonly perObjectMs: number
  readonly perKiBMs: number
  readonly maxRequestsInflight: number
  readonly maxMutatingRequestsInflight: number
  readonly apf: boolean
  /** Unset unless a scenario sets them, so that results without them stay as they were. */
  readonly readDispersion?: number
  readonly writeDispersion?: number
  readonly sharedSeats?: number
  /** Report the relists' server memory (`RelistMemory.ts`) in the result; unset unless a scenario asks, as above. */
  readonly relistMemory?: boolean
}

/** Defaults: a 1 ms read, a 2 ms write (an etcd round trip), 5 µs per listed object, 10 µs per KiB. */
export const defaultParameters: ServiceTimeParameters = {
  readBaseMs: 1,
  writeBaseMs: 2,
  perObjectMs: 0.005,
  perKiBMs: 0.01,
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200,
  apf: true
}

export const parameters = (settings: ServiceTimeSettings | undefined): ServiceTimeParameters => ({
  ...defaultParameters,
  // one shared pool has no priority levels: APF is off unless asked for (which the schema refuses)
  ...(settings?.sharedSeats !== undefined ? { apf: false } : {}),
  ...Object.fromEntries(Object.entries(settings ?? {}).filter(([, v]) => v !== undefined))
})

export type RequestClass = "read" | "mutating"

export interface Admission {
  /** When service started (after any wait for a seat), ms. */
  readonly start: number
  /** When the response is complete, ms. */
  readonly end: number
}

export type { ModelRequest } from "./ModelRequests.js"

/**
 * When a request booked with `ServiceTimeModel.complete` answers, and whether it was given up after 429s. The caller's
 * own record, written by each booking: a caller booking thousands of requests a second keeps one and reuses it
 * (`BookedClient.ts`), so a booking allocates nothing.
 */
export class Completion {
  /** Its answer's instant; given up: when its last 429 was answered. */
  end = 0
  /** 429 on every one of client-go's retries: a failed request, never sent (docs/apf.md). */
  givenUp = false
}

/**
 * Told of each request the model answers — dispatched (`start`: after its wait for seats) or rejected with 429
 * (`start` = `end`: when the 429 is answered) — in virtual ms: the modelled server's request metrics
 * (`ModelledRequestMetrics.ts`, `run --metrics-out`). Watches are not reported (long-running: no duration to model).
 */
export interface ServedRequestObserver {
  served(request: ModelRequest, code: number, arrival: number, start: number, end: number): void
}

/** The status a served request answers with: 201 for a create (upstream's `Created`), 200 for the rest. */
export const successCode = (verb: string): number => (verb === "create" ? 201 : 200)

/** The standard normal's 99th percentile: a log-normal factor of median 1 and p99 d has σ = ln d / z99. */
const Z99 = 2.3263478740408408

/**
 * Per request class, the service-time factor of one request: log-normal, median 1, p99 = the class's dispersion
 * (a standard normal from two uniforms, Box–Muller). Without dispersion nothing is drawn, so the seeded stream of a
 * run without it is untouched.
 */
export const dispersionFactor = (dispersion: number | undefined, uniform: () => number): number => {
  if (dispersion === undefined || dispersion <= 1) return 1
  const u1 = 1 - uniform() // in (0, 1]: the logarithm stays finite
  const u2 = uniform()
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2)
  return Math.exp((Math.log(dispersion) / Z99) * z)
}

/** The dispersion draws' source in a run: their own split of the run's seeded random service. */
export const uniformOf = (random: SeededRandom.SeededRandomService): (() => number) => {
  const own = random.split("service-time")
  return () => own.next()
}

export class ServiceTimeModel {
  private readonly reads: SeatHeap
  private readonly writes: SeatHeap
  /** With `apf`: the priority levels that replace the two pools. */
  readonly apf: PriorityAndFairness | undefined
  /** Objects of a type stored now, for LIST seats (the server's object count); 0 until the server is known. */
  objectCount: (resource: ResourceType) => number = () => 0
  /**
   * Objects of a type whose indexed field (`FieldIndex.ts`) has `value` now: what a LIST pinned to it processes,
   * served from the watch cache's index; 0 until the server is known.
   */
  indexedObjectCount: (resource: ResourceType, value: string) => number = () => 0
  /**
   * Node-agent requests (`complete`) rejected with 429 on every try: client-go gives up after its retries, so each
   * failed and was never sent (docs/apf.md); counted so that a run with any never reports a met goal.
   */
  givenUp = 0
  /** The APF attributes of the requests booked so far, classified once each (this run's own). */
  readonly requests = new ModelRequests()
  /** The modelled server's metrics, when a run writes them (`run --metrics-out`); undefined costs one check per request. */
  observer: ServedRequestObserver | undefined = undefined
  /** What the relists' reads hold in server memory while answered (`RelistMemory.ts`, docs/watchlist.md). */
  readonly relistMemory = new RelistMemory()

  /**
   * `uniform`: the run's seeded source for the dispersion draws (a split of `SeededRandom`); a fixed seed when none
   * is given, so a model is reproducible wherever it is made.
   */
  constructor(
    readonly params: ServiceTimeParameters = defaultParameters,
    private readonly uniform: () => number = uniformOf(SeededRandom.make(0))
  ) {
    this.reads = new SeatHeap(params.sharedSeats ?? params.maxRequestsInflight)
    this.writes = params.sharedSeats !== undefined ? this.reads : new SeatHeap(params.maxMutatingRequestsInflight)
    this.apf = params.apf && params.sharedSeats === undefined ? new PriorityAndFairness(params.maxRequestsInflight + params.maxMutatingRequestsInflight) : undefined
  }

  /**
   * Books a request through API Priority and Fairness (when on; the pools otherwise): its start and end, or the
   * instant its 429 is answered.
   */
  book(at: number, cls: RequestClass, objects: number, bytes: number, request: ModelRequest, factor: number = this.factor(cls)): Admission | { readonly rejectedAt: number } {
    if (this.apf === undefined) return this.admit(at, cls, objects, bytes, factor)
    const booking = this.apf.book(at, request, request.seats ?? 1, this.serviceMs(cls, objects, bytes) * factor)
    return booking._tag === "Dispatched" ? booking : { rejectedAt: booking.at }
  }

  /** One request's service-time factor (1 without dispersion; `dispersionFactor`). */
  factor(cls: RequestClass): number {
    return dispersionFactor(cls === "read" ? this.params.readDispersion : this.params.writeDispersion, this.uniform)
  }

  /** Median service time of one request, without waiting (× `factor` for one request's). */
  serviceMs(cls: RequestClass, objects: number, bytes: number): number {
    const p = this.params
    return (cls === "read" ? p.readBaseMs : p.writeBaseMs) + p.perObjectMs * objects + (p.perKiBMs * bytes) / 1024
  }

  /**
   * Books a request arriving at `at` (ms). Callers must arrive in non-decreasing `at` order per class for the FIFO
   * to hold; a late arrival is served as if it came at its time (seats are only ever free earlier than now).
   */
  admit(at: number, cls: RequestClass, objects: number, bytes: number, factor: number = this.factor(cls)): Admission {
    const service = this.serviceMs(cls, objects, bytes) * factor
    const start = (cls === "read" ? this.reads : this.writes).takeEarliest(at, service)
    return { start, end: start + service }
  }

  /**
   * When a request arriving at `at` ends (`admit(…).end`, for callers that keep their own clock). With APF the
   * request is booked as `request` and retried after each 429 as client-go does (1 s, at most 10 times); one rejected
   * every time is given up (counted in `givenUp`) and answers when its last 429 was answered — a failed request,
   * which never reached the server. Written into `into`, the caller's record (a new one when it keeps none).
   */
  complete(at: number, cls: RequestClass, objects: number, bytes: number, request?: ModelRequest, into: Completion = new Completion()): Completion {
    into.givenUp = false
    if (this.apf === undefined || request === undefined) {
      const service = this.serviceMs(cls, objects, bytes) * this.factor(cls)
      const start = (cls === "read" ? this.reads : this.writes).takeEarliest(at, service)
      if (request !== undefined) this.observer?.served(request, successCode(request.verb), at, start, start + service)
      into.end = start + service
      return into
    }
    let arrival = at
    const serviceMs = this.serviceMs(cls, objects, bytes) * this.factor(cls)
    for (let attempt = 0; ; attempt++) {
      const booked = this.apf.place(arrival, request, request.seats ?? 1, serviceMs)
      if (booked._tag === "Dispatched") {
        this.observer?.served(request, successCode(request.verb), arrival, booked.start, booked.end)
        into.end = booked.end
        return into
      }
      this.observer?.served(request, 429, arrival, booked.at, booked.at)
      if (attempt === MaxRetries) {
        this.givenUp++
        into.end = booked.at
        into.givenUp = true
        return into
      }
      arrival = booked.at + RetryAfterSeconds * 1000
    }
  }
}

export class ServiceTime extends Context.Tag("clustersim/apiserver/ServiceTime")<ServiceTime, ServiceTimeModel>() {
  static readonly layer = (settings?: ServiceTimeSettings): Layer.Layer<ServiceTime> =>
    Layer.sync(ServiceTime, () => new ServiceTimeModel(parameters(settings)))

  /**
   * Wraps the `ApiClient` of the context: each call waits for its modelled latency on the `Clock` (the wait for a
   * seat before the call reaches the server, the service time after). Watches are passed through unchanged.
   */
  static readonly layerClient: Layer.Layer<ApiClient, never, ApiClient | ServiceTime> = Layer.effect(
    ApiClient,
    Effect.gen(function* () {
      const inner = yield* ApiClient
      const model = yield* ServiceTime
      return modelledClient(inner, model)
    })
  )
}

/**
 * `inner` with each call's modelled latency, booked with API Priority and Fairness as `identity`'s requests (the
 * simulation's own user by default; without APF the identity changes nothing).
 */
export const modelledClient = (inner: ApiClientService, model: ServiceTimeModel, identity?: ModelIdentity): ApiClientService =>
  // a shared pool books a request's whole expected time (a LIST's objects too) before it runs, as APF does
  model.apf === undefined && model.params.sharedSeats === undefined ? wrapClient(inner, model) : wrapClientApf(inner, model, identity)

/** Rough body size: JSON length (bytes for ASCII, which API objects nearly always are), measured without the string. */
export const approximateBytes = (value: unknown): number => jsonLength(value)

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

const none = () => ({ objects: 0, bytes: 0 })

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

/**
 * `wrapped` with its WatchLists (`sendInitialEvents=true`) modelled as `watchListPull` books them, on `inner`; every
 * other watch as `wrapped` has it.
 */
const withWatchList = (wrapped: ApiClientService, inner: ApiClientService, model: ServiceTimeModel, identity: ModelIdentity): ApiClientService => {
  const watch: ApiClientService["watch"] = (resource, opts) =>
    opts?.sendInitialEvents === true ? Stream.unwrapScoped(Effect.map(watchListPull(inner, model, resource, opts, identity), pullStream)) : wrapped.watch(resource, opts)
  if (!hasWatchPulls(wrapped)) return { ...wrapped, watch }
  const withPulls: ApiClientService & WatchPulls = {
    ...wrapped,
    watch,
    pullWatch: (resource: ResourceType, opts?: WatchOptions) => (opts?.sendInitialEvents === true ? watchListPull(inner, model, resource, opts, identity) : wrapped.pullWatch(resource, opts))
  }
  return withPulls
}

/** API Priority and Fairness answers a full queue with Retry-After: 1 (kube-apiserver's `tooManyRequests`). */
export const RetryAfterSeconds = 1

const rejected = (): ApiError => Status.tooManyRequests("Too many requests, please try again later.", RetryAfterSeconds)

/** The status code of an answer: `successCode` or the error's; none for a defect or an interruption. */
const codeOf = (verb: string, answer: Either.Either<unknown, unknown> | Exit.Exit<unknown, unknown>): number | undefined => {
  if (answer._tag === "Right" || answer._tag === "Success") return successCode(verb)
  const error = answer._tag === "Left" ? answer.left : Option.getOrUndefined(Cause.failureOption(answer.cause))
  if (typeof error !== "object" || error === null || !("_tag" in error)) return undefined
  return (error as ClientError)._tag === "ApiError" ? ((error as ApiError).status.code ?? 500) : undefined
}

/** The seats of a LIST: from the objects it processes (the watch cache for rv "0" or no limit). */
const listRequestSeats = (model: ServiceTimeModel, resource: ResourceType, opts: ListOptions | undefined): number =>
  listSeats({
    stored: model.objectCount(resource),
    limit: opts?.limit,
    fromCache: opts?.resourceVersion === "0" || !(opts?.limit !== undefined && opts.limit > 0),
    selector: Boolean(opts?.labelSelector || opts?.fieldSelector)
  })

/**
 * One request under APF in virtual time: booked at arrival with the size it is expected to have (`estimate`: a
 * LIST's objects from the stored count and its limit, the body of a write), waiting in its queue, then sent to the
 * server when dispatched; its latency counts the size it really had. A 429 comes when the level answers it, and
 * nothing reaches the server (a rejected request costs the simulator nothing, however often it is retried).
 *
 * A read dispatched on arrival — nearly every one — is answered on the spot when the server can (`answerAt`: an
 * in-process server's immediate view, `ApiClientService.at`), so the request is one booking and one sleep; the
 * server reads at the same instant either way. Steps per request were most of a modelled GET's cost
 * (`bench/getPath.ts`, docs/benchmarks.md "With clients").
 */
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
      const factor = model.factor(cls)
      const booked = model.book(now, cls, estimate.objects, estimate.bytes, request, factor)
      if ("rejectedAt" in booked) {
        if (request.verb !== "watch") model.observer?.served(request, 429, now, booked.rejectedAt, booked.rejectedAt)
        return Effect.zipRight(sleepUntil(now, booked.rejectedAt), Effect.failSync(rejected))
      }
      // the rest of a dispatched request once the server has answered: its service time, from the size it really had
      const served = (answer: Either.Either<A, ClientError> | Exit.Exit<A, ClientError>): Effect.Effect<A, ClientError> => {
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
        return Effect.zipRight(sleepUntil(booked.start, end), answer)
      }
      const answered = booked.start === now ? answerAt?.(now) : undefined
      if (answered !== undefined) return served(answered)
      return Effect.flatMap(Effect.zipRight(sleepUntil(now, booked.start), Effect.exit(call)), served)
    })
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

/** Sleeps from `from` to `to` (ms), in whole microseconds so the virtual clock stays on exact instants. */
const sleepUntil = (from: number, to: number): Effect.Effect<void> => {
  const ms = Math.round((to - from) * 1000) / 1000
  return ms > 0 ? Effect.sleep(ms) : Effect.void
}

/** The namespace a request is in: a PUT's comes from its object when the options give none. */
const namespaceOf = (call: Call): string | undefined => call.opts?.namespace ?? (call.verb === "update" ? (call.body as KObject).metadata.namespace : undefined)

/** A write's subresource (reads and deletes name none). */
const subresourceOf = (call: Call): string | undefined =>
  call.verb === "create" || call.verb === "update" || call.verb === "patch" ? (call.opts as WriteOptions | undefined)?.subresource : undefined

export const wrapClientApf = (inner: ApiClientService, model: ServiceTimeModel, identity: ModelIdentity = defaultIdentity): ApiClientService =>
  withWatchList(transform(inner, {
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

/** A watch holds one seat while it is initialised (its start), then none: booked like a read of nothing. */
const watchBooked = (model: ServiceTimeModel, resource: ResourceType, opts: WatchOptions | undefined, identity: ModelIdentity): Effect.Effect<void, ClientError> =>
  apfTimed(model, "read", model.requests.of("watch", resource, opts?.namespace, undefined, identity), nothing, Effect.void, () => nothing)

/** Where the cacher answers a LIST from (`planList`, the spec's table; an invalid one is refused and holds nothing). */
const listSource = (resource: ResourceType, opts: ListOptions | undefined): ListSource => {
  const plan = planList(opts ?? {}, resource.watchCached)
  return Either.isRight(plan) && (plan.right._tag === "Any" || plan.right._tag === "NotOlderThanCached") ? "cache" : "storage"
}

/** A served LIST's held bytes (`RelistMemory.ts`): its response, and from etcd the page as etcd returned it. */
const listHeld = (model: ServiceTimeModel, resource: ResourceType, opts: ListOptions | undefined) => {
  const source = listSource(resource, opts)
  return (list: KList, start: number, end: number): void => {
    model.relistMemory.record("list", start, end, listHeldBytes(storedItemsLength(list.items), source))
  }
}

/** The annotation of the bookmark that ends a WatchList's initial events (upstream `metav1.InitialEventsAnnotationKey`). */
const initialEventsEnd = "k8s.io/initial-events-end"

const isInitialEventsEnd = (event: WatchEvent): boolean => event.type === "BOOKMARK" && event.object.metadata.annotations?.[initialEventsEnd] === "true"

/**
 * A WatchList (`sendInitialEvents=true`) in the model: booked as upstream's estimator books it (`watchSeats`: a LIST
 * from the cache's seats, for the time producing every stored object takes), opened when dispatched; its initial
 * events pass as the server sends them, and the bookmark that ends them is held until that time is over — a
 * streamed relist takes the same server time as a LIST of the same objects, only its memory differs: a full result
 * channel of them at most (`watchListHeldBytes`), recorded when the end bookmark passes. Rejected with 429 as a LIST
 * would be, and retried as client-go does.
 */
const watchListPull = (
  inner: ApiClientService,
  model: ServiceTimeModel,
  resource: ResourceType,
  opts: WatchOptions,
  identity: ModelIdentity
): Effect.Effect<WatchPull, ClientError, Scope.Scope> => {
  const request = { ...model.requests.of("watch", resource, opts.namespace, undefined, identity), seats: watchSeats({ stored: model.objectCount(resource), sendInitialEvents: true }) }
  const booking = retryTooManyRequests(
    Effect.clockWith((clock) => {
      const now = clock.unsafeCurrentTimeMillis()
      const booked = model.book(now, "read", model.objectCount(resource), 0, request)
      if ("rejectedAt" in booked) return Effect.zipRight(sleepUntil(now, booked.rejectedAt), Effect.failSync(rejected))
      return Effect.as(sleepUntil(now, booked.start), booked)
    })
  )
  return Effect.flatMap(booking, (booked) =>
    Effect.map(openWatchPull(inner, resource, opts), (pull): WatchPull => {
      let objects = 0
      let bytes = 0
      let streaming = true
      /** The end bookmark and what came after it in its batch, held until the initial events' time is over. */
      let held: Chunk.Chunk<WatchEvent> | undefined
      const release = (rest: Chunk.Chunk<WatchEvent>) => {
        held = undefined
        model.relistMemory.record("watchList", booked.start, booked.end, watchListHeldBytes(objects, bytes))
        return Effect.as(Effect.clockWith((clock) => sleepUntil(clock.unsafeCurrentTimeMillis(), booked.end)), rest)
      }
      const next: WatchPull = Effect.suspend(() => {
        if (held !== undefined) return release(held)
        if (!streaming) return pull
        return Effect.flatMap(pull, (batch) => {
          let end = -1
          let i = 0
          for (const event of batch) {
            if (event.type === "ADDED") {
              objects++
              bytes += storedJsonLength(event.object)
            } else if (isInitialEventsEnd(event)) {
              end = i
              break
            }
            i++
          }
          if (end < 0) return Effect.succeed(batch)
          streaming = false
          // the initial events before the bookmark pass at once (a stream's first events come early)
          if (end === 0) return release(batch)
          held = Chunk.drop(batch, end)
          return Effect.succeed(Chunk.take(batch, end))
        })
      })
      return next
    })
  )
}

const pullStream = (pull: WatchPull): Stream.Stream<WatchEvent, ClientError> => Stream.repeatEffectChunkOption(pull)

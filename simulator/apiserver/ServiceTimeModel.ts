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
 * `BookedClient.ts`): when a request ends, or that it was given up after client-go's 429 retries (never sent).
 * Clients whose calls take their modelled time on the `Clock`: `PoolTimedClient.ts` (the two pools, or one shared),
 * `ApfTimedClient.ts` (API Priority and Fairness), made by `ServiceTime.ts`.
 */
import { Schema } from "effect"
import type { ResourceType } from "../../src/api/Resources.js"
import { MaxRetries } from "../../src/client/TooManyRequests.js"
import { PriorityAndFairness } from "./apf/PriorityAndFairness.js"
import { SeatHeap } from "./SeatHeap.js"
import { jsonLength } from "./JsonLength.js"
import { ModelRequests, type ModelRequest } from "./ModelRequests.js"
import * as SeededRandom from "../kernel/SeededRandom.js"
import { RelistMemory } from "./RelistMemory.js"

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
    // its own message: without one, effect's would print the description as the expectation
    Schema.Int.pipe(Schema.positive({ message: (issue) => `expected a positive integer (seats of the one shared pool), got ${String(issue.actual)}` })).annotations({
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
    return this.completeFor(at, cls, this.serviceMs(cls, objects, bytes) * this.factor(cls), request, into)
  }

  /**
   * `complete` of a request whose service time is drawn (`serviceMs` × `factor`): for a caller that tried
   * `completeAtOnce` first, so that the request draws its factor once.
   */
  completeFor(at: number, cls: RequestClass, serviceMs: number, request: ModelRequest | undefined, into: Completion): Completion {
    into.givenUp = false
    if (this.apf === undefined || request === undefined) {
      const start = (cls === "read" ? this.reads : this.writes).takeEarliest(at, serviceMs)
      if (request !== undefined) this.observer?.served(request, successCode(request.verb), at, start, start + serviceMs)
      into.end = start + serviceMs
      return into
    }
    let arrival = at
    if (this.observer === undefined) {
      // most requests start at once: no `Booking` made (`PriorityAndFairness.placeAtOnce`)
      const end = this.apf.placeAtOnce(arrival, request, request.seats ?? 1, serviceMs)
      if (end === end) {
        into.end = end
        return into
      }
    }
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

  /**
   * `completeFor` of a request that starts at once, as it books one, without reading the request (a node agent's
   * record, a likely cache miss per booking: docs/benchmarks.md): true when booked so, its end in `into`; false with
   * nothing booked when it would wait or be rejected, or when an observer is to be told of it — then `completeFor`
   * books it. `level`: with APF, the request's priority level (its classification's) for one seat; -1 when not known.
   */
  completeAtOnce(at: number, cls: RequestClass, level: number, serviceMs: number, into: Completion): boolean {
    if (this.observer !== undefined) return false
    const apf = this.apf
    let end: number
    if (apf === undefined) end = (cls === "read" ? this.reads : this.writes).takeEarliest(at, serviceMs) + serviceMs
    else {
      if (level < 0) return false
      end = apf.placeAtOnceIn(at, level, 1, serviceMs)
      // NaN: it would wait or be rejected
      if (end !== end) return false
    }
    into.givenUp = false
    into.end = end
    return true
  }
}

/** API Priority and Fairness answers a full queue with Retry-After: 1 (kube-apiserver's `tooManyRequests`). */
export const RetryAfterSeconds = 1

/** Rough body size: JSON length (bytes for ASCII, which API objects nearly always are), measured without the string. */
export const approximateBytes = (value: unknown): number => jsonLength(value)

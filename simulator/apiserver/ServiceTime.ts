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
 * - latency = wait + service time. Nothing random: same requests ⇒ same latencies.
 *
 * `ServiceTimeModel.admit` is pure bookkeeping for callers that batch work (the node-agent shards); `layerClient`
 * wraps an `ApiClient` so that each call takes its modelled time on the `Clock` (virtual or real).
 */
import { Clock, Context, Effect, Layer, Schema } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"

export const ServiceTimeSettings = Schema.Struct({
  readBaseMs: Schema.optional(Schema.NonNegative),
  writeBaseMs: Schema.optional(Schema.NonNegative),
  perObjectMs: Schema.optional(Schema.NonNegative),
  perKiBMs: Schema.optional(Schema.NonNegative),
  maxRequestsInflight: Schema.optional(Schema.Int.pipe(Schema.positive())),
  maxMutatingRequestsInflight: Schema.optional(Schema.Int.pipe(Schema.positive()))
})
export type ServiceTimeSettings = typeof ServiceTimeSettings.Type

export interface ServiceTimeParameters {
  readonly readBaseMs: number
  readonly writeBaseMs: number
  readonly perObjectMs: number
  readonly perKiBMs: number
  readonly maxRequestsInflight: number
  readonly maxMutatingRequestsInflight: number
}

/** Defaults: a 1 ms read, a 2 ms write (an etcd round trip), 5 µs per listed object, 10 µs per KiB. */
export const defaultParameters: ServiceTimeParameters = {
  readBaseMs: 1,
  writeBaseMs: 2,
  perObjectMs: 0.005,
  perKiBMs: 0.01,
  maxRequestsInflight: 400,
  maxMutatingRequestsInflight: 200
}

export const parameters = (settings: ServiceTimeSettings | undefined): ServiceTimeParameters => ({
  ...defaultParameters,
  ...Object.fromEntries(Object.entries(settings ?? {}).filter(([, v]) => v !== undefined))
})

export type RequestClass = "read" | "mutating"

export interface Admission {
  /** When service started (after any wait for a seat), ms. */
  readonly start: number
  /** When the response is complete, ms. */
  readonly end: number
}

/** A min-heap of seat free times: the earliest free seat is at the top. */
class Seats {
  private readonly free: Float64Array
  constructor(count: number) {
    this.free = new Float64Array(count)
  }
  /** Takes the earliest free seat for a request arriving at `at` lasting `service`; returns its start. */
  take(at: number, service: number): number {
    const heap = this.free
    const start = Math.max(at, heap[0]!)
    // replace the top with the new free time and sift down
    const value = start + service
    const n = heap.length
    let i = 0
    for (;;) {
      const l = 2 * i + 1
      if (l >= n) break
      const r = l + 1
      const c = r < n && heap[r]! < heap[l]! ? r : l
      if (heap[c]! >= value) break
      heap[i] = heap[c]!
      i = c
    }
    heap[i] = value
    return start
  }
}

export class ServiceTimeModel {
  private readonly reads: Seats
  private readonly writes: Seats
  constructor(readonly params: ServiceTimeParameters = defaultParameters) {
    this.reads = new Seats(params.maxRequestsInflight)
    this.writes = new Seats(params.maxMutatingRequestsInflight)
  }

  /** Service time of one request, without waiting. */
  serviceMs(cls: RequestClass, objects: number, bytes: number): number {
    const p = this.params
    return (cls === "read" ? p.readBaseMs : p.writeBaseMs) + p.perObjectMs * objects + (p.perKiBMs * bytes) / 1024
  }

  /**
   * Books a request arriving at `at` (ms). Callers must arrive in non-decreasing `at` order per class for the FIFO
   * to hold; a late arrival is served as if it came at its time (seats are only ever free earlier than now).
   */
  admit(at: number, cls: RequestClass, objects: number, bytes: number): Admission {
    const service = this.serviceMs(cls, objects, bytes)
    const start = (cls === "read" ? this.reads : this.writes).take(at, service)
    return { start, end: start + service }
  }

  /** `admit(…).end` without the allocation, for the hot paths. */
  complete(at: number, cls: RequestClass, objects: number, bytes: number): number {
    const service = this.serviceMs(cls, objects, bytes)
    return (cls === "read" ? this.reads : this.writes).take(at, service) + service
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
      return wrapClient(inner, model)
    })
  )
}

/** Rough body size: JSON length (bytes for ASCII, which API objects nearly always are). */
export const approximateBytes = (value: unknown): number => (value === undefined ? 0 : JSON.stringify(value).length)

const timed = <A, E>(
  model: ServiceTimeModel,
  cls: RequestClass,
  requestBytes: number,
  call: Effect.Effect<A, E>,
  responseSize: (a: A) => { objects: number; bytes: number }
): Effect.Effect<A, E> =>
  Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    // The response size is only known afterwards, so a seat is booked for the request part first and the
    // response part is added as extra service time.
    const booked = model.admit(now, cls, 0, requestBytes)
    const wait = Math.round(booked.start - now)
    if (wait > 0) yield* Effect.sleep(wait)
    const result = yield* Effect.exit(call)
    const extra = result._tag === "Success" ? responseSize(result.value) : { objects: 0, bytes: 0 }
    const p = model.params
    const service = booked.end - booked.start + p.perObjectMs * extra.objects + (p.perKiBMs * extra.bytes) / 1024
    // Whole microseconds keep the virtual clock on nanosecond-exact instants.
    const sleep = Math.round(service * 1000) / 1000
    if (sleep > 0) yield* Effect.sleep(sleep)
    return yield* result
  })

const none = () => ({ objects: 0, bytes: 0 })

export const wrapClient = (inner: ApiClientService, model: ServiceTimeModel): ApiClientService => ({
  get: (resource, name, opts) => timed(model, "read", 0, inner.get(resource, name, opts), (o: KObject) => ({ objects: 1, bytes: approximateBytes(o) })),
  list: (resource, opts) =>
    timed(model, "read", 0, inner.list(resource, opts), (l) => ({ objects: l.items.length, bytes: 0 })),
  create: (resource, obj, opts) => timed(model, "mutating", approximateBytes(obj), inner.create(resource, obj, opts), none),
  update: (resource, obj, opts) => timed(model, "mutating", approximateBytes(obj), inner.update(resource, obj, opts), none),
  patch: (resource, name, patchType, patch, opts) =>
    timed(model, "mutating", approximateBytes(patch), inner.patch(resource, name, patchType, patch, opts), none),
  delete: (resource, name, opts) => timed(model, "mutating", 0, inner.delete(resource, name, opts), none),
  deleteCollection: (resource, opts) =>
    timed(model, "mutating", 0, inner.deleteCollection(resource, opts), (l) => ({ objects: l.items.length, bytes: 0 })),
  watch: (resource, opts) => inner.watch(resource, opts)
})

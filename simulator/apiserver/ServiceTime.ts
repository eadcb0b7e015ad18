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
 * The model and its bookkeeping are `ServiceTimeModel.ts`; the clients whose calls take their modelled time on the
 * `Clock` (virtual or real) are `PoolTimedClient.ts` and `ApfTimedClient.ts`, their WatchLists `WatchListBooking.ts`.
 * Here: the service tag, its layers, and `modelledClient`, which picks the client for a model.
 */
import { Context, Effect, Layer } from "effect"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { wrapClientApf } from "./ApfTimedClient.js"
import type { ModelIdentity } from "./ModelRequests.js"
import { wrapClient } from "./PoolTimedClient.js"
import { parameters, ServiceTimeModel, type ServiceTimeSettings } from "./ServiceTimeModel.js"

export * from "./ServiceTimeModel.js"
export { AnsweredAt, hasTimedReads, listEstimate, wrapClientApf, type TimedReads } from "./ApfTimedClient.js"
export { wrapClient } from "./PoolTimedClient.js"

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

/**
 * WatchLists (`sendInitialEvents=true`) in the service-time model, for both timed clients: booked as upstream's
 * estimator books them, their initial events passed as the server sends them (docs/watchlist.md).
 */
import { Chunk, Effect, type Scope, Stream } from "effect"
import type { WatchEvent } from "../../src/api/Object.js"
import type { WatchOptions } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { hasWatchPulls, type WatchPull, type WatchPulls } from "../../src/client/Capabilities.js"
import { retryTooManyRequests } from "../../src/client/TooManyRequests.js"
import type { ClientError } from "../../src/client/TransportError.js"
import { openWatchPull } from "../../src/client/WatchPull.js"
import { watchSeats } from "./apf/WorkEstimate.js"
import { storedJsonLength } from "./JsonLength.js"
import type { ModelIdentity } from "./ModelRequests.js"
import { watchListHeldBytes } from "./RelistMemory.js"
import { rejected, sleepUntil } from "./ModelledAnswers.js"
import type { ServiceTimeModel } from "./ServiceTimeModel.js"

/**
 * `wrapped` with its WatchLists (`sendInitialEvents=true`) modelled as `watchListPull` books them, on `inner`; every
 * other watch as `wrapped` has it.
 */
export const withWatchList = (wrapped: ApiClientService, inner: ApiClientService, model: ServiceTimeModel, identity: ModelIdentity): ApiClientService => {
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

/**
 * client-go's reflector (`tools/cache/reflector.go`): lists, then watches from
 * the list's resourceVersion, feeding a store; relists when the resourceVersion is gone.
 *
 * - The initial list is at rv "0" through the pager (`Pager.ts`, page size 500): a watch-cached type answers in
 *   one response, an uncached one (Events) really pages. Relists are at the last synced rv, unpaginated — unless
 *   the server once paged an rv=0 list, then relists keep paging (client-go `paginatedResult`).
 * - 410 / "Too large resource version" on the LIST → the rv is marked unavailable and the list is retried at once
 *   with rv "" (quorum read), paginated (client-go `isLastSyncResourceVersionUnavailable`).
 * - The watch starts from the list's rv with bookmarks and `timeoutSeconds` = ⌊300 × (1 + rand)⌋ (client-go's
 *   `minWatchTimeout` × [1, 2)). Every event's rv, bookmarks included, becomes the rv to watch again from.
 * - A clean close (server timeout, dropped watcher) → watch again from that rv, no relist. 410 (HTTP or an
 *   in-stream ERROR), any other error, or a very short watch (< 1 s, no events) → relist after the backoff
 *   (`Backoff.ts`). 429 or connection refused when opening the watch → back off and watch again, no relist.
 * - A failed LIST → back off and list again (client-go's `wait.BackoffUntil` around `ListAndWatch`).
 *
 * `watchOnly` starts from the collection's current rv (a `limit=1` list) and stores nothing, as client-go's
 * `RetryWatcher` started from a list's rv; after a 410 it takes a fresh current rv the same way.
 *
 * `watchList` syncs as client-go's `watchList` (the `WatchListClient` gate, KEP-3157): instead of a LIST, a watch
 * with `sendInitialEvents=true`, `resourceVersionMatch=NotOlderThan` and bookmarks, from the last synced rv ("" at
 * first: a consistent read). Its events fill a temporary store until the bookmark annotated
 * `k8s.io/initial-events-end`; then the store is replaced and the same watch goes on as the live one. A refused
 * request or a stream that ends before that bookmark falls back to LIST + WATCH for this sync, as client-go does
 * ("making progress is better than deadlocking"); the next sync tries the stream again. Phases (RelistPhases.ts):
 * `first_response` is the request to the first event, `pages` the first event to the end bookmark.
 */
import { Clock, Deferred, Duration, Effect, Random } from "effect"
import type { Chunk, Scope } from "effect"
import type { KObject, WatchEvent } from "../api/Object.js"
import type { ListOptions } from "../api/Requests.js"
import type { ResourceType } from "../api/Resources.js"
import { ApiClient } from "../client/ApiClient.js"
import { readWatchScoped, type WatchAgain } from "../client/WatchPull.js"
import { initialBackoff, nextBackoff, reflectorBackoff, type BackoffState } from "./Backoff.js"
import { listPages, type PagedList } from "./Pager.js"
import { asStatus, isExpired, isExpiredStatus, isRetriableWatchOpen, isTooLargeResourceVersion } from "./ReflectorErrors.js"
import type { ListTiming, RelistTrigger, SyncTiming } from "./RelistPhases.js"
import type { ClientError } from "../client/TransportError.js"
import { WatchListClient } from "./WatchListClient.js"

/** Where the reflector puts what it reads (client-go's `Store` as the reflector uses it). `now`: Clock ms. */
export interface ReflectorStore {
  readonly add: (object: KObject, now: number) => void
  readonly update: (object: KObject, now: number) => void
  readonly delete: (object: KObject, now: number) => void
  /** The whole state after a list. */
  readonly replace: (items: ReadonlyArray<KObject>, resourceVersion: string, now: number) => void
}

/** Measurement hooks; the reflector works the same without them. */
export interface ReflectorObserver {
  /** After each (re)list has replaced the store. */
  readonly synced?: (sync: SyncTiming) => Effect.Effect<void>
  /** The ADDED / MODIFIED / DELETED events of one received chunk; `receivedAt` in Clock ms (sub-ms precision). */
  readonly watchEvents?: (events: ReadonlyArray<WatchEvent>, receivedAt: number) => Effect.Effect<void>
  /**
   * A request that failed, as `listFailures` and `failedWatchOpens` count them: a LIST, or a watch that did not open
   * (not a 410, which is a relist's trigger, nor a refused WatchList stream, the designed fallback to LIST + WATCH).
   */
  readonly failed?: (error: ClientError, during: "list" | "watch") => Effect.Effect<void>
}

export interface ReflectorOptions {
  readonly resource: ResourceType
  readonly namespace?: string | undefined
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  /** Pager page size (default 500). */
  readonly pageSize?: number | undefined
  /** Watch from the current rv, list no items (see the module comment). */
  readonly watchOnly?: boolean | undefined
  /** Sync by streaming the state through a watch (see the module comment); unset: the run's `WatchListClient` gate. */
  readonly watchList?: boolean | undefined
  /** Uniform numbers in [0, 1) for watch timeouts and backoff jitter; default the Effect `Random` service. */
  readonly random?: (() => number) | undefined
  readonly observer?: ReflectorObserver | undefined
}

export interface ReflectorStats {
  /** Completed relists (store replaced after the initial sync). */
  relists: number
  /** 410s by where they came from; `list` also counts "Too large resource version". */
  expired: { watchHttp: number; watchStream: number; list: number }
  /** Continue tokens that expired mid-pagination (each answered by one full unpaginated list). */
  expiredContinue: number
  /** Watches opened again after a clean close (no relist). */
  rewatches: number
  /** ADDED / MODIFIED / DELETED events received. */
  events: number
  lastSyncedRv: string
  /** BOOKMARK events received. */
  bookmarks: number
  /** Relist triggers by kind. */
  triggers: Partial<Record<RelistTrigger, number>>
  /** LIST calls that failed (the reflector backs off and lists again). */
  listFailures: number
  /** LISTs sent (a paginated one counts once), watches opened or tried (docs/scenarios.md "Honest outcomes"). */
  lists: number
  watchOpens: number
  /** Watches that did not open: answered with an error status other than 410 Gone (an expiry: relisted, as designed), or not answered. */
  failedWatchOpens: number
  /** Watch opens answered by 429 / connection refused (re-watched after backoff, no relist). */
  watchRetries: number
  /** Syncs done by a streamed state (`watchList`), and streams that fell back to LIST + WATCH. */
  watchListSyncs: number
  watchListFallbacks: number
}

export interface Reflector {
  /** Completes once the first list has been stored (client-go `HasSynced`); stays complete. */
  readonly synced: Effect.Effect<void>
  readonly hasSynced: Effect.Effect<boolean>
  readonly stats: Effect.Effect<ReflectorStats>
  /** List, watch, relist — until interrupted. */
  readonly run: Effect.Effect<never, never, ApiClient>
}

/** How one watch ended. */
type WatchEnd =
  /** A `watchList` stream ended or was refused before its initial-events-end bookmark: list instead. */
  | { readonly _tag: "NotStreamed" }
  | { readonly _tag: "Closed" }
  | { readonly _tag: "Retry" }
  | { readonly _tag: "Relist"; readonly trigger: RelistTrigger }

/** A very short watch (< 1 s with 0 events) is an error in client-go's `watchHandler`: it relists. */
const shortWatchMs = 1_000
/** client-go `minWatchTimeout`. */
const minWatchTimeoutSeconds = 300

/** The annotation of the bookmark that ends a streamed state (upstream `metav1.InitialEventsAnnotationKey`). */
const initialEventsEnd = "k8s.io/initial-events-end"

const keyOf = (object: KObject) => `${object.metadata.namespace ?? ""}/${object.metadata.name}`

/** Clock time in ms with the clock's sub-ms precision (phase timings). */
const preciseNow: Effect.Effect<number> = Effect.clockWith((clock) => Effect.sync(() => Number(clock.unsafeCurrentTimeNanos()) / 1e6))

export const makeReflector = (opts: ReflectorOptions, store: ReflectorStore): Effect.Effect<Reflector> =>
  Effect.gen(function* () {
    const resource = opts.resource
    const pageSize = opts.pageSize ?? 500
    const selectors = { namespace: opts.namespace, labelSelector: opts.labelSelector, fieldSelector: opts.fieldSelector }
    const observer = opts.observer
    // unset: the run's client gate decides (`WatchListClient.ts`)
    const watchList = opts.watchList ?? (yield* WatchListClient)
    const random = opts.random
    const nextRandom: Effect.Effect<number> = random ? Effect.sync(random) : Random.next
    const synced = yield* Deferred.make<void>()
    const stats: ReflectorStats = {
      relists: 0,
      expired: { watchHttp: 0, watchStream: 0, list: 0 },
      expiredContinue: 0,
      rewatches: 0,
      events: 0,
      lastSyncedRv: "",
      bookmarks: 0,
      triggers: {},
      listFailures: 0,
      lists: 0,
      watchOpens: 0,
      failedWatchOpens: 0,
      watchRetries: 0,
      watchListSyncs: 0,
      watchListFallbacks: 0
    }

    const run = Effect.gen(function* () {
      const api = yield* ApiClient
      /** client-go `isLastSyncResourceVersionUnavailable`: the next list is a quorum read. */
      let rvUnavailable = false
      /** client-go `paginatedResult`: the server paged an rv=0 list, so relists keep paging. */
      let paginatedResult = false
      // client-go's backoff manager starts its quiet-period clock when the reflector is built.
      let backoff: BackoffState = initialBackoff(reflectorBackoff, yield* preciseNow)

      const sleepBackoff = Effect.gen(function* () {
        const next = nextBackoff(reflectorBackoff, backoff, yield* preciseNow, yield* nextRandom)
        backoff = next.state
        yield* Effect.sleep(Duration.millis(next.waitMs))
      })

      const timedPage = (timing: ListTiming) => (options: ListOptions) =>
        Effect.gen(function* () {
          const sent = yield* preciseNow
          if (timing.sentAt === undefined) timing.sentAt = sent
          const page = yield* api.list(resource, { ...selectors, ...options })
          const at = yield* preciseNow
          if (timing.firstResponseAt === undefined) timing.firstResponseAt = at
          timing.lastPageAt = at
          return page
        })

      const counted = (result: PagedList) => {
        if (result.expiredContinue) stats.expiredContinue++
        return result
      }

      /** client-go `Reflector.list`: rv choice, page size choice, quorum fallback on 410 / too large rv. */
      const list = (timing: ListTiming): Effect.Effect<PagedList, ClientError> =>
        Effect.gen(function* () {
          const page = timedPage(timing)
          if (opts.watchOnly) {
            const current = yield* page({ limit: 1 })
            return { items: [], resourceVersion: current.metadata.resourceVersion, paginated: false, expiredContinue: false }
          }
          const rv = rvUnavailable ? "" : stats.lastSyncedRv === "" ? "0" : stats.lastSyncedRv
          // Unpaginated at a known rv, so the watch cache can answer (client-go turns paging off there).
          const limit = paginatedResult || rv === "" || rv === "0" ? pageSize : 0
          const first = yield* Effect.either(listPages(page, { resourceVersion: rv }, limit))
          let result: PagedList
          if (first._tag === "Right") result = counted(first.right)
          else if (isExpired(first.left) || isTooLargeResourceVersion(first.left)) {
            stats.expired.list++
            rvUnavailable = true
            result = counted(yield* listPages(page, { resourceVersion: "" }, pageSize))
          } else return yield* Effect.fail(first.left)
          if (rv === "0" && result.paginated) paginatedResult = true
          rvUnavailable = false
          return result
        })

      /**
       * One watch from the last synced rv, until it ends; says what to do next. With `streaming` (a `watchList`
       * sync) it first receives the state into a temporary store, replaces the store at the end bookmark, marks the
       * sync, then goes on as a live watch.
       */
      const watchOnce = (streaming?: ListTiming): Effect.Effect<WatchEnd> => Effect.gen(function* () {
        const timeoutSeconds = Math.floor(minWatchTimeoutSeconds * (1 + (yield* nextRandom)))
        // the clock with the start, in as many steps as `preciseNow` alone (the fiber's steps are as before)
        const [clock, startedAt] = yield* Effect.clockWith((clock) => Effect.sync(() => [clock, Number(clock.unsafeCurrentTimeNanos()) / 1e6] as const))
        let started = startedAt
        let received = 0
        let end: WatchEnd | undefined
        /** The streamed state until its end bookmark (client-go's temporary store). */
        let initial: Map<string, KObject> | undefined = streaming ? new Map() : undefined
        // A chunk at a time: one clock reading per chunk, the store written synchronously (virtual time cannot
        // move within a chunk).
        /** Takes `chunk` into the store; the effects the observer and a finished streamed sync still need, if any. */
        const handle = (chunk: Chunk.Chunk<WatchEvent>, clock: Clock.Clock): Effect.Effect<boolean> | undefined => {
            const now = clock.unsafeCurrentTimeMillis()
            const seen: Array<WatchEvent> | undefined = observer?.watchEvents ? [] : undefined
            let syncedNow: Effect.Effect<void> | undefined
            for (const event of chunk) {
              received++
              const object = event.object
              if (initial !== undefined && streaming) {
                streaming.firstResponseAt ??= Number(clock.unsafeCurrentTimeNanos()) / 1e6
                if (event.type === "ERROR") {
                  end = { _tag: "NotStreamed" }
                  break
                }
                const rv = object.metadata?.resourceVersion
                if (event.type === "BOOKMARK") {
                  stats.bookmarks++
                  if (object.metadata?.annotations?.[initialEventsEnd] === "true") {
                    streaming.lastPageAt = Number(clock.unsafeCurrentTimeNanos()) / 1e6
                    store.replace([...initial.values()], rv ?? "", now)
                    initial = undefined
                    stats.watchListSyncs++
                    syncedNow = markSynced(streaming)
                  }
                } else {
                  stats.events++
                  if (event.type === "DELETED") initial.delete(keyOf(object))
                  else initial.set(keyOf(object), object)
                }
                if (rv) stats.lastSyncedRv = rv
                continue
              }
              if (event.type === "ERROR") {
                const status = asStatus(object)
                if (status && isExpiredStatus(status)) {
                  stats.expired.watchStream++
                  end = { _tag: "Relist", trigger: "watch-stream-410" }
                } else end = { _tag: "Relist", trigger: "watch-error" }
                break
              }
              if (event.type === "BOOKMARK") stats.bookmarks++
              else {
                stats.events++
                if (event.type === "ADDED") store.add(object, now)
                else if (event.type === "MODIFIED") store.update(object, now)
                else store.delete(object, now)
                seen?.push(event)
              }
              const rv = object.metadata?.resourceVersion
              if (rv) stats.lastSyncedRv = rv
            }
            const more = end === undefined
            const observed = seen && seen.length > 0 ? Effect.as(Effect.flatMap(preciseNow, (at) => observer!.watchEvents!(seen, at)), more) : undefined
            return syncedNow ? Effect.zipRight(syncedNow, observed ?? Effect.succeed(more)) : observed
        }
        const onChunk = (chunk: Chunk.Chunk<WatchEvent>): Effect.Effect<boolean> =>
          Effect.clockWith((clock) => handle(chunk, clock) ?? Effect.succeed(end === undefined))
        // A live chunk with no error, and no observer of events, needs no effect: taken without waking this fiber
        // (`readWatch`'s `take`), at the same instant and in the same order (docs/benchmarks.md "With clients").
        const take = (chunk: Chunk.Chunk<WatchEvent>): boolean => {
          if (initial !== undefined || observer?.watchEvents !== undefined) return false
          for (const event of chunk) if (event.type === "ERROR") return false
          handle(chunk, clock)
          return true
        }
        const options = streaming
          ? { ...selectors, resourceVersion: rvUnavailable ? "" : stats.lastSyncedRv, resourceVersionMatch: "NotOlderThan", sendInitialEvents: true, allowWatchBookmarks: true, timeoutSeconds }
          : { ...selectors, resourceVersion: stats.lastSyncedRv, allowWatchBookmarks: true, timeoutSeconds }
        /**
         * A live watch's clean end, as the loop below and the next `watchOnce` take it when the watch was not short:
         * counted as a re-watch, then the next watch from the last synced rv, this one's state reset as that one's
         * starts. Read on in a chain where the client has one (`WatchPull.readWatchScoped`), without this fiber.
         */
        const again: WatchAgain | undefined =
          streaming || random === undefined
            ? undefined
            : () => {
                if (end !== undefined || initial !== undefined) return undefined
                const now = Number(clock.unsafeCurrentTimeNanos()) / 1e6
                if (received === 0 && now - started < shortWatchMs) return undefined
                stats.rewatches++
                stats.watchOpens++
                const timeoutSeconds = Math.floor(minWatchTimeoutSeconds * (1 + random()))
                started = now
                received = 0
                return { ...selectors, resourceVersion: stats.lastSyncedRv, allowWatchBookmarks: true, timeoutSeconds }
              }
        if (streaming) streaming.sentAt = yield* preciseNow
        stats.watchOpens++
        const outcome = yield* Effect.either(readWatchScoped(api, resource, options, onChunk, take, again))
        // a refused WatchList stream is the designed fallback to LIST + WATCH (as a 410 is to a relist): the LIST
        // that follows shows whether the server really refuses
        if (outcome._tag === "Left" && received === 0 && !isExpired(outcome.left) && initial === undefined) {
          stats.failedWatchOpens++
          if (observer?.failed) yield* observer.failed(outcome.left, "watch")
        }
        if (initial !== undefined) return { _tag: "NotStreamed" } as const
        if (end) return end
        if (outcome._tag === "Left") {
          const error = outcome.left
          if (received === 0 && isRetriableWatchOpen(error)) return { _tag: "Retry" } as const
          if (received === 0 && isExpired(error)) {
            stats.expired.watchHttp++
            return { _tag: "Relist", trigger: "watch-http-410" } as const
          }
          return { _tag: "Relist", trigger: "watch-error" } as const
        }
        const lasted = (yield* preciseNow) - started
        if (received === 0 && lasted < shortWatchMs) return { _tag: "Relist", trigger: "short-watch" } as const
        return { _tag: "Closed" } as const
      })

      const count = (trigger: RelistTrigger) => {
        stats.triggers[trigger] = (stats.triggers[trigger] ?? 0) + 1
      }

      /** The relist in progress: what triggered it and when (undefined for the initial list). */
      let pending: { trigger: RelistTrigger; at: number } | undefined
      const initialStart = yield* preciseNow
      /** The store is synced: counted, timed, `HasSynced`; the relist in progress is over. */
      function markSynced(timing: ListTiming): Effect.Effect<void> {
        return Effect.gen(function* () {
          const syncedAt = yield* preciseNow
          if (pending) stats.relists++
          if (observer?.synced) {
            yield* observer.synced({ trigger: pending?.trigger, startedAt: pending ? pending.at : initialStart, list: timing, syncedAt })
          }
          yield* Deferred.succeed(synced, undefined)
          pending = undefined
        })
      }
      /**
       * One list into the store; the listed objects are the store's from here. Its own Effect so that nothing of the
       * list outlives it: a local of the loop below would hold every listed object for the whole watch that follows.
       */
      const listIntoStore = (timing: ListTiming): Effect.Effect<ClientError | undefined> =>
        Effect.gen(function* () {
          const listed = yield* Effect.either(list(timing))
          if (listed._tag === "Left") return listed.left
          stats.lastSyncedRv = listed.right.resourceVersion
          if (!opts.watchOnly) store.replace(listed.right.items, listed.right.resourceVersion, yield* Clock.currentTimeMillis)
          return undefined
        })

      for (;;) {
        /** How the streamed sync's watch ended (it synced the store), or undefined when the sync was a LIST. */
        let streamedEnd: WatchEnd | undefined
        if (watchList && !opts.watchOnly) {
          const streamed = yield* watchOnce({})
          if (streamed._tag === "NotStreamed") stats.watchListFallbacks++
          else streamedEnd = streamed
        }
        if (streamedEnd === undefined) {
          const timing: ListTiming = {}
          stats.lists++
          const failure = yield* listIntoStore(timing)
          if (failure !== undefined) {
            stats.listFailures++
            count("list-error")
            if (observer?.failed) yield* observer.failed(failure, "list")
            // The relist still counts from its first trigger; a failed initial list keeps its start too.
            yield* sleepBackoff
            continue
          }
          yield* markSynced(timing)
        }

        while (pending === undefined) {
          const end = streamedEnd ?? (yield* watchOnce())
          streamedEnd = undefined
          if (end._tag === "Closed") {
            stats.rewatches++
          } else if (end._tag === "Retry") {
            stats.watchRetries++
            yield* sleepBackoff
          } else if (end._tag === "Relist") {
            count(end.trigger)
            pending = { trigger: end.trigger, at: yield* preciseNow }
          }
        }
        yield* sleepBackoff
      }
    })

    return {
      synced: Deferred.await(synced),
      hasSynced: Deferred.isDone(synced),
      stats: Effect.sync(() => ({ ...stats, expired: { ...stats.expired }, triggers: { ...stats.triggers } })),
      run
    }
  })

/** A reflector running in the current scope; it stops with the scope. */
export const startReflector = (opts: ReflectorOptions, store: ReflectorStore): Effect.Effect<Reflector, never, ApiClient | Scope.Scope> =>
  Effect.tap(makeReflector(opts, store), (reflector) => Effect.forkScoped(reflector.run))

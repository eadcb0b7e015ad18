/**
 * An informer that lists and watches like client-go's reflector (reference measuring-load.md §2,
 * `client-go: tools/cache/reflector.go`, `tools/pager/pager.go`), keeping a local store and measuring
 * relist latency by phase.
 *
 * - Initial list at rv "0" through a pager (page size 500): a watch-cached type answers in one response,
 *   an uncached one (Events) really pages. Relists at the last synced rv, unpaginated — unless the server
 *   once paged an rv=0 list, then relists keep paging.
 * - An expired continue token on page ≥ 2 → one unpaginated list at the same rv (`FullListIfExpired`).
 * - 410 / "Too large resource version" on the LIST → the rv is marked unavailable and the list is retried
 *   at once with rv "" (quorum read), paginated.
 * - Watch from the list rv with bookmarks and `timeoutSeconds` in [300, 600]. Clean close → watch again from
 *   the last rv (no relist). 410 (HTTP or in-stream ERROR), any other error, or a very short watch (< 1 s,
 *   0 events) → relist after the backoff (0.8 s ×2 to 30 s, jitter 1.0, reset after 2 min). 429 or
 *   connection refused when opening the watch → back off and watch again, no relist.
 *
 * Metrics (LatencyRecorder, key resource = `name` option or the plural, scope namespace|cluster):
 * - `relist` / `initial_list` with operation = phase: `backoff` (trigger → first LIST request sent; 0 for
 *   the initial list, so absent), `first_response` (sent → first page answered), `pages` (first page →
 *   last page, transfer + decode of the rest), `replace` (all pages → store replaced and synced), `total`
 *   (trigger → synced).
 * - `relist_trigger` with operation = trigger kind: the total relist latency per trigger.
 * - `watch_event` with operation = ADDED | MODIFIED: received − `clustersim.io/written-at` annotation (ms).
 * Counters live in `stats`.
 */
import { Deferred, Duration, Effect, Random, Stream } from "effect"
import type { Scope } from "effect"
import type { KList, KObject, WatchEvent } from "../api/Object.js"
import type { ListOptions } from "../api/Requests.js"
import type { ResourceType } from "../api/Resources.js"
import type { ApiError } from "../api/Status.js"
import { ApiClient } from "../client/ApiClient.js"
import { LatencyRecorder, nowMillis, type MetricKey } from "./LatencyRecorder.js"
import { initialBackoff, nextBackoff, reflectorBackoff, type BackoffState } from "./reflector/Backoff.js"
import { asStatus, isExpired, isExpiredStatus, isRetriableWatchOpen, isTooLargeResourceVersion } from "./reflector/Errors.js"

export interface ReflectorOptions {
  readonly resource: ResourceType
  readonly namespace?: string
  readonly labelSelector?: string
  readonly fieldSelector?: string
  /** Pager page size (default 500). */
  readonly pageSize?: number
  /** Resource label of the metrics (default: the resource's plural). */
  readonly name?: string
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
  /** Objects in the local store. */
  items: number
  lastSyncedRv: string
  /** BOOKMARK events received. */
  bookmarks: number
  /** Relist triggers by kind (see `RelistTrigger`). */
  triggers: Partial<Record<RelistTrigger, number>>
  /** LIST calls that failed (the reflector backs off and lists again). */
  listFailures: number
  /** Watch opens answered by 429 / connection refused (re-watched after backoff, no relist). */
  watchRetries: number
}

export interface Reflector {
  /** Completes once the first list has been stored (client-go `HasSynced`); stays complete. */
  readonly synced: Effect.Effect<void>
  readonly stats: Effect.Effect<ReflectorStats>
  readonly items: Effect.Effect<ReadonlyArray<KObject>>
}

/** Why a relist happened (reference §2.4 "Label the trigger kind"). */
export type RelistTrigger = "watch-http-410" | "watch-stream-410" | "watch-error" | "short-watch" | "list-error"

/** Annotation the load generator's writers set: Clock ms of the write. */
export const writtenAtAnnotation = "clustersim.io/written-at"

/** How one watch ended. */
type WatchEnd =
  | { readonly _tag: "Closed" }
  | { readonly _tag: "Retry" }
  | { readonly _tag: "Relist"; readonly trigger: RelistTrigger }

interface ListResult {
  readonly items: ReadonlyArray<KObject>
  readonly resourceVersion: string
  readonly paginated: boolean
}

interface ListTiming {
  sentAt?: number
  firstResponseAt?: number
  lastPageAt?: number
}

export const objectStoreKey = (obj: KObject): string =>
  obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name ?? ""}` : (obj.metadata.name ?? "")

/** A very short watch (< 1 s with 0 events) is an error in client-go: it relists. */
const shortWatchMs = 1_000

/** Starts the reflector loop in the current scope; ends with the scope. */
export const startReflector = (
  opts: ReflectorOptions
): Effect.Effect<Reflector, never, ApiClient | LatencyRecorder | Scope.Scope> =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    const recorder = yield* LatencyRecorder
    const pageSize = opts.pageSize ?? 500
    const resource = opts.resource
    const scope = resource.namespaced && opts.namespace ? "namespace" : "cluster"
    const label = opts.name ?? resource.plural
    const selectors = {
      namespace: opts.namespace,
      labelSelector: opts.labelSelector,
      fieldSelector: opts.fieldSelector
    }

    const store = new Map<string, KObject>()
    const synced = yield* Deferred.make<void>()
    const stats: ReflectorStats = {
      relists: 0,
      expired: { watchHttp: 0, watchStream: 0, list: 0 },
      expiredContinue: 0,
      rewatches: 0,
      events: 0,
      items: 0,
      lastSyncedRv: "",
      bookmarks: 0,
      triggers: {},
      listFailures: 0,
      watchRetries: 0
    }
    /** client-go `isLastSyncResourceVersionUnavailable`: the next list is a quorum read. */
    let rvUnavailable = false
    /** client-go `paginatedResult`: the server paged an rv=0 list, so relists keep paging. */
    let paginatedResult = false
    let backoff: BackoffState = initialBackoff(reflectorBackoff, yield* nowMillis)

    const record = (metric: string, operation: string, from: number, to: number) =>
      recorder.record(
        { metric, operation, resource: label, scope } satisfies MetricKey,
        { intendedStart: from, sentAt: from, completedAt: to, ok: true, model: "closed" }
      )

    const sleepBackoff = Effect.gen(function* () {
      const now = yield* nowMillis
      const next = nextBackoff(reflectorBackoff, backoff, now, yield* Random.next)
      backoff = next.state
      yield* Effect.sleep(Duration.millis(next.waitMs))
    })

    const timedList = (options: ListOptions, timing: ListTiming) =>
      Effect.gen(function* () {
        const sent = yield* nowMillis
        if (timing.sentAt === undefined) timing.sentAt = sent
        const page = yield* api.list(resource, { ...selectors, ...options })
        const at = yield* nowMillis
        if (timing.firstResponseAt === undefined) timing.firstResponseAt = at
        timing.lastPageAt = at
        return page
      })

    /** client-go pager with `FullListIfExpired`. */
    const pagedList = (resourceVersion: string, limit: number, timing: ListTiming): Effect.Effect<ListResult, ApiError> =>
      Effect.gen(function* () {
        const limitOpt = limit > 0 ? limit : undefined
        let page: KList = yield* timedList({ resourceVersion, limit: limitOpt }, timing)
        const items: Array<KObject> = [...page.items]
        // Like the pager: a first page with a continue token already makes the result "paginated".
        const paginated = page.metadata.continue !== undefined && page.metadata.continue !== ""
        while (page.metadata.continue) {
          const next = yield* Effect.either(timedList({ continue: page.metadata.continue, limit: limitOpt }, timing))
          if (next._tag === "Left") {
            if (!isExpired(next.left)) return yield* Effect.fail(next.left)
            stats.expiredContinue++
            const full = yield* timedList({ resourceVersion }, timing)
            return { items: full.items, resourceVersion: full.metadata.resourceVersion, paginated }
          }
          page = next.right
          items.push(...page.items)
        }
        return { items, resourceVersion: page.metadata.resourceVersion, paginated }
      })

    /** client-go `list`: rv choice, page size choice, quorum fallback on 410 / too large rv. */
    const list = (timing: ListTiming): Effect.Effect<ListResult, ApiError> =>
      Effect.gen(function* () {
        const rv = rvUnavailable ? "" : stats.lastSyncedRv === "" ? "0" : stats.lastSyncedRv
        const limit = paginatedResult || rv === "" || rv === "0" ? pageSize : 0
        const first = yield* Effect.either(pagedList(rv, limit, timing))
        let result: ListResult
        if (first._tag === "Right") result = first.right
        else if (isExpired(first.left) || isTooLargeResourceVersion(first.left)) {
          stats.expired.list++
          rvUnavailable = true
          result = yield* pagedList("", pageSize, timing)
        } else return yield* Effect.fail(first.left)
        if (rv === "0" && result.paginated) paginatedResult = true
        rvUnavailable = false
        return result
      })

    const replace = (result: ListResult) =>
      Effect.sync(() => {
        store.clear()
        for (const obj of result.items) store.set(objectStoreKey(obj), obj)
        stats.items = store.size
        stats.lastSyncedRv = result.resourceVersion
      })

    const writeLatency = (event: WatchEvent, receivedAt: number) => {
      if (event.type !== "ADDED" && event.type !== "MODIFIED") return Effect.void
      const stamp = event.object.metadata.annotations?.[writtenAtAnnotation]
      const writtenAt = stamp === undefined ? NaN : Number(stamp)
      return Number.isFinite(writtenAt) ? record("watch_event", event.type, writtenAt, receivedAt) : Effect.void
    }

    /** One watch from the last synced rv, until it ends; says what to do next. */
    const watchOnce: Effect.Effect<WatchEnd> = Effect.gen(function* () {
      const timeoutSeconds = yield* Random.nextIntBetween(300, 601)
      const started = yield* nowMillis
      let received = 0
      let end: WatchEnd | undefined
      const outcome = yield* Effect.either(
        Stream.runForEachWhile(
          api.watch(resource, { ...selectors, resourceVersion: stats.lastSyncedRv, allowWatchBookmarks: true, timeoutSeconds }),
          (event) =>
            Effect.gen(function* () {
              received++
              const object = event.object
              switch (event.type) {
                case "ERROR": {
                  const status = asStatus(object)
                  if (status && isExpiredStatus(status)) {
                    stats.expired.watchStream++
                    end = { _tag: "Relist", trigger: "watch-stream-410" }
                  } else end = { _tag: "Relist", trigger: "watch-error" }
                  return false
                }
                case "BOOKMARK":
                  stats.bookmarks++
                  break
                case "ADDED":
                case "MODIFIED":
                  store.set(objectStoreKey(object), object)
                  stats.events++
                  break
                case "DELETED":
                  store.delete(objectStoreKey(object))
                  stats.events++
                  break
              }
              stats.items = store.size
              const rv = object.metadata?.resourceVersion
              if (rv) stats.lastSyncedRv = rv
              yield* writeLatency(event, yield* nowMillis)
              return true
            })
        )
      )
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
      const lasted = (yield* nowMillis) - started
      if (received === 0 && lasted < shortWatchMs) return { _tag: "Relist", trigger: "short-watch" } as const
      return { _tag: "Closed" } as const
    })

    const loop = Effect.gen(function* () {
      /** The relist in progress: what triggered it and when (undefined for the initial list). */
      let pending: { trigger: RelistTrigger; at: number } | undefined
      const initialStart = yield* nowMillis
      for (;;) {
        const timing: ListTiming = {}
        const listed = yield* Effect.either(list(timing))
        if (listed._tag === "Left") {
          stats.listFailures++
          stats.triggers["list-error"] = (stats.triggers["list-error"] ?? 0) + 1
          // The relist still counts from its first trigger; a failed initial list keeps its start too.
          yield* sleepBackoff
          continue
        }
        yield* replace(listed.right)
        const syncedAt = yield* nowMillis
        const metric = pending ? "relist" : "initial_list"
        const start = pending ? pending.at : initialStart
        const sentAt = timing.sentAt ?? start
        const firstAt = timing.firstResponseAt ?? sentAt
        const lastAt = timing.lastPageAt ?? firstAt
        if (pending) {
          stats.relists++
          yield* record(metric, "backoff", pending.at, sentAt)
          yield* record("relist_trigger", pending.trigger, pending.at, syncedAt)
        }
        yield* record(metric, "first_response", sentAt, firstAt)
        yield* record(metric, "pages", firstAt, lastAt)
        yield* record(metric, "replace", lastAt, syncedAt)
        yield* record(metric, "total", start, syncedAt)
        yield* Deferred.succeed(synced, undefined)
        pending = undefined

        for (;;) {
          const end = yield* watchOnce
          if (end._tag === "Closed") {
            stats.rewatches++
            continue
          }
          if (end._tag === "Retry") {
            stats.watchRetries++
            yield* sleepBackoff
            continue
          }
          stats.triggers[end.trigger] = (stats.triggers[end.trigger] ?? 0) + 1
          pending = { trigger: end.trigger, at: yield* nowMillis }
          break
        }
        yield* sleepBackoff
      }
    })

    yield* Effect.forkScoped(loop)

    return {
      synced: Deferred.await(synced),
      stats: Effect.sync(() => ({
        ...stats,
        expired: { ...stats.expired },
        triggers: { ...stats.triggers }
      })),
      items: Effect.sync(() => Array.from(store.values()))
    }
  })

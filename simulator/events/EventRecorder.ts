/**
 * The `events.platform/v1` recorder every simulated component reports through (client-go
 * `tools/events`):
 *
 * - a new event is named `<regarding.name>.<hex(UnixNano)>`, lives in the regarding object's namespace
 *   (`default` for cluster-scoped objects) and carries `eventTime` with microseconds;
 * - isomorphic events — same (action, reason, reportingController, regarding, related); the note is not part of
 *   the key — form a series: the second occurrence PATCHes `series {count: 2, lastObservedTime}` onto the first
 *   event, later ones only count in the cache; every 30 min all series are re-PATCHed (heartbeat), every 6 min
 *   series idle for more than 6 min get a final PATCH and leave the cache;
 * - writes go through a queue of 1000 (full → dropped) and a token bucket that delays them (node agent:
 *   `eventRecordQPS` / `eventBurst`; 0 = no limit, spec 001);
 * - server errors (5xx, 429) are retried ≤ 12 times, 10–12.5 s apart; other API errors give up, as upstream's
 *   sink does for Status errors.
 *
 * Choice: the core v1 recorder (`tools/record`) of the node agent and leader election is not modelled: this
 * simulator serves only `events.platform/v1`, so those components record through this recorder as well, with
 * `reportingController` = their source component (`node-agent`, `default-scheduler`).
 */
import { Clock, Context, Deferred, Duration, Effect, Layer, Queue, type Scope } from "effect"
import { type KObject } from "../../src/api/Object.js"
import { extendable } from "../../src/api/internal/V8Shapes.js"
import { Events } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { SeededRandom } from "../kernel/SeededRandom.js"
import { microTime } from "../apiserver/SystemMeta.js"
import * as TokenBucket from "./TokenBucket.js"
import { type ClientError, hasStatusCode } from "../../src/client/TransportError.js"

export interface ObjectRef {
  readonly kind: string
  readonly apiVersion: string
  readonly name: string
  readonly namespace?: string | undefined
  readonly uid?: string | undefined
}

export type EventType = "Normal" | "Warning"

export interface EventRecorderOptions {
  readonly reportingController: string
  readonly reportingInstance: string
  /** Writes per second (token bucket refill); ≤ 0 = no limit. Default 0. */
  readonly qps?: number
  readonly burst?: number
  /** Pending writes before new ones are dropped. Default 1000. */
  readonly queueSize?: number
  /** Series heartbeat period (ms). Default 30 min. */
  readonly heartbeatMs?: number
  /** Idle time after which a series is finished (ms). Default 6 min. */
  readonly finishAfterMs?: number
}

export interface RecorderStats {
  /** Events given to `eventf`. */
  readonly recorded: number
  readonly created: number
  readonly patched: number
  /** Occurrences only counted in the cache (third and later of a series). */
  readonly countedInCache: number
  /** Writes dropped because the queue was full. */
  readonly dropped: number
  /** Writes that failed for good. */
  readonly failed: number
}

/** Optional parts of a new event (upstream `AnnotatedEventf`). */
export interface EventExtra {
  readonly annotations?: Readonly<Record<string, string>>
}

export interface EventRecorderService {
  readonly reportingController: string
  readonly reportingInstance: string
  /** Records an event; never blocks the caller (the write is queued). */
  readonly eventf: (
    regarding: ObjectRef,
    related: ObjectRef | undefined,
    type: EventType,
    reason: string,
    action: string,
    note: string,
    extra?: EventExtra
  ) => Effect.Effect<void>
  readonly stats: Effect.Effect<RecorderStats>
  /** Completes once every queued write is done (tests and scenario ends). */
  readonly flush: Effect.Effect<void>
}

export class EventRecorder extends Context.Tag("clustersim/events/EventRecorder")<EventRecorder, EventRecorderService>() {
  static readonly layer = (options: EventRecorderOptions): Layer.Layer<EventRecorder, never, ApiClient> =>
    Layer.scoped(EventRecorder, make(options))
}

/** `reportingInstance` as upstream builds it: `<controller>-<hostname>` (client-go `tools/events` `NewRecorder`). */
export const reportingInstanceOf = (controller: string, host: string): string => `${controller}-${host}`

const NOTE_LIMIT = 1024

/** A FailedScheduling-style note cut to 1 kB with the ` ...` suffix (`schedule_one.go` `truncateMessage`). */
export const truncateNote = (note: string): string =>
  Buffer.byteLength(note) <= NOTE_LIMIT ? note : note.slice(0, NOTE_LIMIT - 4) + " ..."

const refKey = (r: ObjectRef | undefined): string =>
  r === undefined ? "" : `${r.apiVersion}/${r.kind}/${r.namespace ?? ""}/${r.name}/${r.uid ?? ""}`

/** The isomorphic key (client-go `tools/events` `getKey`): the note is not part of it. */
export const isomorphicKey = (
  action: string,
  reason: string,
  controller: string,
  regarding: ObjectRef,
  related: ObjectRef | undefined
): string => [action, reason, controller, refKey(regarding), refKey(related)].join("\u0000")

const refObject = (r: ObjectRef): Record<string, string> => {
  const o: Record<string, string> = { kind: r.kind, apiVersion: r.apiVersion, name: r.name }
  if (r.namespace) o.namespace = r.namespace
  if (r.uid) o.uid = r.uid
  return o
}

/** Lowercase hex of a non-negative integer count of nanoseconds. */
export const hexNanos = (nanos: bigint): string => nanos.toString(16)

interface Cached {
  event: KObject
  series: { count: number; lastObservedTime: number } | undefined
  eventTime: number
}

type Write = { readonly op: "create" | "patch"; readonly event: KObject }

/** A request without an answer is retried like a 5xx (client-go's recordToSink retries every error but AlreadyExists). */
const retriable = (e: ClientError): boolean => e._tag === "TransportError" || (e.status.code ?? 0) >= 500 || hasStatusCode(e, 429)

export const make = (options: EventRecorderOptions): Effect.Effect<EventRecorderService, never, ApiClient | Scope.Scope> =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    const random = yield* Effect.serviceOption(SeededRandom)
    const rng = random._tag === "Some" ? random.value.split(`events/${options.reportingInstance}`) : undefined
    const heartbeatMs = options.heartbeatMs ?? 30 * 60_000
    const finishAfterMs = options.finishAfterMs ?? 6 * 60_000
    const bucket = TokenBucket.make(options.qps ?? 0, options.burst ?? 0)
    const queue = yield* Queue.dropping<Write>(options.queueSize ?? 1000)
    const cache = new Map<string, Cached>()
    const stats = { recorded: 0, created: 0, patched: 0, countedInCache: 0, dropped: 0, failed: 0 }
    let pending = 0
    let idle: Array<Deferred.Deferred<void>> = []
    let lastMs = -1
    let seq = 0

    const enqueue = (w: Write) =>
      Effect.flatMap(Queue.offer(queue, w), (ok) =>
        Effect.sync(() => {
          if (ok) pending++
          else stats.dropped++
        })
      )

    /** Unique nanosecond stamps: virtual time often repeats a millisecond, upstream's clock never does. */
    const nanosAt = (ms: number): bigint => {
      if (ms !== lastMs) {
        lastMs = ms
        seq = 0
      } else seq++
      return BigInt(Math.floor(ms)) * 1_000_000n + BigInt(seq)
    }

    const withSeries = (c: Cached): KObject => ({
      ...extendable,
      ...c.event,
      series: { count: c.series!.count, lastObservedTime: microTime(c.series!.lastObservedTime) }
    })

    const eventf: EventRecorderService["eventf"] = (regarding, related, type, reason, action, note, extra) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        stats.recorded++
        const key = isomorphicKey(action, reason, options.reportingController, regarding, related)
        const cached = cache.get(key)
        if (cached) {
          if (cached.series) {
            cached.series.count++
            cached.series.lastObservedTime = now
            stats.countedInCache++
            return Effect.void
          }
          cached.series = { count: 2, lastObservedTime: now }
          return enqueue({ op: "patch", event: withSeries(cached) })
        }
        const name = `${regarding.name}.${hexNanos(nanosAt(now))}`
        const event: KObject = {
          apiVersion: "events.platform/v1",
          kind: "Event",
          metadata: {
            name,
            namespace: regarding.namespace || "default",
            ...(extra?.annotations ? { annotations: extra.annotations } : {})
          },
          eventTime: microTime(now),
          reportingController: options.reportingController,
          reportingInstance: options.reportingInstance,
          action,
          reason,
          regarding: refObject(regarding),
          ...(related ? { related: refObject(related) } : {}),
          note: truncateNote(note),
          type
        }
        cache.set(key, { event, series: undefined, eventTime: now })
        return enqueue({ op: "create", event })
      })

    const writeOnce = (w: Write): Effect.Effect<void, ClientError> => {
      const ns = w.event.metadata.namespace
      if (w.op === "create")
        return Effect.asVoid(client.create(Events, w.event, { namespace: ns })).pipe(
          Effect.tap(() => Effect.sync(() => stats.created++)),
          // Upstream gives up on AlreadyExists; the name is unique per recorder, so this is another writer's.
          Effect.catchIf((e) => hasStatusCode(e, 409), () => Effect.void)
        )
      return Effect.asVoid(
        client.patch(Events, w.event.metadata.name!, "merge", { series: w.event.series }, { namespace: ns })
      ).pipe(
        Effect.tap(() => Effect.sync(() => stats.patched++)),
        // 404 (expired or never created) → CREATE with the series.
        Effect.catchIf(
          (e) => hasStatusCode(e, 404),
          () =>
            Effect.asVoid(client.create(Events, withoutRv(w.event), { namespace: ns })).pipe(
              Effect.tap(() => Effect.sync(() => stats.created++))
            )
        )
      )
    }

    const write = (w: Write): Effect.Effect<void> => {
      const attempt = (n: number): Effect.Effect<void> =>
        writeOnce(w).pipe(
          Effect.catchAll((e) => {
            if (!retriable(e) || n >= 12) return Effect.sync(() => stats.failed++)
            const wait = 10_000 * (1 + 0.25 * (rng ? rng.next() : 0.5))
            return Effect.zipRight(Effect.sleep(Duration.millis(wait)), attempt(n + 1))
          })
        )
      return attempt(1)
    }

    const worker = Effect.forever(
      Effect.gen(function* () {
        const w = yield* Queue.take(queue)
        const now = yield* Clock.currentTimeMillis
        const delay = bucket.reserve(now)
        if (delay > 0) yield* Effect.sleep(Duration.millis(delay))
        yield* write(w)
        pending--
        if (pending === 0 && idle.length > 0) {
          const waiting = idle
          idle = []
          for (const d of waiting) yield* Deferred.succeed(d, undefined)
        }
      })
    )

    // One timer for both housekeeping duties: finishing idle series every 6 min, heartbeats every 30 min.
    const housekeeping = Effect.gen(function* () {
      let sinceHeartbeat = 0
      while (true) {
        yield* Effect.sleep(Duration.millis(finishAfterMs))
        sinceHeartbeat += finishAfterMs
        const now = yield* Clock.currentTimeMillis
        const heartbeat = sinceHeartbeat >= heartbeatMs
        if (heartbeat) sinceHeartbeat = 0
        for (const [key, c] of cache) {
          if (c.series) {
            if (now - c.series.lastObservedTime > finishAfterMs) {
              yield* enqueue({ op: "patch", event: withSeries(c) })
              cache.delete(key)
            } else if (heartbeat) yield* enqueue({ op: "patch", event: withSeries(c) })
          } else if (now - c.eventTime > finishAfterMs) cache.delete(key)
        }
      }
    })

    yield* Effect.forkScoped(worker)
    yield* Effect.forkScoped(housekeeping)

    const flush: Effect.Effect<void> = Effect.suspend(() => {
      if (pending === 0) return Effect.void
      return Effect.flatMap(Deferred.make<void>(), (d) => {
        idle.push(d)
        return Deferred.await(d)
      })
    })

    return {
      reportingController: options.reportingController,
      reportingInstance: options.reportingInstance,
      eventf,
      stats: Effect.sync(() => ({ ...stats })),
      flush
    }
  })

const withoutRv = (e: KObject): KObject => {
  const { resourceVersion: _rv, uid: _uid, creationTimestamp: _ct, ...meta } = e.metadata
  return { ...extendable, ...e, metadata: meta }
}

/**
 * A controller's work queue (client-go `util/workqueue`): keys, not objects; a key added while it waits is queued
 * once; `addAfter` adds it later (a minReadySeconds wait, a progress deadline); a failed sync is retried with a
 * per-key exponential backoff (`ItemExponentialFailureRateLimiter`, 5 ms doubling, capped here at 5 s rather than
 * upstream's 1000 s, since a simulated cluster's failures are brief). One worker: `run` syncs one key at a time.
 */
import { Clock, Effect, Queue, Runtime, type Scope } from "effect"

export interface WorkQueue {
  /** Queues `key` unless it already waits; safe to call from informer handlers (synchronous). */
  readonly add: (key: string) => void
  /** Queues `key` after `ms`. */
  readonly addAfter: (key: string, ms: number) => Effect.Effect<void>
  /** `addAfter` from synchronous code (informer handlers), on the queue's own runtime and clock. */
  readonly addLater: (key: string, ms: number) => void
  /** Syncs keys one at a time, forever. */
  readonly run: <E, R>(sync: (key: string) => Effect.Effect<void, E, R>) => Effect.Effect<never, never, R>
}

const baseDelayMs = 5
const maxDelayMs = 5_000

export const make: Effect.Effect<WorkQueue, never, Scope.Scope> = Effect.gen(function* () {
  const scope = yield* Effect.scope
  const queue = yield* Queue.unbounded<string>()
  const waiting = new Set<string>()
  const failures = new Map<string, number>()
  const add = (key: string) => {
    if (waiting.has(key)) return
    waiting.add(key)
    Queue.unsafeOffer(queue, key)
  }
  // one timer per key at a time: a later due time than the one pending adds nothing (each sync may ask again)
  const due = new Map<string, number>()
  const addAfter = (key: string, ms: number) =>
    ms <= 0
      ? Effect.sync(() => add(key))
      : Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const at = now + Math.ceil(ms)
          const pending = due.get(key)
          if (pending !== undefined && pending <= at && pending > now) return Effect.void
          due.set(key, at)
          const fire = Effect.sync(() => {
            if (due.get(key) === at) due.delete(key)
            add(key)
          })
          return Effect.asVoid(Effect.forkIn(Effect.delay(fire, Math.ceil(ms)), scope))
        })
  const runtime = yield* Effect.runtime<never>()
  const addLater = (key: string, ms: number) => void Runtime.runFork(runtime)(addAfter(key, ms))
  const run = <E, R>(sync: (key: string) => Effect.Effect<void, E, R>): Effect.Effect<never, never, R> =>
    Effect.forever(
      Effect.gen(function* () {
        const key = yield* Queue.take(queue)
        waiting.delete(key)
        const outcome = yield* Effect.either(Effect.catchAllDefect(sync(key), (d) => Effect.fail(d)))
        if (outcome._tag === "Right") return void failures.delete(key)
        const n = failures.get(key) ?? 0
        failures.set(key, n + 1)
        yield* addAfter(key, Math.min(maxDelayMs, baseDelayMs * 2 ** n))
      })
    )
  return { add, addAfter, addLater, run }
})

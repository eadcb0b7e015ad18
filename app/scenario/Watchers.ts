/**
 * The `watch` action: N watch-only reflectors (`src/informer/Reflector.ts`, `watchOnly`), each starting from the
 * collection's current resourceVersion, re-watching from the last one it saw when a watch closes, and taking a
 * fresh one after a 410 with the reflector's backoff. Every event for a stamped object is a
 * `watch_event WATCH` sample: write acknowledged → event received (an event that arrives before the writer's
 * answer counts 0).
 */
import { Effect, Ref } from "effect"
import type { ApiClient } from "../../src/client/ApiClient.js"
import { startReflector, type Reflector, type ReflectorObserver, type ReflectorStore } from "../../src/informer/Reflector.js"
import { failedReflectorRequests } from "../../src/loadgen/Artifact.js"
import { LatencyRecorder } from "../../src/loadgen/LatencyRecorder.js"
import { namespaceFor, resourceOf, WriteLog, WrittenAtAnnotation, type RunEnv } from "./Operations.js"
import type { Action } from "./Scenario.js"

/** Watchers keep no objects. */
const keepNothing: ReflectorStore = { add: () => {}, update: () => {}, delete: () => {}, replace: () => {} }

/** Runs until interrupted; `counts` gets `events` as they arrive and the reflectors' totals when it stops. */
export const runWatchers = (
  env: RunEnv,
  a: Extract<Action, { type: "watch" }>,
  name: string,
  counts: Record<string, number>
): Effect.Effect<never, never, ApiClient | LatencyRecorder> =>
  Effect.gen(function* () {
    const recorder = yield* LatencyRecorder
    const resource = resourceOf(a.resource)
    const namespace = a.namespace === undefined ? undefined : namespaceFor(resource, a.namespace)
    const key = { metric: "watch_event", operation: "WATCH", resource: resource.plural, scope: namespace === undefined ? "cluster" : "namespace" }
    const observer: ReflectorObserver = {
      watchEvents: (events, receivedAt) =>
        Effect.sync(() => {
          for (const { object } of events) {
            counts.events = (counts.events ?? 0) + 1
            if (object.metadata.annotations?.[WrittenAtAnnotation] === undefined) continue
            env.writes.observe(WriteLog.key(object.metadata.namespace, object.metadata.name, object.metadata.resourceVersion), receivedAt, (ackAt) => {
              const at = Math.min(ackAt, receivedAt)
              Effect.runSync(recorder.record(key, { intendedStart: at, sentAt: at, completedAt: receivedAt, ok: true, model: "open" }))
            })
          }
        }),
      failed: (error) => Effect.sync(() => env.progress.error(name, error))
    }
    const started = yield* Ref.make<ReadonlyArray<Reflector>>([])
    const totals = Effect.flatMap(Ref.get(started), (reflectors) =>
      Effect.forEach(reflectors, (r) => r.stats).pipe(
        Effect.map((all) => {
          const sum = (f: (s: (typeof all)[number]) => number) => all.reduce((n, s) => n + f(s), 0)
          counts.rewatches = sum((s) => s.rewatches)
          counts.relists = sum((s) => s.relists)
          counts.expired = sum((s) => s.expired.watchHttp + s.expired.watchStream + s.expired.list)
          counts.watchErrors = sum((s) => s.triggers["watch-error"] ?? 0)
          // failed LISTs (of the current resourceVersion) and watch opens count in the run's error rate (Outcome.ts)
          Object.assign(counts, failedReflectorRequests(sum((s) => s.lists + s.watchOpens), sum((s) => s.listFailures + s.failedWatchOpens)))
        })
      )
    )
    return yield* Effect.scoped(
      Effect.gen(function* () {
        for (let i = 0; i < a.count; i++) {
          const reflector = yield* startReflector({ resource, namespace, labelSelector: a.labelSelector, watchOnly: true, observer }, keepNothing)
          yield* Ref.update(started, (all) => [...all, reflector])
        }
        return yield* Effect.never
      })
    ).pipe(Effect.ensuring(totals))
  })

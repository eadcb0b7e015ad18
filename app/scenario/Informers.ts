/**
 * The `informers` action: N informers on one resource, each listing and watching on its own (client-go
 * behaviour lives in `src/informer`). Sync time is recorded as `informer_sync`; relist phases and watch-event
 * latency go to the LatencyRecorder through `loadgen/ReflectorMetrics.ts`. Each reflector stores keys and
 * resourceVersions, not objects (`informer/VersionStore.ts`): no handler reads them.
 */
import { Effect, type Scope } from "effect"
import type { ApiClient } from "../../src/client/ApiClient.js"
import type { ClientError } from "../../src/client/TransportError.js"
import { LatencyRecorder, nowMillis } from "../../src/loadgen/LatencyRecorder.js"
import { type ReflectorStats, startReflector } from "../../src/informer/Reflector.js"
import { makeVersionStore } from "../../src/informer/VersionStore.js"
import { reflectorMetrics } from "../../src/loadgen/ReflectorMetrics.js"
import { failedReflectorRequests, type InformerReport } from "../../src/loadgen/Artifact.js"
import { namespaceFor, type Progress, resourceOf } from "./Operations.js"
import type { Action } from "./Scenario.js"

export const sumStats = (all: ReadonlyArray<ReflectorStats>, synced: number): InformerReport => {
  const triggers: Record<string, number> = {}
  for (const s of all) for (const [k, v] of Object.entries(s.triggers)) triggers[k] = (triggers[k] ?? 0) + (v ?? 0)
  const sum = (f: (s: ReflectorStats) => number) => all.reduce((a, s) => a + f(s), 0)
  return {
    count: all.length,
    synced,
    relists: sum((s) => s.relists),
    expiredContinue: sum((s) => s.expiredContinue),
    expired: { watchHttp: sum((s) => s.expired.watchHttp), watchStream: sum((s) => s.expired.watchStream), list: sum((s) => s.expired.list) },
    rewatches: sum((s) => s.rewatches),
    events: sum((s) => s.events),
    listFailures: sum((s) => s.listFailures),
    triggers,
    // only when streamed: artifacts of LIST + WATCH runs stay as they were
    ...(sum((s) => s.watchListSyncs) > 0 ? { watchListSyncs: sum((s) => s.watchListSyncs) } : {}),
    ...(sum((s) => s.watchListFallbacks) > 0 ? { watchListFallbacks: sum((s) => s.watchListFallbacks) } : {}),
    // failed LISTs and watch opens count in the run's error rate (Outcome.ts)
    ...failedReflectorRequests(sum((s) => s.lists + s.watchOpens), sum((s) => s.listFailures + s.failedWatchOpens))
  }
}

/** Starts the reflectors in the current scope; `report` sums their stats so far. */
export const startInformers = (
  a: Extract<Action, { type: "informers" }>,
  name: string,
  progress: Progress
): Effect.Effect<{ readonly report: Effect.Effect<InformerReport> }, never, ApiClient | LatencyRecorder | Scope.Scope> =>
  Effect.gen(function* () {
    const recorder = yield* LatencyRecorder
    const resource = resourceOf(a.resource)
    const namespace = a.namespace === undefined ? undefined : namespaceFor(resource, a.namespace)
    const scope = namespace === undefined ? "cluster" : "namespace"
    let synced = 0
    // a failed LIST or watch open is one of the run's errors (`errors.total`, the summary's messages), as a watch action's
    const observer = { ...(yield* reflectorMetrics(resource.plural, scope)), failed: (error: ClientError) => Effect.sync(() => progress.error(name, error)) }
    const reflectors = yield* Effect.forEach(
      Array.from({ length: a.count }),
      () =>
        Effect.gen(function* () {
          const t0 = yield* nowMillis
          const r = yield* startReflector({ resource, namespace, labelSelector: a.labelSelector, pageSize: a.pageSize, watchList: a.watchList, observer }, makeVersionStore())
          // time to first sync, as a sample: a start is "intended" when the informer is started
          yield* Effect.forkScoped(
            Effect.gen(function* () {
              yield* r.synced
              const t1 = yield* nowMillis
              synced++
              yield* recorder.record(
                { metric: "informer_sync", operation: "LIST", resource: resource.plural, scope },
                { intendedStart: t0, sentAt: t0, completedAt: t1, ok: true, model: "closed" }
              )
            })
          )
          return r
        }),
      { concurrency: "unbounded" }
    )
    const report = Effect.map(
      Effect.forEach(reflectors, (r) => r.stats),
      (all) => sumStats(all, synced)
    )
    return { report }
  })


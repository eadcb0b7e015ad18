/**
 * What the load generator measures of a reflector (docs/measurement.md), as a reflector observer:
 * - relist phases (`RelistPhases.ts`): `initial_list` / `relist` per phase and `relist_trigger` per trigger kind;
 * - `watch_event` with operation = ADDED | MODIFIED: received − the writer's `clustersim.io/written-at` stamp.
 * Series key: resource = `label`, scope = `namespace` | `cluster`.
 */
import { Effect } from "effect"
import type { ReflectorObserver } from "../informer/Reflector.js"
import { relistPhases } from "../informer/RelistPhases.js"
import { LatencyRecorder, type MetricKey } from "./LatencyRecorder.js"

/** Annotation the load generator's writers set: Clock ms of the write. */
export const writtenAtAnnotation = "clustersim.io/written-at"

export const reflectorMetrics = (label: string, scope: "namespace" | "cluster"): Effect.Effect<ReflectorObserver, never, LatencyRecorder> =>
  Effect.map(LatencyRecorder, (recorder) => {
    const record = (metric: string, operation: string, from: number, to: number) =>
      recorder.record(
        { metric, operation, resource: label, scope } satisfies MetricKey,
        { intendedStart: from, sentAt: from, completedAt: to, ok: true, model: "closed" }
      )
    return {
      synced: (sync) => Effect.forEach(relistPhases(sync), (s) => record(s.metric, s.operation, s.from, s.to), { discard: true }),
      watchEvents: (events, receivedAt) =>
        Effect.forEach(
          events,
          (event) => {
            if (event.type !== "ADDED" && event.type !== "MODIFIED") return Effect.void
            const stamp = event.object.metadata.annotations?.[writtenAtAnnotation]
            const writtenAt = stamp === undefined ? NaN : Number(stamp)
            return Number.isFinite(writtenAt) ? record("watch_event", event.type, writtenAt, receivedAt) : Effect.void
          },
          { discard: true }
        )
    }
  })

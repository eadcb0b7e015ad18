/**
 * Event expiry (issue 6: events leave the store after a TTL, default 1 h, with DELETED to watchers).
 *
 * Choice: upstream attaches an etcd lease to every Event write (`--event-ttl`), so an event expires TTL after
 * its last write. The simulated API server has no TTL, and it is not this component's to change, so expiry is
 * a small simulator controller: it watches Events, remembers each one's last write time (ADDED / MODIFIED as
 * seen by the watch) and deletes the expired ones. A normal DELETE gives watchers their DELETED event.
 * Sweeps run every `sweepMs` (default 1 min), so an event lives between TTL and TTL + sweepMs.
 */
import { Clock, Duration, Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Events } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { startInformer } from "../../src/informer/Informer.js"
import { uniformSource } from "../kernel/SeededRandom.js"

export interface EventTtlOptions {
  /** Default 1 h. */
  readonly ttlMs?: number
  /** Default 1 min. */
  readonly sweepMs?: number
}

export interface EventTtlStats {
  readonly expired: number
  readonly tracked: number
}

const keyOf = (o: KObject) => `${o.metadata.namespace ?? ""}/${o.metadata.name ?? ""}`

/** Runs forever: the watch and the sweeper. `onStats` sees the counters after every sweep. */
export const runEventTtl = (
  options: EventTtlOptions = {},
  onStats?: (s: EventTtlStats) => void
): Effect.Effect<never, never, ApiClient> =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    const ttl = options.ttlMs ?? 3_600_000
    const sweep = options.sweepMs ?? 60_000
    const lastWrite = new Map<string, { ns: string; name: string; at: number; rv: string }>()
    let expired = 0
    const touch = (o: KObject, now: number) =>
      lastWrite.set(keyOf(o), {
        ns: o.metadata.namespace ?? "default",
        name: o.metadata.name ?? "",
        at: now,
        rv: o.metadata.resourceVersion ?? ""
      })
    // An informer's handlers: after a relist, unchanged events (same resourceVersion) keep their write times,
    // changed or new ones count from now, and the ones gone are forgotten.
    yield* startInformer(
      { resource: Events, random: yield* uniformSource("reflector/events") },
      {
        onAdd: (o, now) => touch(o, now),
        onUpdate: (_old, o, now) => touch(o, now),
        onDelete: (o) => lastWrite.delete(keyOf(o))
      }
    )
    const tick = Effect.gen(function* () {
      yield* Effect.sleep(Duration.millis(sweep))
      const now = yield* Clock.currentTimeMillis
      const due = [...lastWrite.values()].filter((e) => now - e.at >= ttl)
      for (const e of due) {
        // Precondition on the version we saw: an event written since then is not expired.
        const r = yield* Effect.either(client.delete(Events, e.name, { namespace: e.ns, preconditions: { resourceVersion: e.rv } }))
        if (r._tag === "Right") expired++
        lastWrite.delete(`${e.ns}/${e.name}`)
      }
      onStats?.({ expired, tracked: lastWrite.size })
    })
    return yield* Effect.forever(tick)
  }).pipe(Effect.scoped)

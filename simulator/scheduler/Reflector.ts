/**
 * The list-and-watch loop of client-go's `reflector.go`, reduced to what the simulated controllers need: list,
 * hand the items over as a full replacement, then apply watch events until the stream ends (timeout, 410,
 * dropped watcher) and start again. Used by the scheduler's node and pod caches and by `EventTtl`.
 */
import { type Chunk, Clock, Duration, Effect, Option, Sink, Stream } from "effect"
import type { KObject, WatchEvent } from "../../src/api/Object.js"
import type { ListOptions } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { SeededRandom } from "../kernel/SeededRandom.js"

export interface ReflectorHandler {
  /** The whole current state (after each list); the handler diffs it against what it holds. */
  readonly replace: (items: ReadonlyArray<KObject>, now: number) => void
  readonly event: (type: "ADDED" | "MODIFIED" | "DELETED", object: KObject, now: number) => void
}

/** Runs forever; each relist waits `backoffMs` (default 1 s) after a failure. */
export const reflect = (
  resource: ResourceType,
  handler: ReflectorHandler,
  opts: Pick<ListOptions, "namespace" | "labelSelector" | "fieldSelector"> & { readonly backoffMs?: number } = {}
): Effect.Effect<never, never, ApiClient> =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    const random = yield* Effect.serviceOption(SeededRandom)
    const rng = Option.isSome(random) ? random.value.split(`reflector/${resource.plural}`) : undefined
    const { backoffMs = 1000, ...scope } = opts
    /** One watch from `rv`; returns the last resource version seen, or undefined when the watch must relist. */
    const watchFrom = (rv: string) =>
      Effect.gen(function* () {
        // As client-go's reflector: integral timeouts of minWatchTimeout (5 min) × (1 + rand), and bookmarks, which
        // keep the version to re-watch from recent (a re-watch then replays little history).
        const timeoutSeconds = Math.floor(300 * (1 + (rng ? rng.next() : 0.5)))
        let last: string | undefined = rv
        // A chunk at a time: one clock reading and one effect per chunk instead of per event (a chunk is handled
        // without suspending, so virtual time cannot move within it).
        yield* client.watch(resource, { ...scope, resourceVersion: rv, timeoutSeconds, allowWatchBookmarks: true }).pipe(
          Stream.run(
            Sink.forEachChunkWhile((events: Chunk.Chunk<WatchEvent>) =>
              Effect.map(Clock.currentTimeMillis, (now) => {
                for (const e of events) {
                  if (e.type === "ERROR") {
                    last = undefined
                    return false
                  }
                  if (e.type !== "BOOKMARK") handler.event(e.type, e.object, now)
                  if (e.object.metadata.resourceVersion) last = e.object.metadata.resourceVersion
                }
                return true
              })
            )
          )
        )
        return last
      })
    // List once, then re-watch from the last version seen after every timeout; relist only after an error
    // (410 Expired, a dropped watcher, a failed request).
    const once = Effect.gen(function* () {
      const list = yield* client.list(resource, scope)
      handler.replace(list.items, yield* Clock.currentTimeMillis)
      let rv: string | undefined = list.metadata.resourceVersion
      while (rv !== undefined) {
        const started = yield* Clock.currentTimeMillis
        rv = yield* watchFrom(rv)
        // A watch that ended at once (server closing watchers) must not spin at one instant.
        if ((yield* Clock.currentTimeMillis) === started) yield* Effect.sleep(Duration.millis(backoffMs))
      }
    })
    return yield* Effect.forever(
      once.pipe(Effect.catchAll(() => Effect.sleep(Duration.millis(backoffMs))))
    )
  })

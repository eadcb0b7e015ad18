/**
 * An informer: a reflector feeding the cache, and event handlers told about every change (client-go's
 * `sharedIndexInformer` with `ResourceEventHandlerFuncs`, without resync). Handlers run synchronously, in the
 * order the changes reach the cache; a relist tells them what changed while the watch was down (`Cache.replace`).
 * Several handler sets on one informer are client-go's `AddEventHandler` called several times on one shared
 * informer (what a `SharedInformerFactory` hands every caller asking for the same type): one list, one watch, one
 * cache, and every handler set told about every change, each in the order the changes reach the cache.
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import type { KObject } from "../api/Object.js"
import type { ApiClient } from "../client/ApiClient.js"
import { Cache, type Delta } from "./Cache.js"
import { makeReflector, type ReflectorOptions, type ReflectorStats } from "./Reflector.js"

/** `now` is the Clock time (ms) the change was received. */
export interface EventHandlers {
  /** `isInInitialList`: the object came with the first list (client-go's `OnAdd(obj, isInInitialList)`). */
  readonly onAdd?: (object: KObject, now: number, isInInitialList: boolean) => void
  readonly onUpdate?: (old: KObject, object: KObject, now: number) => void
  /** After a relist, `object` is the last state the cache held (client-go's `DeletedFinalStateUnknown`). */
  readonly onDelete?: (object: KObject, now: number) => void
}

export interface InformerStats extends ReflectorStats {
  /** Objects in the cache. */
  readonly items: number
}

export interface Informer {
  readonly cache: Cache
  /** Completes once the first list is in the cache and its handlers ran (client-go `HasSynced`). */
  readonly synced: Effect.Effect<void>
  readonly hasSynced: Effect.Effect<boolean>
  readonly stats: Effect.Effect<InformerStats>
}

const deliver = (handlerSets: ReadonlyArray<EventHandlers>, delta: Delta, now: number, isInInitialList: boolean) =>
  deliverEach(handlerSets, delta.type, delta.object, delta.type === "Updated" ? delta.old : undefined, now, isInInitialList)

const deliverEach = (
  handlerSets: ReadonlyArray<EventHandlers>,
  type: Delta["type"],
  object: KObject,
  old: KObject | undefined,
  now: number,
  isInInitialList: boolean
) => {
  for (const handlers of handlerSets) {
    switch (type) {
      case "Added":
        handlers.onAdd?.(object, now, isInInitialList)
        break
      case "Updated":
        handlers.onUpdate?.(old!, object, now)
        break
      case "Deleted":
        handlers.onDelete?.(object, now)
        break
    }
  }
}

/** An informer running in the current scope; it stops with the scope. An array of handler sets shares it (above). */
export const startInformer = (
  options: ReflectorOptions,
  handlerSetOrSets: EventHandlers | ReadonlyArray<EventHandlers> = {}
): Effect.Effect<Informer, never, ApiClient | Scope.Scope> =>
  Effect.gen(function* () {
    const handlers: ReadonlyArray<EventHandlers> = Array.isArray(handlerSetOrSets) ? handlerSetOrSets : [handlerSetOrSets as EventHandlers]
    const cache = new Cache()
    let listed = false
    const reflector = yield* makeReflector(options, {
      add: (object, now) => deliver(handlers, cache.upsert(object), now, false),
      update: (object, now) => deliver(handlers, cache.upsert(object), now, false),
      delete: (object, now) => {
        const delta = cache.delete(object)
        if (delta) deliver(handlers, delta, now, false)
      },
      replace: (items, _resourceVersion, now) => {
        const initial = !listed
        listed = true
        cache.replaceEach(items, (type, object, old) => deliverEach(handlers, type, object, old, now, initial))
      }
    })
    yield* Effect.forkScoped(reflector.run)
    return {
      cache,
      synced: reflector.synced,
      hasSynced: reflector.hasSynced,
      stats: Effect.map(reflector.stats, (s) => ({ ...s, items: cache.size }))
    }
  })

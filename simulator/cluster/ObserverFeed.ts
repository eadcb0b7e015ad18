/**
 * A `ClusterObserver` fed by informers over any `ApiClient` — the real-time run's view of the server, as the store
 * subscription is the simulation's. Each informer event becomes the `Change` the store would have reported, timed
 * when it was received.
 */
import type { Effect, Scope } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { ResourceType } from "../../src/api/Resources.js"
import type { ApiClient } from "../../src/client/ApiClient.js"
import { startInformer, type Informer } from "../../src/informer/Informer.js"
import type { ReflectorOptions } from "../../src/informer/Reflector.js"
import { objectKey, type Change, type ChangeType } from "../apiserver/Store.js"

const changeOf = (type: ChangeType, resource: ResourceType, object: KObject, previous: KObject | undefined, time: number): Change => ({
  revision: Number(object.metadata.resourceVersion ?? 0),
  type,
  resource,
  key: objectKey(object.metadata.namespace, object.metadata.name ?? ""),
  object,
  previous,
  time
})

/** An informer handing every change of `resource` that `accept` takes to `observe`. */
export const feedChanges = (
  options: ReflectorOptions,
  observe: (change: Change) => void,
  accept: (object: KObject) => boolean = () => true
): Effect.Effect<Informer, never, ApiClient | Scope.Scope> =>
  startInformer(options, {
    onAdd: (object, now) => {
      if (accept(object)) observe(changeOf("ADDED", options.resource, object, undefined, now))
    },
    onUpdate: (old, object, now) => {
      if (accept(object)) observe(changeOf("MODIFIED", options.resource, object, old, now))
    },
    onDelete: (object, now) => {
      if (accept(object)) observe(changeOf("DELETED", options.resource, object, object, now))
    }
  })

/**
 * kind/apiVersion of what the server hands out. Stored objects carry none, and list items of built-in types
 * carry none either (as upstream serves them); single objects and lists do.
 */
import type { KList, KObject } from "../../src/api/Object.js"
import { apiVersionOf, type ResourceType } from "../../src/api/Resources.js"
import { rememberTypedCopy } from "./JsonLength.js"
import { withTypeMeta } from "./WatchHub.js"

/** A GET adds kind/apiVersion once per stored version (weakly held), so hot objects are not copied per read. */
const typedObjects = new WeakMap<KObject, KObject>()
export const typedStored = (obj: KObject, resource: ResourceType): KObject => {
  let typed = typedObjects.get(obj)
  if (typed === undefined) {
    typed = withTypeMeta(obj, resource)
    typedObjects.set(obj, typed)
    if (typed !== obj) rememberTypedCopy(typed, obj)
  }
  return typed
}

export const listOf = (resource: ResourceType, items: ReadonlyArray<KObject>, metadata: KList["metadata"]): KList => ({
  kind: `${resource.kind}List`,
  apiVersion: apiVersionOf(resource),
  metadata,
  items
})

/** The object without kind/apiVersion (itself when it has none). */
export const stripTypeMeta = (obj: KObject): KObject => {
  if (obj.kind === undefined && obj.apiVersion === undefined) return obj
  const { kind: _k, apiVersion: _a, ...rest } = obj
  return rest as KObject
}

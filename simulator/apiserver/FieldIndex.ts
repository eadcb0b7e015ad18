/**
 * Fields the server indexes, as upstream's watch cache does: pods by `spec.nodeName` (kubernetes/kubernetes
 * `pkg/registry/core/pod/strategy.go`: `Indexers()` and `NodeNameTriggerFunc`, `IndexFields: ["spec.nodeName"]`).
 * A LIST or watch whose field selector pins the field (`spec.nodeName=x`) then reads the index instead of every
 * object, and a change is offered only to the watchers of its old and new value — what makes thousands of
 * kubelet-style per-node pod watches cheap.
 */
import { requiresExactMatch, type FieldSelector } from "../../src/api/FieldSelector.js"
import type { KObject } from "../../src/api/Object.js"
import { Pods, type ResourceType } from "../../src/api/Resources.js"

export interface IndexedField {
  readonly field: string
  /** The object's value of the field ("" when unset, as a field selector reads it). */
  readonly valueOf: (obj: KObject) => string
}

const podNodeName: IndexedField = {
  field: "spec.nodeName",
  valueOf: (obj) => {
    const v = (obj as { spec?: { nodeName?: unknown } }).spec?.nodeName
    return typeof v === "string" ? v : ""
  }
}

/** The indexed field of a resource type, if it has one. */
export const indexedFieldOf = (resource: ResourceType): IndexedField | undefined => (resource === Pods ? podNodeName : undefined)

/** The value a parsed field selector pins the indexed field to (an `=` term; upstream's exact-match trigger). */
export const pinnedIndexValue = (resource: ResourceType, fields: FieldSelector | undefined): string | undefined => {
  const indexed = indexedFieldOf(resource)
  if (indexed === undefined || fields === undefined) return undefined
  return requiresExactMatch(fields, indexed.field)
}

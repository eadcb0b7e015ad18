/**
 * The metadata a lease renewal writes (`LeaseRenewal.ts`): the stored metadata with new managed fields, built as an
 * object literal of the keys a node agent's lease has. A copy by `Object.assign` keeps an object literal's four
 * in-object slots and puts the rest — `creationTimestamp`, `managedFields`, `resourceVersion`, the keys every
 * renewal writes and the next one reads — in a second object: one more allocation per renewal, kept 10 s, and one
 * more cold read by the next renewal (docs/benchmarks.md "Where a lease renewal's CPU goes"). A literal has every
 * key in-object. Only metadata with exactly one of the listed key sequences is built so; any other is copied.
 * Either way the same object: own data properties, the same values, in the same order.
 */
import type { ObjectMeta } from "../../src/api/Object.js"
import { shallowCopy } from "../../src/api/internal/V8Shapes.js"

type Meta = { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] }

/** A lease an agent created once its Node's uid was known (`LeaseRenewer.newLease`, stored by `Write.createObject`). */
const owned = ["name", "namespace", "ownerReferences", "uid", "creationTimestamp", "managedFields", "resourceVersion"] as const
/** The same with the run's owner label (`NodeAgentEnvironment.ownerLabel`). */
const labelledOwned = ["name", "namespace", "labels", "ownerReferences", "uid", "creationTimestamp", "managedFields", "resourceVersion"] as const
/** A lease created before the Node's uid was known, or by another client. */
const plain = ["name", "namespace", "uid", "creationTimestamp", "managedFields", "resourceVersion"] as const

/** `meta`'s enumerable keys are exactly `keys`, in that order. */
const hasKeys = (meta: Readonly<Record<string, unknown>>, keys: ReadonlyArray<string>): boolean => {
  let n = 0
  for (const key in meta) if (key !== keys[n++]) return false
  return n === keys.length
}

/** `{ ...meta, managedFields }`: a copy of `meta` (its keys in its order) with `managedFields` in place. */
export const renewedMetadata = (meta: ObjectMeta, managedFields: ObjectMeta["managedFields"]): Meta => {
  const m = meta as Readonly<Record<string, unknown>> & ObjectMeta
  if (hasKeys(m, owned))
    return {
      name: m.name,
      namespace: m.namespace,
      ownerReferences: m.ownerReferences,
      uid: m.uid,
      creationTimestamp: m.creationTimestamp,
      managedFields,
      resourceVersion: m.resourceVersion
    }
  if (hasKeys(m, labelledOwned))
    return {
      name: m.name,
      namespace: m.namespace,
      labels: m.labels,
      ownerReferences: m.ownerReferences,
      uid: m.uid,
      creationTimestamp: m.creationTimestamp,
      managedFields,
      resourceVersion: m.resourceVersion
    }
  if (hasKeys(m, plain))
    return { name: m.name, namespace: m.namespace, uid: m.uid, creationTimestamp: m.creationTimestamp, managedFields, resourceVersion: m.resourceVersion }
  const copy: Meta = shallowCopy(meta)
  copy.managedFields = managedFields
  return copy
}

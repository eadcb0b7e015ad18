/**
 * The metadata a lease renewal writes (`LeaseRenewal.ts`): the stored metadata with new managed fields, built as an
 * object literal of the keys a node agent's lease has. A copy by `Object.assign` keeps an object literal's four
 * in-object slots and puts the rest — `creationTimestamp`, `managedFields`, `resourceVersion`, the keys every
 * renewal writes and the next one reads — in a second object: one more allocation per renewal, kept 10 s, and one
 * more cold read by the next renewal (docs/benchmarks.md "Where a lease renewal's CPU goes"). A literal has every
 * key in-object. Only metadata with exactly one of the listed key sequences is built so; any other is copied.
 * Either way the same object: own data properties, the same values, in the same order. The fields a renewal copies are
 * kept by the lease's store cell (`KnownMetadata`), so the next renewal builds its metadata from them.
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
  knowMetadata(reading, meta)
  if (reading.metaOf === undefined) {
    const copy: Meta = shallowCopy(meta)
    copy.managedFields = managedFields
    return copy
  }
  const built = renewedFromKnown(reading, managedFields)
  built.resourceVersion = meta.resourceVersion
  // `meta` itself is not held past the copy
  reading.metaOf = undefined
  return built
}

/** `renewedMetadata`'s reading of the metadata it copies (one at a time). */
const reading: KnownMetadata = {
  metaOf: undefined,
  metaLayout: 0,
  metaName: undefined,
  metaNamespace: undefined,
  metaLabels: undefined,
  metaOwnerReferences: undefined,
  metaUid: undefined,
  metaCreationTimestamp: undefined
}

/**
 * What a renewal reads of the metadata it wrote last, kept where the next renewal reads anyway — the lease's store cell
 * (`Store.RenewableCell`): every field but `managedFields` and `resourceVersion`, which a renewal writes anew, and which
 * of the sequences above holds them. The stored metadata is a new object every 10 s, so its first read is a cache
 * miss of its own at 65,000 leases (~4.6 % of that hour's steady state, docs/benchmarks.md "History"). Trusted only
 * while `metaOf` is the stored metadata itself: every write stores a new metadata object (its resourceVersion is new)
 * and a stored object is never changed, so these are that object's fields.
 */
export interface KnownMetadata {
  /** The metadata these fields are of; undefined: none known. */
  metaOf: ObjectMeta | undefined
  /** 0: `owned`, 1: `labelledOwned`, 2: `plain`. */
  metaLayout: number
  metaName: ObjectMeta["name"]
  metaNamespace: ObjectMeta["namespace"]
  metaLabels: ObjectMeta["labels"]
  metaOwnerReferences: ObjectMeta["ownerReferences"]
  metaUid: ObjectMeta["uid"]
  metaCreationTimestamp: ObjectMeta["creationTimestamp"]
}

/** Keeps in `known` the fields of `meta`, metadata a renewal just built (young: read at no cost), when it is one of the sequences above. */
export const knowMetadata = (known: KnownMetadata, meta: ObjectMeta): void => {
  const m = meta as Readonly<Record<string, unknown>> & ObjectMeta
  const layout = hasKeys(m, owned) ? 0 : hasKeys(m, labelledOwned) ? 1 : hasKeys(m, plain) ? 2 : -1
  if (layout < 0) {
    known.metaOf = undefined
    return
  }
  known.metaOf = meta
  known.metaLayout = layout
  known.metaName = m.name
  known.metaNamespace = m.namespace
  known.metaLabels = m.labels
  known.metaOwnerReferences = m.ownerReferences
  known.metaUid = m.uid
  known.metaCreationTimestamp = m.creationTimestamp
}

/**
 * `renewedMetadata(known.metaOf, managedFields)` built from `known` without reading the metadata, but for its
 * `resourceVersion`, left empty: the store stamps the write's own in place (`Store.replace` with `fresh`) before anyone
 * sees it.
 */
export const renewedFromKnown = (known: KnownMetadata, managedFields: ObjectMeta["managedFields"]): Meta => {
  const layout = known.metaLayout
  if (layout === 0)
    return {
      name: known.metaName,
      namespace: known.metaNamespace,
      ownerReferences: known.metaOwnerReferences,
      uid: known.metaUid,
      creationTimestamp: known.metaCreationTimestamp,
      managedFields,
      resourceVersion: ""
    }
  if (layout === 1)
    return {
      name: known.metaName,
      namespace: known.metaNamespace,
      labels: known.metaLabels,
      ownerReferences: known.metaOwnerReferences,
      uid: known.metaUid,
      creationTimestamp: known.metaCreationTimestamp,
      managedFields,
      resourceVersion: ""
    }
  return { name: known.metaName, namespace: known.metaNamespace, uid: known.metaUid, creationTimestamp: known.metaCreationTimestamp, managedFields, resourceVersion: "" }
}

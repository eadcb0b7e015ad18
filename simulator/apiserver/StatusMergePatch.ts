/**
 * A merge patch of only an object's status, through its status subresource, written directly (issue 39; the pods'
 * counterpart of NodeHeartbeat.ts): every pod's first status PATCH by its node agent (`PodStarter.run`), 150,000 of
 * them in the 5,000-node hour's first minutes (docs/cluster.md "The pod-start storm's status patches"). The general
 * path (`Write.patchAt` → `updateObject`) makes the patched object, a decoded copy, the status write's merged copy,
 * the candidate's server-owned metadata and the managed fields' copy, each checked again for what a status-only patch
 * of a stored object cannot change; ~900 bytes and a third of a pod start's CPU (docs/benchmarks.md).
 *
 * What it works out holds here by construction: the patched object is the stored one with the merged status
 * (`Patch.ts` `mergedObjectPart`, the same merge and remembered parts); its metadata is the stored metadata, which
 * the status write keeps and the server-owned metadata leaves as it is when the object is live (no deletion
 * timestamp or grace period), named by the request (name, namespace) and its labels and annotations are not empty
 * maps; its type meta, name and resourceVersion are the stored ones, so no 400 or 409 can come. It is then decoded,
 * validated, given its managed fields, compared and stored as the general path does, by the same functions. Anything
 * else (another patch type or body, a body as text, a dry run, a terminating object, a kind without a schema, a body
 * that does not decode cleanly or an invalid status) returns undefined and goes the general way, which answers it.
 */
import { mergedObjectPart } from "../../src/api/Patch.js"
import { shallowCopy } from "../../src/api/internal/V8Shapes.js"
import { decodesCleanly } from "../../src/api/kinds/FieldSchema.js"
import { rbacGroup } from "../../src/api/kinds/Rbac.js"
import { validateForUpdate } from "../../src/api/kinds/Validation.js"
import { isRecord, type KObject, type ObjectMeta } from "../../src/api/Object.js"
import type { PatchType, WriteOptions, WriteResult } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { sameObject } from "../../src/api/SameObject.js"
import { isDryRun, type Body } from "./Decode.js"
import { updatedManagedFields } from "./FieldManager.js"
import type { Entry, Store } from "./Store.js"
import { withTypeMeta } from "./WatchHub.js"

const noWarnings: ReadonlyArray<string> = Object.freeze([])

/** The status patch's answer, or undefined when `body` is not a status-only merge patch this path may write. */
export const writeStatusMergePatch = (
  store: Store,
  resource: ResourceType,
  name: string,
  entry: Entry,
  patchType: PatchType,
  body: Body,
  opts: WriteOptions,
  now: number
): WriteResult | undefined => {
  if (patchType !== "merge" || body.raw !== undefined || opts.subresource !== "status" || isDryRun(opts.dryRun)) return undefined
  const patch = body.value
  if (!isRecord(patch) || !onlyStatus(patch)) return undefined
  const sent = patch.status
  const stored = entry.obj
  const status = stored.status
  const schema = resource.rules.schema
  // (RBAC kinds have no status; their writes are checked for escalation, which this path does not do.)
  if (!isRecord(sent) || !isRecord(status) || !Object.hasOwn(stored, "status") || schema === undefined || resource.group === rbacGroup) return undefined
  const meta = stored.metadata
  if ("kind" in stored || "apiVersion" in stored || !keepsMetadata(stored, resource, name, opts)) return undefined
  // The merge patch's object: the stored one with the merged status (`mergeInto`'s copy, and the status write's).
  const written: { -readonly [K in keyof KObject]: KObject[K] } = shallowCopy(stored)
  written.status = mergedObjectPart(status, sent, schema)
  // `decodeBody` of the patched object: parts it shares with the stored one are not walked.
  if (!decodesCleanly(schema, written, stored)) return undefined
  if (validateForUpdate(resource.rules, written, stored).length > 0) return undefined
  // The spec is the stored one: a workload's generation stays. `recordUpdate`, its new metadata set on the copy.
  const entries = updatedManagedFields(resource, stored, written, opts, now)
  const current = meta.managedFields
  const fresh = entries !== current && !(entries.length === 0 && current === undefined)
  if (fresh) {
    const metadata: { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] } = shallowCopy(meta)
    if (entries.length === 0) delete metadata.managedFields
    else metadata.managedFields = entries
    written.metadata = metadata
  }
  // The no-op check, the status first: the part that differs when any does.
  if (sameObject(written.status, status) && sameObject(written, stored)) return { code: 200, object: withTypeMeta(stored, resource), warnings: noWarnings }
  // New managed fields came in new metadata made for this write: stored as they are; else the store copies.
  return { code: 200, object: withTypeMeta(store.replace(resource, entry, written, now, fresh), resource), warnings: noWarnings }
}

/** Exactly one key, `status`. */
const onlyStatus = (patch: Readonly<Record<string, unknown>>): boolean => {
  let n = 0
  for (const key in patch) if (key !== "status" || ++n > 1) return false
  return n === 1
}

/**
 * The stored metadata is the candidate's as `Write.updateObject` makes it for a status write of the stored object:
 * named by the request, with a resourceVersion (so the write is conditional on it, and meets it), live, and without
 * an empty label or annotation map (`serverOwnedMeta` would copy the metadata to drop it).
 */
const keepsMetadata = (stored: KObject, resource: ResourceType, name: string, opts: WriteOptions): boolean => {
  const meta = stored.metadata
  return (
    name !== "" &&
    meta.name === name &&
    (resource.namespaced ? opts.namespace !== undefined && opts.namespace !== "" && meta.namespace === opts.namespace : meta.namespace === undefined) &&
    typeof meta.resourceVersion === "string" &&
    meta.resourceVersion !== "" &&
    meta.deletionTimestamp === undefined &&
    meta.deletionGracePeriodSeconds === undefined &&
    !isEmptyMap(meta.labels) &&
    !isEmptyMap(meta.annotations)
  )
}

/** `Write.ts`'s `isEmptyMap`, without the key list. */
const isEmptyMap = (m: unknown): boolean => {
  if (!isRecord(m)) return false
  for (const key in m) if (Object.hasOwn(m, key)) return false
  return true
}

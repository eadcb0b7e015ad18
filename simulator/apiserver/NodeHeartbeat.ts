/**
 * A node's heartbeat recognised and written directly (issue 39; the status report's counterpart of a lease renewal's
 * path, LeaseRenewal.ts, docs/benchmarks.md "Where a lease renewal's CPU goes"): the node agent's status report
 * (`StatusReporter.post`), a merge patch of `nodes/<name>/status` with `{status: {capacity, allocatable, conditions}}`,
 * sent every nodeStatusReportFrequency per node, in which usually only the conditions' `lastHeartbeatTime` changed.
 * The general path (`Write.patchAt`: merge patch, decode, `updateObject`, `ManagedFields.afterUpdate`) spent ~20× a
 * renewal's CPU on it, mostly comparing the patched status with the stored one. What it works out holds here by
 * construction when the capacities name the stored quantities and every condition is the stored one at its place,
 * every field the same text but a new, well-formed `lastHeartbeatTime`, a leaf the manager's status entry alone owns:
 * the write stores the stored object with the sent conditions, its managed fields the stored ones with that entry at
 * the time of the write (`OwnEntry.ownItemLeavesEntry`, `withOwnEntryTime`), and answers what the general path
 * answers. Anything else (another shape or patch type, a changed condition or capacity, a body as text, a dry run, a
 * terminating node, a heartbeat another manager owns, the first report after registration, before the status entry
 * exists) returns undefined and goes the general way.
 */
import { scopeOf, managerOf } from "./FieldManager.js"
import { ownItemLeavesEntry, withOwnEntryTime } from "../../src/api/apply/OwnEntry.js"
import type { ManagedFieldsEntry } from "../../src/api/apply/ManagedFields.js"
import { itemKey } from "../../src/api/apply/FieldSet.js"
import { shallowCopy } from "../../src/api/internal/V8Shapes.js"
import { decodesAsTime, fieldOf, listSemantics, type FieldSchema } from "../../src/api/kinds/FieldSchema.js"
import { validateForUpdate } from "../../src/api/kinds/Validation.js"
import { isRecord, type KObject, type ObjectMeta } from "../../src/api/Object.js"
import type { PatchType, WriteOptions, WriteResult } from "../../src/api/Requests.js"
import { Nodes, type ResourceType } from "../../src/api/Resources.js"
import { isDryRun, type Body } from "./Decode.js"
import type { Entry, Store } from "./Store.js"
import { rfc3339 } from "./SystemMeta.js"
import { withTypeMeta } from "./WatchHub.js"

const noWarnings: ReadonlyArray<string> = Object.freeze([])
/** A condition's key field: the one key of the conditions list (checked against the schema, `isHeartbeatSchema`). */
const typeKey: ReadonlyArray<string> = Object.freeze(["type"])

/** The heartbeat's answer, or undefined when `body` is not a heartbeat of `entry`'s node that this path may write. */
export const writeHeartbeat = (
  store: Store,
  resource: ResourceType,
  name: string,
  entry: Entry,
  patchType: PatchType,
  body: Body,
  opts: WriteOptions,
  now: number
): WriteResult | undefined => {
  if (resource !== Nodes || patchType !== "merge" || body.raw !== undefined || opts.subresource !== "status" || isDryRun(opts.dryRun)) return undefined
  const patch = body.value
  if (!isRecord(patch) || !onlyStatus(patch)) return undefined
  const stored = entry.obj
  const meta = stored.metadata
  const status = stored.status
  const sent = patch.status
  if (meta.deletionTimestamp !== undefined || meta.name !== name || !isRecord(status) || !isRecord(sent) || !isHeartbeatSchema(resource.rules.schema)) return undefined
  let conditions: unknown
  for (const key in sent) {
    const value = sent[key]
    if (key === "conditions") conditions = value
    else if (!((key === "capacity" || key === "allocatable") && namesStored(status[key], value))) return undefined
  }
  const items = heartbeatItems(status.conditions, conditions)
  if (items === undefined) return undefined
  const entries = meta.managedFields as ReadonlyArray<ManagedFieldsEntry> | undefined
  if (!Array.isArray(entries)) return undefined
  const scope = scopeOf(resource, "status")
  const own = ownItemLeavesEntry(entries, managerOf(opts), scope, "f:status", "f:conditions", items, "f:lastHeartbeatTime")
  if (own < 0) return undefined
  const next = withOwnEntryTime(entries, own, scope, rfc3339(now))
  if (next === undefined) return undefined
  // What the merge patch and `mergeForUpdate` make: the stored object and status, the status's conditions the sent
  // ones (a merge patch replaces a list; the quantities it merges are the stored ones, so the stored maps stand).
  const nextStatus: Record<string, unknown> = shallowCopy(status)
  nextStatus.conditions = conditions
  const written: { -readonly [K in keyof KObject]: KObject[K] } = shallowCopy(stored)
  written.status = nextStatus
  // Validated as the general path validates the candidate (the stored metadata, so nothing of it is checked again).
  if (validateForUpdate(resource.rules, written, stored).length > 0) return undefined
  // `withManagedFields`: new metadata for the store to stamp in place.
  const metadata: { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] } = shallowCopy(meta)
  metadata.managedFields = next
  written.metadata = metadata
  return { code: 200, object: withTypeMeta(store.replace(resource, entry, written, now, true), resource), warnings: noWarnings }
}

/** Exactly one key, `status`. */
const onlyStatus = (patch: Readonly<Record<string, unknown>>): boolean => {
  let n = 0
  for (const key in patch) if (key !== "status" || ++n > 1) return false
  return n === 1
}

/**
 * A resource list (`capacity`, `allocatable`) whose every quantity is the stored one's text: merged into the stored
 * map by the merge patch, it leaves the map as it was.
 */
const namesStored = (stored: unknown, sent: unknown): boolean => {
  if (!isRecord(stored) || !isRecord(sent)) return false
  if (stored === sent) return true
  for (const key in sent) {
    const quantity = sent[key]
    if (typeof quantity !== "string" || quantity !== stored[key]) return false
  }
  return true
}

/**
 * The keys (`k:{"type":…}`) of the sent conditions when each is the stored condition at its place, both with exactly a
 * condition's six fields as texts (as `StatusReporter.post` sends them; a merge patch would drop a null), every one the
 * same but a new, well-formed `lastHeartbeatTime`, and their types distinct (as `TypedFields.changeExtent` takes a keyed
 * list item by item); else undefined. The unchanged fields are the stored texts, which decoded when they were stored.
 * Named reads, not a walk of each condition's keys: a keyed read per field cost this path more than all the rest.
 */
const heartbeatItems = (stored: unknown, sent: unknown): ReadonlyArray<string> | undefined => {
  if (!Array.isArray(stored) || !Array.isArray(sent) || sent.length === 0 || sent.length !== stored.length) return undefined
  const keys: string[] = []
  let checkedTime: unknown
  for (let i = 0; i < sent.length; i++) {
    const condition: unknown = sent[i]
    const before: unknown = stored[i]
    if (!isRecord(condition) || !isRecord(before)) return undefined
    const heartbeat = condition.lastHeartbeatTime
    const was = before.lastHeartbeatTime
    if (typeof heartbeat !== "string" || typeof was !== "string" || heartbeat === was) return undefined
    // The agent sends one text for all its conditions: checked once.
    if (heartbeat !== checkedTime) {
      if (!decodesAsTime(heartbeat)) return undefined
      checkedTime = heartbeat
    }
    const type = condition.type
    if (
      typeof type !== "string" ||
      type !== before.type ||
      !sameText(condition.status, before.status) ||
      !sameText(condition.lastTransitionTime, before.lastTransitionTime) ||
      !sameText(condition.reason, before.reason) ||
      !sameText(condition.message, before.message) ||
      fieldCount(condition) !== conditionFields ||
      fieldCount(before) !== conditionFields
    )
      return undefined
    for (let j = 0; j < i; j++) if ((sent[j] as Record<string, unknown>).type === type) return undefined
    keys.push(itemKey(condition, typeKey))
  }
  return keys
}

/** A condition's fields: type, status, lastHeartbeatTime, lastTransitionTime, reason, message. */
const conditionFields = 6

const sameText = (sent: unknown, stored: unknown): boolean => typeof sent === "string" && sent === stored

const fieldCount = (obj: Readonly<Record<string, unknown>>): number => {
  let n = 0
  for (const _ in obj) n++
  return n
}

/**
 * Whether the kind's schema is the one this path is written for: `status` and each condition granular structs, the
 * conditions a list keyed by `type` alone, `lastHeartbeatTime` a time (what `TypedFields.changeExtent` and the decoder
 * see of a heartbeat). Asked of a schema once.
 */
const isHeartbeatSchema = (schema: FieldSchema | undefined): boolean => {
  if (schema === undefined) return false
  let known = heartbeatSchemas.get(schema)
  if (known === undefined) heartbeatSchemas.set(schema, (known = heartbeatShaped(schema)))
  return known
}

const heartbeatSchemas = new WeakMap<FieldSchema, boolean>()

const isGranularStruct = (s: FieldSchema | undefined): s is Extract<FieldSchema, { type: "object" }> => s?.type === "object" && s.patch?.structType !== "atomic"

const heartbeatShaped = (schema: FieldSchema): boolean => {
  if (!isGranularStruct(schema)) return false
  const status = fieldOf(schema, "status")
  if (!isGranularStruct(status)) return false
  const conditions = fieldOf(status, "conditions")
  if (conditions?.type !== "array" || !isGranularStruct(conditions.items)) return false
  const semantics = listSemantics(conditions)
  return (
    semantics.type === "map" &&
    semantics.keys.length === 1 &&
    semantics.keys[0] === typeKey[0] &&
    semantics.keyDefaults === undefined &&
    fieldOf(conditions.items, "lastHeartbeatTime")?.type === "time"
  )
}

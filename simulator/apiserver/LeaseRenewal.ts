/**
 * A lease renewal recognised and written directly (issue 39, docs/benchmarks.md "Where a lease renewal's CPU goes"): a
 * PUT of a Lease that sends back the stored metadata itself and the stored spec with only a new `renewTime`, as a node
 * agent's lease client does ~500 times a second in the 5,000-node hour. What the generic update
 * (`Write.updateObject`) works out for every write holds here by construction: the metadata is the stored one, so the
 * name, namespace, resourceVersion and server-owned fields agree; one leaf changed, so the write is no no-op and
 * leases have no defaults; and when that leaf is owned by the writing manager alone, the managed fields are the
 * stored ones with that manager's entry at the time of the write (`OwnEntry.ownLeafEntry`). The write stores
 * what the general path would store and answers what it would answer; anything else (another shape, a body as text,
 * a dry run, a terminating lease, a field another manager owns) returns undefined and goes the general way.
 */
import { decodesInSecond, secondOf } from "./CompactMicroTime.js"
import { managerOf, scopeOf } from "./FieldManager.js"
import { isKnownRenewal } from "./KnownRenewal.js"
import { renewedMetadata } from "./RenewedMetadata.js"
import { sameKeyOrder, type RenewedVersion } from "./RenewedVersion.js"
import type { FieldTree } from "../../src/api/apply/FieldSet.js"
import { ownEntryAlone, ownLeafEntry, ownLeafEntryOfRenewed, withOwnEntryTime } from "../../src/api/apply/OwnEntry.js"
import type { ManagedFieldsEntry } from "../../src/api/apply/ManagedFields.js"
import { decodesAsMicroTime } from "../../src/api/kinds/FieldSchema.js"
import { validateForUpdateOfStoredMetadata } from "../../src/api/kinds/Validation.js"
import { isRecord, type KObject } from "../../src/api/Object.js"
import type { WriteOptions, WriteResult } from "../../src/api/Requests.js"
import { Leases, type ResourceType } from "../../src/api/Resources.js"
import type { Body } from "./Decode.js"
import type { Entry, Store } from "./Store.js"
import { rfc3339 } from "./SystemMeta.js"

const noWarnings: ReadonlyArray<string> = Object.freeze([])

/** The renewal's answer, or undefined when `body` is not a renewal of `entry`'s lease that this path may write. */
export const writeRenewal = (
  store: Store,
  resource: ResourceType,
  name: string,
  entry: Entry,
  body: Body,
  opts: WriteOptions,
  now: number
): WriteResult | undefined => {
  if (resource !== Leases || body.raw !== undefined || opts.subresource !== undefined || (opts.dryRun !== undefined && opts.dryRun.length > 0)) return undefined
  const value = body.value
  const stored = entry.obj
  const meta = stored.metadata
  // The stored metadata is read, not kept by the lease's cell: its agent read it just before it sent it back (it reads
  // it ahead, `nodeagent/AgentPrefetch.ts`), where a copy in the cell was one more cold line of the cell per renewal.
  if (!isRecord(value) || value.metadata !== meta || meta.deletionTimestamp !== undefined || meta.name !== name || meta.namespace !== opts.namespace) return undefined
  const spec = value.spec as Record<string, unknown>
  // A spec built by its agent as the stored one renewed (`KnownRenewal.ts`) is known to renew it: not read again.
  const knownSpec = isKnownRenewal(spec, stored.spec)
  if (!isMetadataAndSpec(value) || !(knownSpec ? hasMetadataAndSpecKeys(stored) : isMetadataAndSpec(stored))) return undefined
  if (!knownSpec && !renewsOnly(stored.spec as Record<string, unknown>, spec)) return undefined
  // A renewTime kept as numbers (`CompactMicroTime.ts`) is read once: its second says whether it decodes.
  const renewTime = spec.renewTime as string
  const second = secondOf(renewTime)
  if (!(second === second ? decodesInSecond(second) : decodesAsMicroTime(renewTime))) return undefined
  // The unchanged rest as the general path validates it (a stored lease not valid now is refused there); the metadata
  // is the stored object itself, which `validateObjectMetaUpdate` passes without a look.
  const candidate = value as KObject
  if (validateForUpdateOfStoredMetadata(resource.rules, candidate, stored).length > 0) return undefined
  const scope = scopeOf(resource, undefined)
  // A lease a renewal wrote last (the chain) has the entries that renewal accepted: who renews now decides alone.
  const chain = store.renewedVersion(entry)
  const manager = managerOf(opts)
  let own: number
  let next: ReadonlyArray<ManagedFieldsEntry> | undefined
  let ownFields: FieldTree | undefined
  if (chain !== undefined && chain.ownFields !== undefined) {
    // Its one entry is the chain's manager's, timed at the version's second (`RenewedVersion.ownFields`): not read.
    if (chain.manager !== manager) return undefined
    own = 0
    ownFields = chain.ownFields
    next = Math.floor(now / 1000) === chain.second ? (meta.managedFields as ReadonlyArray<ManagedFieldsEntry>) : ownEntryAlone(manager, scope, rfc3339(now), ownFields)
  } else {
    const entries = meta.managedFields as ReadonlyArray<ManagedFieldsEntry>
    if (!Array.isArray(entries)) return undefined
    own = (chain !== undefined ? ownLeafEntryOfRenewed(entries, manager, scope) : undefined) ?? ownLeafEntry(entries, manager, scope, "f:spec", "f:renewTime")
    if (own < 0) return undefined
    next = withOwnEntryTime(entries, own, scope, rfc3339(now))
    if (next === undefined) return undefined
    ownFields = entries.length === 1 ? entries[0]!.fieldsV1 : undefined
  }
  // What `withManagedFields` makes of the body (its keys in its order), made here for the store to stamp in place.
  const metadata = renewedMetadata(meta, next)
  const written: KObject = { metadata, spec }
  // Kept in the history as what it changed over the last full version (RenewedVersion.ts).
  const base = chain !== undefined ? chain.base : stored
  const renewed = store.renewalRecord().set(base, chain !== undefined ? chain.own : own, renewTime, second, inOrderOf(spec, stored, chain, knownSpec) ? undefined : spec, manager, ownFields)
  const kept = store.replace(resource, entry, written, now, true, renewed)
  // `withTypeMeta` of the stored `{ metadata, spec }`, built as a literal: the same keys in the same order, without
  // a spread's copy (half the bytes, and no runtime copy of the properties on every renewal).
  return { code: 200, object: { kind: resource.kind, apiVersion: resource.apiVersion, metadata: kept.metadata, spec: kept.spec }, warnings: noWarnings }
}

/**
 * `spec`'s keys in the order of the chain's base spec (`sameKeyOrder`). The stored spec a renewal kept without its own
 * copy (`RenewedVersion.spec` undefined) has the base's order, so the stored spec, already read, answers for it: the
 * base, written minutes ago, is not read again per renewal. A `known` renewal's spec has the stored spec's keys in
 * their order (`KnownRenewal.ts`).
 */
const inOrderOf = (spec: Readonly<Record<string, unknown>>, stored: KObject, chain: RenewedVersion | undefined, known: boolean): boolean =>
  chain === undefined || chain.spec === undefined
    ? known || sameKeyOrder(spec, stored.spec as Record<string, unknown>)
    : sameKeyOrder(spec, chain.base.spec as Record<string, unknown>)

/** Exactly `metadata` then `spec`, a record (no kind or apiVersion, nothing else). */
const isMetadataAndSpec = (obj: Readonly<Record<string, unknown>>): boolean => hasMetadataAndSpecKeys(obj) && isRecord(obj.spec)

/** Exactly the keys `metadata` then `spec`. */
const hasMetadataAndSpecKeys = (obj: Readonly<Record<string, unknown>>): boolean => {
  let n = 0
  for (const key in obj) {
    if ((n === 0 && key !== "metadata") || (n === 1 && key !== "spec") || n > 1) return false
    n++
  }
  return n === 2
}

/** `after` has the fields of `before`, every one the same value but a new `renewTime` text. */
const renewsOnly = (before: Readonly<Record<string, unknown>>, after: Readonly<Record<string, unknown>>): boolean => {
  const was = before.renewTime
  const renewTime = after.renewTime
  if (typeof was !== "string" || typeof renewTime !== "string" || renewTime === was) return false
  let fields = 0
  for (const key in after) {
    const v = after[key]
    if (v === undefined || (key !== "renewTime" && v !== before[key])) return false
    fields++
  }
  for (const key in before) {
    if (before[key] === undefined) return false
    fields--
  }
  return fields === 0
}

/**
 * The server's side of managed fields (`apiserver/pkg/endpoints/handlers/fieldmanager`): who the manager of a write is,
 * the scope it writes in, and the object with its `metadata.managedFields` after an Update or an Apply
 * (`src/api/apply/ManagedFields.ts`).
 */
import { Either } from "effect"
import { afterUpdate, applyConfig, type ManagedFieldsEntry, type WriteScope } from "../../src/api/apply/ManagedFields.js"
import { extendable } from "../../src/api/internal/V8Shapes.js"
import type { KObject } from "../../src/api/Object.js"
import type { WriteOptions } from "../../src/api/Requests.js"
import { apiVersionOf, type ResourceType } from "../../src/api/Resources.js"
import type { ApiError } from "../../src/api/Status.js"
import { rfc3339 } from "./SystemMeta.js"

const maxManagerBytes = 128

/** Not a control character (Go's `unicode.IsPrint` on the texts User-Agents hold). */
const isPrintable = (c: number): boolean => c >= 0x20 && c !== 0x7f && !(c >= 0x80 && c < 0xa0)

/** `prefixFromUserAgent`: the User-Agent up to its first `/`, printable characters only, at most 128 bytes. */
export const managerFromUserAgent = (userAgent: string): string => {
  let out = ""
  let bytes = 0
  for (const ch of userAgent.split("/")[0]!) {
    if (!isPrintable(ch.codePointAt(0)!)) continue
    const size = Buffer.byteLength(ch)
    if (bytes + size > maxManagerBytes) break
    out += ch
    bytes += size
  }
  return out
}

/** `?fieldManager=`, else the User-Agent's prefix (in-process callers without either manage as ""). */
export const managerOf = (opts: WriteOptions): string => opts.fieldManager ?? (opts.userAgent !== undefined ? managerFromUserAgent(opts.userAgent) : "")

/** Scopes made once per resource and subresource: a write's own entry is found by its scope (`ManagedFields.ts`). */
const scopes = new WeakMap<ResourceType, Map<string | undefined, WriteScope>>()

export const scopeOf = (resource: ResourceType, subresource: string | undefined): WriteScope => {
  let bySubresource = scopes.get(resource)
  if (bySubresource === undefined) scopes.set(resource, (bySubresource = new Map()))
  let scope = bySubresource.get(subresource)
  if (scope === undefined) {
    scope = { schema: resource.rules.schema, apiVersion: apiVersionOf(resource), subresource, hasStatus: resource.subresources.includes("status") }
    bySubresource.set(subresource, scope)
  }
  return scope
}

/** `obj` carrying `entries` as its managed fields: `obj` itself when it already does, else a new object with new metadata. */
export const withManagedFields = (obj: KObject, entries: ReadonlyArray<ManagedFieldsEntry>): KObject => {
  const current = obj.metadata.managedFields
  if (entries === current || (entries.length === 0 && current === undefined)) return obj
  const metadata: Record<string, unknown> = { ...extendable, ...obj.metadata }
  if (entries.length === 0) delete metadata.managedFields
  else metadata.managedFields = entries
  return { ...extendable, ...obj, metadata } as KObject
}

/**
 * The time of the write `recordUpdate` is recording, as text when an entry asks for it: one function for every
 * write rather than a closure and its context each (writes are synchronous, so one write's time at a time).
 */
let writeTime = 0
const writeTimeText = (): string => rfc3339(writeTime)

/** `after` with the managed fields of an Update from `before` (undefined for a create). */
export const recordUpdate = (resource: ResourceType, before: KObject | undefined, after: KObject, opts: WriteOptions, now: number): KObject =>
  withManagedFields(after, updatedManagedFields(resource, before, after, opts, now))

/** The managed fields `recordUpdate` gives `after`: the entries of `before` or `after` themselves when nothing changed. */
export const updatedManagedFields = (
  resource: ResourceType,
  before: KObject | undefined,
  after: KObject,
  opts: WriteOptions,
  now: number
): ReadonlyArray<ManagedFieldsEntry> => {
  writeTime = now
  return afterUpdate(before, after, managerOf(opts), scopeOf(resource, opts.subresource), writeTimeText)
}

/** An Apply of `config` onto `live`: the merged object, carrying its managed fields, or a 409. */
export const recordApply = (resource: ResourceType, live: KObject | undefined, config: KObject, opts: WriteOptions, now: number): Either.Either<KObject, ApiError> =>
  Either.map(applyConfig(live, config, managerOf(opts), opts.force === true, scopeOf(resource, opts.subresource), rfc3339(now)), (r) =>
    withManagedFields(r.object, r.managedFields)
  )

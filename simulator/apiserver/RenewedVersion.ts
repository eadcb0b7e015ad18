/**
 * A lease version written by a renewal (`LeaseRenewal.ts`), as the history window keeps it: what the renewal changed —
 * its spec (the new `renewTime`), its revision and its time (the own managed-fields entry's) — over a full version
 * written before. 5,000 agents keep ~150,000 lease versions in a 5-minute window; each full version is an object, its
 * metadata, a managed-fields list and entry and strings, which the garbage collector marks for 5 minutes
 * (docs/benchmarks.md "Where a lease renewal's CPU goes"). The version is made again, equal to what was stored, only
 * when a watch replays it or a list at an older revision reads it (`ChangeLog`).
 */
import { withOwnEntryTime, type ManagedFieldsEntry } from "../../src/api/apply/ManagedFields.js"
import type { KObject, ObjectMeta } from "../../src/api/Object.js"
import { shallowCopy } from "../../src/api/internal/V8Shapes.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { scopeOf } from "./FieldManager.js"
import { rfc3339 } from "./SystemMeta.js"

export class RenewedVersion {
  /** Set by the store when it writes the version. */
  revision = 0
  time = 0

  constructor(
    /** A full version this one differs from only by its spec, its resourceVersion and the time of the entry at `own`. */
    readonly base: KObject,
    /** The index of the renewing manager's entry in `base`'s managed fields. */
    readonly own: number,
    /** The version's spec (the very object stored). */
    readonly spec: unknown
  ) {}

  /** The version as it was stored: `base` with this version's spec, managed-fields time and resourceVersion. */
  materialise(resource: ResourceType): KObject {
    const metadata: { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] } = shallowCopy(this.base.metadata)
    metadata.managedFields = withOwnEntryTime(this.base.metadata.managedFields as ReadonlyArray<ManagedFieldsEntry>, this.own, scopeOf(resource, undefined), rfc3339(this.time))
    metadata.resourceVersion = String(this.revision)
    return { metadata, spec: this.spec }
  }
}

/** How the history keeps a version: the stored object itself, or a renewal's change over an earlier one. */
export type KeptVersion = KObject | RenewedVersion

/** The stored object a kept version stands for. */
export const materialised = (kept: KeptVersion, resource: ResourceType): KObject => (kept instanceof RenewedVersion ? kept.materialise(resource) : kept)

/**
 * A lease version written by a renewal (`LeaseRenewal.ts`), as the history window keeps it: what the renewal changed —
 * its `renewTime` (as two integers when it is canonical: `CompactMicroTime.ts`), its revision and the second of its write (the own managed-fields entry's time) — over a full
 * version written before. 5,000 agents keep ~150,000 lease versions in a 5-minute window, 65,000 agents ~1,950,000;
 * each full version is an object, its metadata, a managed-fields list and entry and strings, which the garbage
 * collector marks for 5 minutes (docs/benchmarks.md "Where a lease renewal's CPU goes", "The 65,000-node hour").
 * The version is made again, equal to what was stored, only when a watch replays it or a list at an older revision
 * reads it (`ChangeLog`). A compact version's numbers are copied into the history's columns (`RenewedColumns.ts`), so
 * its record is held only by its store cell, and set again by the lease's next renewal (`Store.write`): no record is
 * made and promoted per renewal.
 */
import type { FieldTree } from "../../src/api/apply/FieldSet.js"
import { withOwnEntryTime } from "../../src/api/apply/OwnEntry.js"
import type { ManagedFieldsEntry } from "../../src/api/apply/ManagedFields.js"
import type { KObject, ObjectMeta } from "../../src/api/Object.js"
import { shallowCopy } from "../../src/api/internal/V8Shapes.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { scopeOf } from "./FieldManager.js"
import { microsOf, microTimeOf } from "./CompactMicroTime.js"
import { rfc3339 } from "./SystemMeta.js"

export class RenewedVersion {
  /** Set by the store when it writes the version (`written`). */
  revision = 0
  /**
   * The write's whole second: the managed-fields time has no finer part (`rfc3339`), and a small integer is kept in
   * the object, where the write's time in ms (a float) would be one more heap number per version.
   */
  second = 0
  /** A full version this one differs from only by its spec's `renewTime`, its resourceVersion and the time of the entry at `own`. */
  base: KObject = noBase
  /** The index of the renewing manager's entry in `base`'s managed fields. */
  own = 0
  /**
   * The version's spec (the very object stored) when its keys are not in the order of `base`'s spec — a client's
   * own body; undefined when `base`'s spec with this `renewTime` is it (an agent's renewal), so that ~56 bytes a
   * version are not kept.
   */
  spec: Readonly<Record<string, unknown>> | undefined = undefined
  /**
   * The version's `renewTime`: its second since the epoch, with its µs in `renewMicros`, when the text is that
   * instant's canonical rendering (`CompactMicroTime.ts`); else the text, in `renewText`. The text is the agent's, kept
   * by the stored spec only until the next renewal; kept here it would live in the history window and be promoted with
   * this record. Two fields, not one of either type: V8 keeps a number computed as a double (as `secondOf`'s second
   * is) in a box of its own when the field may hold a string too — one more object made and promoted per renewal, and
   * one more cold read when the next renewal hands this record to the history (docs/benchmarks.md "Where a lease
   * renewal's CPU goes"); a field of small integers only keeps them in the record itself.
   */
  renewSecond = 0
  renewMicros = 0
  renewText: string | undefined = undefined
  /** The renewing manager (`own`'s entry's). */
  manager = ""
  /**
   * The field set of the renewing manager's entry when it is `base`'s only entry: the version's managed fields are
   * then that entry at the version's `second` (`OwnEntry.ownEntryAlone`), known without reading them.
   */
  ownFields: FieldTree | undefined = undefined

  /**
   * Makes this record the version of a renewal: `base` and `own` as above, `renewTime` the very string stored and
   * `second` its `secondOf` (read by the caller already, `CompactMicroTime.ts`), `spec`, `manager` and `ownFields` as
   * above. The store copies the record it is given (`Store.renewalRecord`).
   */
  set(
    base: KObject,
    own: number,
    renewTime: string,
    second: number,
    spec: Readonly<Record<string, unknown>> | undefined,
    manager: string,
    ownFields: FieldTree | undefined
  ): this {
    this.base = base
    this.own = own
    this.spec = spec
    this.manager = manager
    this.ownFields = ownFields
    const compact = second === second
    this.renewSecond = compact ? smallInteger(second) : 0
    this.renewMicros = compact ? microsOf(renewTime) : 0
    this.renewText = compact ? undefined : renewTime
    return this
  }

  /** This record made `from`'s, every field. */
  assign(from: RenewedVersion): this {
    this.revision = from.revision
    this.second = from.second
    this.base = from.base
    this.own = from.own
    this.spec = from.spec
    this.renewSecond = from.renewSecond
    this.renewMicros = from.renewMicros
    this.renewText = from.renewText
    this.manager = from.manager
    this.ownFields = from.ownFields
    return this
  }

  /** A new record of this one's version. */
  copy(): RenewedVersion {
    return new RenewedVersion().assign(this)
  }

  /** The store wrote the version at `revision`, at `time` (ms). */
  written(revision: number, time: number): void {
    this.revision = revision
    this.second = Math.floor(time / 1000)
  }

  /**
   * The version is `base` with numbers only (a canonical `renewTime`, `base`'s key order): the history keeps the
   * numbers in its columns (`RenewedColumns.ts`), not this record.
   */
  get compact(): boolean {
    return this.spec === undefined && this.renewText === undefined
  }

  /** The version's `renewTime` text. */
  get renewTime(): string {
    return this.renewText ?? microTimeOf(this.renewSecond, this.renewMicros)
  }

  /** The version as it was stored: `base` with this version's spec, managed-fields time and resourceVersion. */
  materialise(resource: ResourceType): KObject {
    return renewedObject(resource, this.base, this.own, this.revision, this.second, this.spec ?? withRenewTime(this.base.spec as Readonly<Record<string, unknown>>, this.renewTime))
  }
}

/**
 * `n`, an integer, as V8's small integer when it is one (an int32 here): a record's integer field then keeps it in the
 * record, where a double-typed value (`secondOf`'s, computed by division) would make the field keep it in a box.
 */
const smallInteger = (n: number): number => {
  const i = n | 0
  return i === n ? i : n
}

/** A record's base before it is set. */
const noBase: KObject = Object.freeze({ metadata: Object.freeze({}) })

/** `base` renewed: its metadata with the entry at `own` timed at `second` and resourceVersion `revision`, and `spec`. */
export const renewedObject = (resource: ResourceType, base: KObject, own: number, revision: number, second: number, spec: Readonly<Record<string, unknown>>): KObject => {
  const metadata: { -readonly [K in keyof ObjectMeta]: ObjectMeta[K] } = shallowCopy(base.metadata)
  metadata.managedFields = withOwnEntryTime(base.metadata.managedFields as ReadonlyArray<ManagedFieldsEntry>, own, scopeOf(resource, undefined), rfc3339(second * 1000))
  metadata.resourceVersion = String(revision)
  return { metadata, spec }
}

/** `spec` with `renewTime` replaced, its keys in their order. */
export const withRenewTime = (spec: Readonly<Record<string, unknown>>, renewTime: string): Record<string, unknown> => {
  const copy: Record<string, unknown> = shallowCopy(spec)
  copy.renewTime = renewTime
  return copy
}

/**
 * The keys of `a` and `b` in the same order (objects with the same keys). `b`'s keys are listed into one array kept
 * for the purpose: every renewal asks, and an `Object.keys` array each was ~6 % of what a renewal allocates.
 */
export const sameKeyOrder = (a: Readonly<Record<string, unknown>>, b: Readonly<Record<string, unknown>>): boolean => {
  const keys = keysOfB
  let n = 0
  for (const key in b) keys[n++] = key
  let i = 0
  for (const key in a) if (i === n || keys[i++] !== key) return false
  return i === n
}

const keysOfB: Array<string> = []

/** How the history keeps a version: the stored object itself, or a renewal's change over an earlier one. */
export type KeptVersion = KObject | RenewedVersion

/** The stored object a kept version stands for. */
export const materialised = (kept: KeptVersion, resource: ResourceType): KObject => (kept instanceof RenewedVersion ? kept.materialise(resource) : kept)

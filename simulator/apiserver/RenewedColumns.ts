/**
 * The history's lease renewal versions as numbers in typed arrays, one slot per change of the ring (`ChangeLog`): a
 * compact renewal's version (`RenewedVersion.compact`: a canonical `renewTime`, its base's key order) is its base,
 * kept in the ring's object column, and five numbers here — no object per version. A record per version was 80 bytes
 * promoted to the old generation with every renewal, and 150,000 (5,000 nodes) to 1,950,000 (65,000 nodes) of them
 * stayed live for the 5-minute window, marked by every full collection; typed arrays are never scanned
 * (docs/benchmarks.md "Where a lease renewal's CPU goes"). The version is made again, equal to what was stored, only
 * when a watch replays it or a list at an older revision reads it (`renewedObject`).
 */
import type { KObject } from "../../src/api/Object.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { microTimeOf } from "./CompactMicroTime.js"
import { grownTyped } from "./RingGrowth.js"
import { materialised, renewedObject, RenewedVersion, withRenewTime, type KeptVersion } from "./RenewedVersion.js"

export class RenewedColumns {
  /** The renewing manager's entry in the base's managed fields; -1: the slot keeps its version as an object. */
  private own: Int32Array
  private renewSecond: Float64Array
  private renewMicros: Int32Array
  private revision: Float64Array
  private second: Float64Array

  constructor(capacity: number) {
    this.own = new Int32Array(capacity)
    this.renewSecond = new Float64Array(capacity)
    this.renewMicros = new Int32Array(capacity)
    this.revision = new Float64Array(capacity)
    this.second = new Float64Array(capacity)
  }

  /**
   * Keeps `kept` at `slot`: a compact renewal's version as its numbers, returning its base for the ring's object
   * column; anything else as itself. The record is not held: its cell may set it again for a later renewal.
   */
  keep(slot: number, kept: KeptVersion | undefined): KeptVersion | undefined {
    if (!(kept instanceof RenewedVersion) || !kept.compact) {
      this.own[slot] = -1
      return kept
    }
    this.own[slot] = kept.own
    this.renewSecond[slot] = kept.renewSecond
    this.renewMicros[slot] = kept.renewMicros
    this.revision[slot] = kept.revision
    this.second[slot] = kept.second
    return kept.base
  }

  /** The stored object that `kept`, the ring's object at `slot`, stands for. */
  version(slot: number, kept: KeptVersion, resource: ResourceType): KObject {
    const own = this.own[slot]!
    if (own < 0) return materialised(kept, resource)
    const base = kept as KObject
    const renewTime = microTimeOf(this.renewSecond[slot]!, this.renewMicros[slot]!)
    return renewedObject(resource, base, own, this.revision[slot]!, this.second[slot]!, withRenewTime(base.spec as Readonly<Record<string, unknown>>, renewTime))
  }

  /** The columns at `capacity` slots, the positions `first` to `end` moved to their slots there (`ChangeLog.grow`). */
  grow(capacity: number, first: number, end: number): void {
    this.own = grownTyped(this.own, new Int32Array(capacity), first, end)
    this.renewSecond = grownTyped(this.renewSecond, new Float64Array(capacity), first, end)
    this.renewMicros = grownTyped(this.renewMicros, new Int32Array(capacity), first, end)
    this.revision = grownTyped(this.revision, new Float64Array(capacity), first, end)
    this.second = grownTyped(this.second, new Float64Array(capacity), first, end)
  }
}

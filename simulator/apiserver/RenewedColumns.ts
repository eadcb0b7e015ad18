/**
 * The history's lease renewal versions as numbers in typed arrays, one slot per change of the ring (`ChangeLog`): a
 * compact renewal's version (`RenewedVersion.compact`: a canonical `renewTime`, its base's key order) is its base,
 * kept in the ring's object column, and five numbers here — no object per version. A record per version was 80 bytes
 * promoted to the old generation with every renewal, and 150,000 (5,000 nodes) to 1,950,000 (65,000 nodes) of them
 * stayed live for the 5-minute window, marked by every full collection; typed arrays are never scanned
 * (docs/benchmarks.md "Where a lease renewal's CPU goes"). The version is made again, equal to what was stored, only
 * when a watch replays it or a list at an older revision reads it (`renewedObject`).
 *
 * The ring's object side keeps the change's own version: its revision and write second are the change's, which the
 * ring keeps in its revision and time columns, so those columns keep three numbers a slot, not five (16 bytes a slot,
 * 32 MiB at the 65,000-node hour's 2 M slots, docs/benchmarks.md "History"). The previous side's version is an earlier
 * change's: it keeps all five.
 */
import type { KObject } from "../../src/api/Object.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { microTimeOf } from "./CompactMicroTime.js"
import { grownTyped } from "./RingGrowth.js"
import { materialised, renewedObject, RenewedVersion, withRenewTime, type KeptVersion } from "./RenewedVersion.js"

export class RenewedColumns {
  /**
   * The renewing manager's entry in the base's managed fields; -1: the slot keeps its version as an object. The
   * columns are made with the first compact version kept (`allocated`): only a lease's history ever keeps one, and a
   * pod's ring grown to ~1 M slots by the 65,000-node start storm would otherwise carry 48 bytes a slot of columns
   * never written (docs/benchmarks.md "History").
   */
  private own = noInt32
  private renewSecond = noFloat64
  private renewMicros = noInt32
  private revision = noFloat64
  private second = noFloat64
  /** Whether the columns are made: until then every slot keeps its version as an object. */
  private allocated = false

  /**
   * `capacity`: the ring's slots. `ofChange`: the versions kept are the changes' own (the ring's object side), their
   * revision and second read from the change (`version`'s `changeRevision`, `changeTime`) rather than kept here.
   */
  constructor(
    private capacity: number,
    private readonly ofChange: boolean
  ) {}

  /** The columns made, every slot so far keeping its version as an object. */
  private allocate(): void {
    const capacity = this.capacity
    this.own = new Int32Array(capacity).fill(-1)
    this.renewSecond = new Float64Array(capacity)
    this.renewMicros = new Int32Array(capacity)
    if (!this.ofChange) {
      this.revision = new Float64Array(capacity)
      this.second = new Float64Array(capacity)
    }
    this.allocated = true
  }

  /**
   * Keeps `kept` at `slot`: a compact renewal's version as its numbers, returning its base for the ring's object
   * column; anything else as itself. The record is not held: its cell may set it again for a later renewal.
   */
  keep(slot: number, kept: KeptVersion | undefined): KeptVersion | undefined {
    if (!(kept instanceof RenewedVersion) || !kept.compact) {
      if (this.allocated) this.own[slot] = -1
      return kept
    }
    if (!this.allocated) this.allocate()
    this.own[slot] = kept.own
    this.renewSecond[slot] = kept.renewSecond
    this.renewMicros[slot] = kept.renewMicros
    if (!this.ofChange) {
      this.revision[slot] = kept.revision
      this.second[slot] = kept.second
    }
    return kept.base
  }

  /**
   * The stored object that `kept`, the ring's object at `slot`, stands for; `changeRevision` and `changeTime` (ms) are
   * the slot's change's (read only when `ofChange`: a version's revision is its write's, and its second that write's
   * time's, `RenewedVersion.written`).
   */
  version(slot: number, kept: KeptVersion, resource: ResourceType, changeRevision: number, changeTime: number): KObject {
    if (!this.allocated) return materialised(kept, resource)
    const own = this.own[slot]!
    if (own < 0) return materialised(kept, resource)
    const base = kept as KObject
    const renewTime = microTimeOf(this.renewSecond[slot]!, this.renewMicros[slot]!)
    const revision = this.ofChange ? changeRevision : this.revision[slot]!
    const second = this.ofChange ? Math.floor(changeTime / 1000) : this.second[slot]!
    return renewedObject(resource, base, own, revision, second, withRenewTime(base.spec as Readonly<Record<string, unknown>>, renewTime))
  }

  /**
   * The columns at `capacity` slots (more on growth, fewer on a shrink), the positions `first` to `end` moved to their
   * slots there (`ChangeLog.resize`).
   */
  resize(capacity: number, first: number, end: number): void {
    this.capacity = capacity
    if (!this.allocated) return
    this.own = grownTyped(this.own, new Int32Array(capacity), first, end)
    this.renewSecond = grownTyped(this.renewSecond, new Float64Array(capacity), first, end)
    this.renewMicros = grownTyped(this.renewMicros, new Int32Array(capacity), first, end)
    if (this.ofChange) return
    this.revision = grownTyped(this.revision, new Float64Array(capacity), first, end)
    this.second = grownTyped(this.second, new Float64Array(capacity), first, end)
  }
}

const noInt32 = new Int32Array(0)
const noFloat64 = new Float64Array(0)

/**
 * The monitor pass's node lease renewals, taken as they are written (`NodeSource.subscribeLeases`) instead of read
 * back at the next pass. A renewal is a probe at the first pass after it (`MonitorPass`): the pass used to read every
 * lease written since the previous one — 2,500 a pass in the 5,000-node hour, each lease, its metadata, its name, the
 * node's record and two renew times a likely cache miss 5 s after the write (docs/benchmarks.md). Here the lease is
 * compared while it is in the CPU's cache, with the node's record as the pass would find it, and the pass only marks
 * the renewed records probed.
 *
 * What the pass decides stays what a pass reading `leases()` decides: a write is staged on the node's record as that
 * pass would apply it (its renew time and lease object, probe at the next pass); a lease deleted before the pass takes
 * its writes back; a write for a node without a record, or whose record is dropped before the pass, waits for the pass
 * in write order, as `leases()` would hand it.
 */
import type { KObject } from "../../../src/api/Object.js"
import type { LeaseSink } from "./NodeSource.js"

/** The parts of the pass's per-node record a lease write changes. */
export interface LeaseProbe {
  /** The lease's latest renewTime and object the pass has taken. */
  renew: string | undefined
  leaseObject: KObject | undefined
  probe: number
  /** A write was staged since the previous pass; `renewed`: its renewTime advanced (a probe at the next pass). */
  staged: boolean
  renewed: boolean
  /** `renew` and `leaseObject` at the previous pass, for a lease deleted before the next. */
  renewBefore: string | undefined
  leaseBefore: KObject | undefined
}

const renewTimeOf = (lease: KObject): string | undefined => (lease.spec as { renewTime?: string } | undefined)?.renewTime

/**
 * Applies lease `l` to `h` as the pass does (`leases()` at the start of a pass): a lease object not seen yet is taken,
 * and a renewTime past the last one is a probe. True when it is.
 */
export const takeLease = (h: Pick<LeaseProbe, "renew" | "leaseObject">, l: KObject): boolean => {
  if (h.leaseObject === l) return false
  h.leaseObject = l
  const renew = renewTimeOf(l)
  if (renew === undefined || (h.renew !== undefined && !(renew > h.renew))) return false
  h.renew = renew
  return true
}

export class LeaseWrites<H extends LeaseProbe> implements LeaseSink {
  /** Writes of leases whose node had no record (or had writes waiting here already), in write order. */
  private waiting: Array<KObject> = []
  private readonly waitingNames = new Set<string>()
  /** Records with a write staged since the previous pass. */
  private staged: Array<H> = []

  constructor(private readonly records: ReadonlyMap<string, H>) {}

  written(lease: KObject): void {
    const name = lease.metadata.name!
    const h = this.records.get(name)
    if (h === undefined || this.waitingNames.has(name)) {
      this.waiting.push(lease)
      this.waitingNames.add(name)
      return
    }
    if (h.leaseObject === lease) return
    if (!h.staged) {
      h.staged = true
      h.renewBefore = h.renew
      h.leaseBefore = h.leaseObject
      this.staged.push(h)
    }
    if (takeLease(h, lease)) h.renewed = true
  }

  deleted(name: string): void {
    if (this.waitingNames.has(name)) this.waiting = this.waiting.filter((l) => l.metadata.name !== name)
    const h = this.records.get(name)
    if (h === undefined || !h.staged) return
    h.staged = false
    h.renewed = false
    h.renew = h.renewBefore
    h.leaseObject = h.leaseBefore
  }

  /** `h` is dropped from the records: its staged writes wait for the pass as writes without a record (the last counts). */
  dropped(name: string, h: H): void {
    if (!h.staged) return
    h.staged = false
    this.waiting.push(h.leaseObject!)
    this.waitingNames.add(name)
  }

  /**
   * At the start of a pass at `now`: the records renewed since the previous pass are probed at `now`. Returns the
   * writes that waited, in write order, for the pass to apply as it applies `leases()`.
   */
  take(now: number): Array<KObject> {
    for (const h of this.staged) {
      if (!h.staged) continue
      h.staged = false
      if (h.renewed) {
        h.renewed = false
        h.probe = now
      }
    }
    this.staged = []
    const waiting = this.waiting
    this.waiting = []
    this.waitingNames.clear()
    return waiting
  }
}

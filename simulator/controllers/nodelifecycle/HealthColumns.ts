/**
 * The monitor pass's per-node numbers (upstream `nodeHealthData`'s probe timestamp, the grace period that applies, the
 * lease's last renewTime), in typed arrays indexed by node ordinal (`NodeOrdinals`). The lease step reads and writes
 * them for ~32,500 renewals a pass at 65,000 nodes, and the alarms read the deadlines: 65,000 × 8 bytes a column stays
 * in cache where a record per node was a cache miss each time (docs/benchmarks.md "The 65,000-node hour").
 */
import { noRenew, renewsAfter, renewValueOf } from "./RenewKey.js"

export class HealthColumns {
  private capacity = 1024
  /** 1: the pass keeps the node's health (it visited it and it was not removed since). */
  private tracked = new Uint8Array(this.capacity)
  /** When the node was last probed (a heartbeat or a renewal seen), virtual ms. */
  probe = new Float64Array(this.capacity)
  grace = new Float64Array(this.capacity)
  /** The lease's latest renewTime seen, as its key (`RenewKey`); an odd one's value in `oddRenew`. */
  private renew = new Float64Array(this.capacity)
  private readonly oddRenew = new Map<number, unknown>()

  tracks(ordinal: number): boolean {
    return ordinal < this.capacity && this.tracked[ordinal] === 1
  }

  /** Starts keeping the node `ordinal`: probed at `probe`, its lease's renewTime `renewKey` (`odd`: its odd value). */
  track(ordinal: number, probe: number, grace: number, renewKey: number, odd: unknown): void {
    while (ordinal >= this.capacity) this.grow()
    this.tracked[ordinal] = 1
    this.probe[ordinal] = probe
    this.grace[ordinal] = grace
    this.renew[ordinal] = renewKey
    if (renewKey !== renewKey) this.oddRenew.set(ordinal, odd)
    else this.oddRenew.delete(ordinal)
  }

  untrack(ordinal: number): void {
    this.tracked[ordinal] = 0
    this.oddRenew.delete(ordinal)
  }

  /** When the node's probe expires (probe + grace), or undefined when it is not kept. */
  deadline(ordinal: number): number | undefined {
    return this.tracks(ordinal) ? this.probe[ordinal]! + this.grace[ordinal]! : undefined
  }

  /** The latest renewTime seen of the node's lease, as written (undefined: none). */
  renewOf(ordinal: number): unknown {
    return renewValueOf(this.renew[ordinal]!, this.oddRenew.get(ordinal))
  }

  /** A write of the node's lease seen at `now`: a probe when its renewTime advanced (`renewsAfter`). */
  leaseWritten(ordinal: number, key: number, odd: unknown, now: number): void {
    if (key === noRenew) return
    const prior = this.renew[ordinal]!
    if (renewsAfter(key, odd, prior, prior !== prior ? this.oddRenew.get(ordinal) : undefined)) {
      this.renew[ordinal] = key
      if (key !== key) this.oddRenew.set(ordinal, odd)
      else if (prior !== prior) this.oddRenew.delete(ordinal)
      this.probe[ordinal] = now
    }
  }

  /** Every kept node probed at `now` (leaving full disruption). */
  probeAll(now: number): void {
    const { tracked, probe } = this
    for (let i = 0; i < this.capacity; i++) if (tracked[i] === 1) probe[i] = now
  }

  private grow(): void {
    const capacity = this.capacity * 2
    const widen = <A extends Uint8Array | Float64Array>(from: A, to: A): A => {
      to.set(from)
      return to
    }
    this.tracked = widen(this.tracked, new Uint8Array(capacity))
    this.probe = widen(this.probe, new Float64Array(capacity))
    this.grace = widen(this.grace, new Float64Array(capacity))
    this.renew = widen(this.renew, new Float64Array(capacity))
    this.capacity = capacity
  }
}

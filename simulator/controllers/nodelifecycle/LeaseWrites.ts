/**
 * The node lease writes a `NodeSource` keeps for the monitor pass, as numbers: each write's node ordinal
 * (`NodeOrdinals`) and its renewTime's key (`RenewKey`), in dense columns. A write is kept while its lease is being
 * written, its object and text at hand; the pass then reads only these columns and its own (`HealthColumns`).
 * Keeping the lease objects instead made the pass read each one again 0–5 s later, its spec and text and the node's
 * record, all long out of cache at 65,000 nodes; it also held 32,500 objects per pass past a scavenge
 * (docs/benchmarks.md "Where a lease renewal's CPU goes"). An odd renewTime's value is kept beside its key, in order.
 */
import { renewKeyOf } from "./RenewKey.js"

export class LeaseWrites {
  private ordinals = new Int32Array(1024)
  private keys = new Float64Array(1024)
  private count = 0
  /** The values of the odd keys (NaN), in write order. */
  private odd: Array<unknown> = []

  /** A write of the lease of the node `ordinal`, with `renewTime` (the value in its spec, perhaps undefined). */
  record(ordinal: number, renewTime: unknown): void {
    const key = renewKeyOf(renewTime)
    if (this.count === this.ordinals.length) this.grow()
    this.ordinals[this.count] = ordinal
    this.keys[this.count++] = key
    if (key !== key) this.odd.push(renewTime)
  }

  /** Drops the kept writes of the node `ordinal`'s lease (deleted: its writes were no probe). */
  forget(ordinal: number): void {
    const { ordinals, keys, odd } = this
    let kept = 0
    let oddAt = 0
    let oddKept = 0
    for (let i = 0; i < this.count; i++) {
      const key = keys[i]!
      const isOdd = key !== key
      if (ordinals[i] !== ordinal) {
        ordinals[kept] = ordinals[i]!
        keys[kept++] = key
        if (isOdd) odd[oddKept++] = odd[oddAt]
      }
      if (isOdd) oddAt++
    }
    this.count = kept
    odd.length = oddKept
  }

  /** Calls `visit` with every write kept since the previous call, oldest first (`odd`: the value of an odd key). */
  drain(visit: (ordinal: number, key: number, odd: unknown) => void): void {
    const { ordinals, keys, odd, count } = this
    this.count = 0
    this.odd = []
    let oddAt = 0
    for (let i = 0; i < count; i++) {
      const key = keys[i]!
      visit(ordinals[i]!, key, key !== key ? odd[oddAt++] : undefined)
    }
  }

  private grow(): void {
    const ordinals = new Int32Array(this.ordinals.length * 2)
    const keys = new Float64Array(this.keys.length * 2)
    ordinals.set(this.ordinals)
    keys.set(this.keys)
    this.ordinals = ordinals
    this.keys = keys
  }
}

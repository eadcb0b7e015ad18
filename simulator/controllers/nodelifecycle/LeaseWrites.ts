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
  /** Each write's lease slot; its node's ordinal is looked up in `ordinalOfSlot` by the pass, all at once. */
  private slots = new Int32Array(1024)
  /** The node ordinal + 1 of each bound lease slot (0: none). */
  private ordinalOfSlot = new Int32Array(1024)
  private keys = new Float64Array(1024)
  private count = 0
  /** The values of the odd keys (NaN), in write order. */
  private odd: Array<unknown> = []

  /** The lease at `slot` (a store slot, `Store.ChangeListener`) is the node `ordinal`'s: to be called before its writes. */
  bind(slot: number, ordinal: number): void {
    while (slot >= this.ordinalOfSlot.length) {
      const wider = new Int32Array(this.ordinalOfSlot.length * 2)
      wider.set(this.ordinalOfSlot)
      this.ordinalOfSlot = wider
    }
    this.ordinalOfSlot[slot] = ordinal + 1
  }

  /** A write of the lease at `slot`, with `renewTime` (the value in its spec, perhaps undefined). */
  record(slot: number, renewTime: unknown): void {
    const key = renewKeyOf(renewTime)
    if (this.count === this.slots.length) this.grow()
    this.slots[this.count] = slot
    this.keys[this.count++] = key
    if (key !== key) this.odd.push(renewTime)
  }

  /** Drops the kept writes of the lease at `slot` (deleted: its writes were no probe). */
  forget(slot: number): void {
    const { slots, keys, odd } = this
    let kept = 0
    let oddAt = 0
    let oddKept = 0
    for (let i = 0; i < this.count; i++) {
      const key = keys[i]!
      const isOdd = key !== key
      if (slots[i] !== slot) {
        slots[kept] = slots[i]!
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
    const { slots, keys, odd, count, ordinalOfSlot } = this
    this.count = 0
    this.odd = []
    // Every slot's ordinal first, in a loop of independent reads: their cache misses overlap, where one in each write
    // (or in the loop below) would wait alone.
    for (let i = 0; i < count; i++) slots[i] = ordinalOfSlot[slots[i]!]! - 1
    let oddAt = 0
    for (let i = 0; i < count; i++) {
      const key = keys[i]!
      const ordinal = slots[i]!
      if (ordinal < 0) throw new Error(`LeaseWrites: a write of a lease slot never bound`)
      visit(ordinal, key, key !== key ? odd[oddAt++] : undefined)
    }
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2)
    const keys = new Float64Array(this.keys.length * 2)
    slots.set(this.slots)
    keys.set(this.keys)
    this.slots = slots
    this.keys = keys
  }
}

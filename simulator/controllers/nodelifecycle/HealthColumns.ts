/**
 * The monitor pass's per-node numbers (upstream `nodeHealthData`'s probe timestamp, the grace period that applies, the
 * lease's last renewTime), indexed by node ordinal (`NodeOrdinals`) in one typed array, a node's four numbers side by
 * side. The lease step reads and writes them for ~32,500 renewals a pass at 65,000 nodes, and the alarms read the
 * deadlines: a record per node was a cache miss or more each time, a node's 32 bytes here are one (and never scanned
 * by the garbage collector), docs/benchmarks.md "Where a lease renewal's CPU goes".
 */
import { noRenew, renewsAfter, renewValueOf } from "./RenewKey.js"

/** Per node: 1 when the pass keeps its health (it visited it and did not remove it since), else 0. */
const tracked = 0
/** When the node was last probed (a heartbeat or a renewal seen), virtual ms. */
const probe = 1
const grace = 2
/** The lease's latest renewTime seen, as its key (`RenewKey`); an odd one's value in `oddRenew`. */
const renew = 3
const stride = 4

export class HealthColumns {
  private capacity = 1024
  private cells = new Float64Array(this.capacity * stride)
  private readonly oddRenew = new Map<number, unknown>()

  tracks(ordinal: number): boolean {
    return ordinal < this.capacity && this.cells[ordinal * stride + tracked] === 1
  }

  /** Starts keeping the node `ordinal`: probed at `at`, its lease's renewTime `renewKey` (`odd`: its odd value). */
  track(ordinal: number, at: number, graceMs: number, renewKey: number, odd: unknown): void {
    while (ordinal >= this.capacity) this.grow()
    const i = ordinal * stride
    this.cells[i + tracked] = 1
    this.cells[i + probe] = at
    this.cells[i + grace] = graceMs
    this.cells[i + renew] = renewKey
    if (renewKey !== renewKey) this.oddRenew.set(ordinal, odd)
    else this.oddRenew.delete(ordinal)
  }

  untrack(ordinal: number): void {
    this.cells[ordinal * stride + tracked] = 0
    this.oddRenew.delete(ordinal)
  }

  probeOf(ordinal: number): number {
    return this.cells[ordinal * stride + probe]!
  }

  probed(ordinal: number, at: number): void {
    this.cells[ordinal * stride + probe] = at
  }

  setGrace(ordinal: number, graceMs: number): void {
    this.cells[ordinal * stride + grace] = graceMs
  }

  /** When the node's probe expires (probe + grace), or undefined when it is not kept. */
  deadline(ordinal: number): number | undefined {
    const i = ordinal * stride
    return ordinal < this.capacity && this.cells[i + tracked] === 1 ? this.cells[i + probe]! + this.cells[i + grace]! : undefined
  }

  /** The latest renewTime seen of the node's lease, as written (undefined: none). */
  renewOf(ordinal: number): unknown {
    return renewValueOf(this.cells[ordinal * stride + renew]!, this.oddRenew.get(ordinal))
  }

  /** A write of the kept node's lease seen at `now`: a probe when its renewTime advanced (`renewsAfter`). */
  leaseWritten(ordinal: number, key: number, odd: unknown, now: number): void {
    if (key === noRenew) return
    const i = ordinal * stride
    const prior = this.cells[i + renew]!
    if (renewsAfter(key, odd, prior, prior !== prior ? this.oddRenew.get(ordinal) : undefined)) {
      this.cells[i + renew] = key
      if (key !== key) this.oddRenew.set(ordinal, odd)
      else if (prior !== prior) this.oddRenew.delete(ordinal)
      this.cells[i + probe] = now
    }
  }

  /** Every kept node probed at `now` (leaving full disruption). */
  probeAll(now: number): void {
    const cells = this.cells
    for (let i = 0; i < cells.length; i += stride) if (cells[i + tracked] === 1) cells[i + probe] = now
  }

  private grow(): void {
    const cells = new Float64Array(this.cells.length * 2)
    cells.set(this.cells)
    this.cells = cells
    this.capacity *= 2
  }
}

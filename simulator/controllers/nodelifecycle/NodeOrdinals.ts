/**
 * A small dense number per node name, given once when the name is first met and kept for good (a node deleted and
 * created again keeps its number): the index of the node in the monitor pass's columns (`HealthColumns`) and in the
 * lease write log (`LeaseWrites`). At 65,000 nodes a per-node object is touched once per renewal period, each touch a
 * cache miss or more; numbers in a dense typed array indexed by ordinal cost one at most and are never scanned by the
 * garbage collector (docs/benchmarks.md "Where a lease renewal's CPU goes").
 */
export class NodeOrdinals {
  private readonly byName = new Map<string, number>()
  private readonly names: Array<string> = []

  /** How many ordinals were given: every ordinal is below it. */
  get size(): number {
    return this.names.length
  }

  /** `name`'s ordinal, given now if it has none. */
  of(name: string): number {
    let ordinal = this.byName.get(name)
    if (ordinal === undefined) {
      ordinal = this.names.length
      this.names.push(name)
      this.byName.set(name, ordinal)
    }
    return ordinal
  }

  nameOf(ordinal: number): string {
    return this.names[ordinal]!
  }
}

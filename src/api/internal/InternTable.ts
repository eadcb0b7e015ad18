/**
 * Equal immutable values shared instead of kept once per object (hash-consing): the first value seen under a key is
 * the one every later equal value is replaced with. Bounded: past `capacity` keys the table starts over, so a
 * stream of values that never repeat costs a bounded amount of memory and shares nothing.
 */
export class InternTable<T> {
  private readonly byKey = new Map<string, T>()

  constructor(private readonly capacity: number) {}

  /** The value first seen under `key`, else `value` itself (remembered). */
  intern(key: string, value: T): T {
    const known = this.byKey.get(key)
    if (known !== undefined) return known
    if (this.byKey.size >= this.capacity) this.byKey.clear()
    this.byKey.set(key, value)
    return value
  }
}

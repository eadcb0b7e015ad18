/**
 * Equal immutable values shared instead of kept once per object (hash-consing): a value is replaced with the one
 * last seen under the same key when the two are equal. The key is a cheap summary of the value and `equal` decides
 * the rest, so a value is never serialized to be found. Bounded: past `capacity` keys the table starts over, so a
 * stream of values that never repeat costs a bounded amount of memory and shares nothing.
 */
export class InternTable<T> {
  private readonly byKey = new Map<string, T>()

  constructor(
    private readonly capacity: number,
    private readonly equal: (known: T, value: T) => boolean
  ) {}

  /** The value last seen under `key` if it equals `value`, else `value` itself (remembered in its place). */
  intern(key: string, value: T): T {
    const known = this.byKey.get(key)
    if (known !== undefined && this.equal(known, value)) return known
    if (known === undefined && this.byKey.size >= this.capacity) this.byKey.clear()
    this.byKey.set(key, value)
    return value
  }
}

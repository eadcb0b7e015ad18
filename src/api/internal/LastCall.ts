/**
 * The result of a pure function of immutable values, remembered for the inputs of its last call, compared by
 * identity. Stored objects are never mutated, nor is a body once handed to the server (docs/architecture.md "Value
 * semantics"), so the same objects give the same result: a write the simulation repeats with the same parts (every
 * seeded pod's first status patch in one second: the same body onto the same stored status, docs/cluster.md "The
 * pod-start storm's status patches") merges, checks and compares them once, and the objects made the first time are
 * shared by every object that repeats them. One slot: remembering more costs every write that repeats nothing a
 * lookup, and keeps objects alive.
 */
export class LastCall<R> {
  private a: unknown = undefined
  private b: unknown = undefined
  private c: unknown = undefined
  private result: R | undefined = undefined

  /** The result of the last call if it had these inputs, else undefined. */
  get(a: object, b: object, c: unknown): R | undefined {
    return a === this.a && b === this.b && c === this.c ? this.result : undefined
  }

  /** Remembers `result` as that of these inputs, and returns it. */
  set(a: object, b: object, c: unknown, result: R): R {
    this.a = a
    this.b = b
    this.c = c
    this.result = result
    return result
  }
}

/**
 * A {@link LastCall} per key (a kind's schema, a write's scope): the writes of other kinds that come between two
 * repeats (a node's status, an event) then do not take the slot.
 */
export class LastCalls<R, S extends LastCall<R> = LastCall<R>> {
  private readonly slots = new WeakMap<object, S>()
  private readonly unkeyed: S

  constructor(private readonly make: () => S = () => new LastCall<R>() as S) {
    this.unkeyed = make()
  }

  of(key: object | undefined): S {
    if (key === undefined) return this.unkeyed
    let slot = this.slots.get(key)
    if (slot === undefined) this.slots.set(key, (slot = this.make()))
    return slot
  }
}

/**
 * The only V8-aware helpers (Node 20, V8 11): how to build objects and strings that stay cheap when a simulation
 * keeps hundreds of thousands of them. Each trick was measured on the control-plane hour (docs/benchmarks.md);
 * `test/api/internal/V8Shapes.test.ts` pins them with V8's own `%HaveSameMap`. Code elsewhere uses these names,
 * never the tricks themselves, so a later V8 that no longer needs one changes this file only.
 */

/**
 * Spread this first where an object literal copies another object: `{ ...extendable, ...obj, changed }`.
 *
 * A plain `{ ...obj, … }` copies `obj`'s hidden class into a class outside V8's transition tree. Adding a key to
 * such a copy makes a fresh class for every object (~10× the cost to build, a class, descriptors and enum cache
 * kept per object, inline-cache misses on every later read), and copying a copy takes the runtime's slow path
 * (~3×). Spreading an empty object first builds the copy along the shared transitions instead. The result is the
 * same object: own data properties, in the same order. The transitions from `{}` are the process's and take ~1,536
 * first keys; a process that has made more (a server fed arbitrary JSON keys) builds every such copy on a class of
 * its own again (test/api/internal/V8Shapes.test.ts runs in a fresh fork for that reason).
 */
export const extendable: Readonly<Record<string, never>> = Object.freeze({})

/**
 * A shallow copy of a plain object by `Object.assign` into `{}`: V8 11's fastest copy at a call site that sees
 * objects of many classes (a spread there takes the runtime's slow path). An own `__proto__` key, which JSON can
 * make, would go through the prototype's setter instead of being copied, so such an object is spread.
 */
export const shallowCopy = <T extends object>(obj: T): T => (Object.hasOwn(obj, "__proto__") ? { ...extendable, ...obj } : Object.assign({}, obj))

/**
 * `parts` as one flat string. A `+` concatenation stays a tree of strings (a cons string) until something reads it
 * flat, and a string kept for long (a pod name, a uid, a lease's renewTime in the history window) would keep every
 * piece besides: ~40 bytes more each. Joining builds the flat string at once.
 */
export const flatString = (...parts: ReadonlyArray<string>): string => parts.join("")

/**
 * `text` as a property name is kept: V8's internalized (hashed, unique) string. A key built for a lookup
 * (`` `f:${name}` ``) is hashed and searched in the string table at every use, which cost a lease renewal's
 * managed-fields check ~0.5 µs at a call site that sees many kinds; the internalized key is found by identity.
 */
export const internalized = (text: string): string => Object.keys({ [text]: 0 })[0]!

/** The object envelope shared by every kind (spec 000, "Common object envelope"). */

export interface OwnerReference {
  readonly apiVersion: string
  readonly kind: string
  readonly name: string
  readonly uid: string
  readonly controller?: boolean
  readonly blockOwnerDeletion?: boolean
}

export interface ObjectMeta {
  readonly name?: string
  readonly generateName?: string
  readonly namespace?: string
  readonly uid?: string
  readonly resourceVersion?: string
  readonly generation?: number
  readonly creationTimestamp?: string | null
  readonly deletionTimestamp?: string
  readonly deletionGracePeriodSeconds?: number
  readonly labels?: Readonly<Record<string, string>>
  readonly annotations?: Readonly<Record<string, string>>
  readonly finalizers?: ReadonlyArray<string>
  readonly ownerReferences?: ReadonlyArray<OwnerReference>
  readonly managedFields?: ReadonlyArray<unknown>
  readonly selfLink?: string
}

/** Any API object: typed metadata, schemaless beyond it. */
export interface KObject {
  readonly apiVersion?: string
  readonly kind?: string
  readonly metadata: ObjectMeta
  readonly [field: string]: unknown
}

export interface ListMeta {
  readonly resourceVersion: string
  readonly continue?: string
  readonly remainingItemCount?: number
}

export interface KList<T extends KObject = KObject> {
  readonly kind: string
  readonly apiVersion: string
  readonly metadata: ListMeta
  readonly items: ReadonlyArray<T>
}

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR"

export interface WatchEvent<T = KObject> {
  readonly type: WatchEventType
  readonly object: T
}

export const isRecord = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v)

/**
 * Spread this first where an object literal copies another object: `{ ...extendable, ...obj, changed }`.
 *
 * On Node 20 (V8 11), a plain `{ ...obj, … }` copies `obj`'s hidden class into a class outside V8's transition tree.
 * Adding a key to such a copy makes a fresh class for every object (~10× the cost to build, a class, descriptors
 * and enum cache kept per object, inline-cache misses on every later read), and copying a copy takes the runtime's
 * slow path (~3×). Spreading an empty object first builds the copy along the shared transitions instead. The
 * result is the same object: own data properties, in the same order.
 */
export const extendable: Readonly<Record<string, never>> = Object.freeze({})

/**
 * A shallow copy of a plain object by `Object.assign` into `{}`: V8 11's fastest copy at a call site that sees
 * objects of many classes (a spread there takes the runtime's slow path). An own `__proto__` key, which JSON can
 * make, would go through the prototype's setter instead of being copied, so such an object is spread.
 */
export const shallowCopy = <T extends object>(obj: T): T => (Object.hasOwn(obj, "__proto__") ? { ...extendable, ...obj } : Object.assign({}, obj))

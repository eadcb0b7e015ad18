/**
 * Sets of field paths as server-side apply tracks ownership (`sigs.k8s.io/structured-merge-diff` `fieldpath.Set`),
 * kept in the `FieldsV1` form `managedFields` carry (`structured-merge-diff` `fieldpath`):
 * `{"f:spec":{"f:containers":{"k:{\"name\":\"a\"}": {".":{},"f:image":{}}}}}`. A node is a member when it is a leaf
 * `{}` or holds `"."`; its other keys are children: `f:<field>`, `k:<key fields as JSON>` (an item of a keyed list),
 * `v:<value as JSON>` (an item of a set).
 *
 * Trees are plain JSON and never mutated: operations return new trees (or an operand when nothing changes).
 */
import { flatString } from "../internal/V8Shapes.js"
import { isRecord } from "../Object.js"

export type FieldTree = { readonly [key: string]: FieldTree }

/** One `metadata.managedFields` entry: a manager, how it wrote, and the set it owns in this form. */
export interface ManagedFieldsEntry {
  /** Omitted when empty (`omitempty`): a manager without a name or User-Agent. */
  readonly manager?: string
  readonly operation: "Apply" | "Update"
  readonly apiVersion: string
  readonly time: string
  readonly fieldsType: "FieldsV1"
  readonly fieldsV1: FieldTree
  readonly subresource?: string
}

export const emptySet: FieldTree = Object.freeze({}) as FieldTree
const MEMBER = "."

/** An empty tree has no member and no child; `{}` as a child value is a member leaf. */
const childKeys = (t: FieldTree): string[] => Object.keys(t).filter((k) => k !== MEMBER)
/** Whether a node (a child's value) is itself a member: a leaf, or marked with `"."`. */
export const isMember = (t: FieldTree): boolean => Object.prototype.hasOwnProperty.call(t, MEMBER) || isLeaf(t)

/** No key at all. Loops over keys instead of listing them: asked on every write, for every node it walks. */
export const isLeaf = (t: FieldTree): boolean => {
  for (const _ in t) return false
  return true
}

/** Builds a node from its membership and children; `undefined` when it holds nothing. */
const node = (member: boolean, children: Record<string, FieldTree>): FieldTree | undefined => {
  const keys = Object.keys(children)
  if (keys.length === 0) return member ? emptySet : undefined
  return member ? memberWith(children) : children
}

/**
 * A member node with `children`, and a tree without one key: copied key by key. A spread or a rest pattern here
 * gives every node a hidden class of its own (docs/benchmarks.md "Simulated cluster"), and every later walk over the
 * node (`for…in`, `Object.keys`) then takes V8's slow path: the lease's own set took ~300 ns to check.
 */
export const memberWith = (children: FieldTree): FieldTree => {
  const out: Record<string, FieldTree> = { ".": emptySet }
  for (const k in children) out[k] = children[k]!
  return out
}

export const without = (t: FieldTree, key: string): FieldTree => {
  const out: Record<string, FieldTree> = {}
  for (const k in t) if (k !== key) out[k] = t[k]!
  return out
}

/** No children (a root itself is never a member). */
export const isEmpty = (t: FieldTree): boolean => {
  for (const k in t) if (k !== MEMBER) return false
  return true
}

export const union = (a: FieldTree, b: FieldTree): FieldTree => {
  if (a === b || isEmpty(b)) return a
  if (isEmpty(a)) return b
  return unionChildren(a, b)
}

const unionChildren = (a: FieldTree, b: FieldTree): FieldTree => {
  const out: Record<string, FieldTree> = {}
  // Walked with `for…in` (the same order as `Object.keys`): no array of keys per node.
  for (const k in a) if (k !== MEMBER) out[k] = a[k]!
  for (const k in b) if (k !== MEMBER) out[k] = Object.prototype.hasOwnProperty.call(out, k) ? unionNodes(out[k]!, b[k]!) : b[k]!
  return out
}

const unionNodes = (a: FieldTree, b: FieldTree): FieldTree => {
  if (a === b) return a
  const children = unionChildren(a, b)
  return node(isMember(a) || isMember(b), children as Record<string, FieldTree>) ?? emptySet
}

/** Members of `a` not in `b`, at every depth (`Set.Difference`). */
export const difference = (a: FieldTree, b: FieldTree): FieldTree => {
  if (isEmpty(a) || isEmpty(b)) return a
  if (a === b) return emptySet
  return differenceChildren(a, b)
}

/**
 * The children of `a` minus `b`; walks only the keys of `b` (usually the smaller: what a write changed). Built
 * without `delete`, which would turn the node into a dictionary and make every later walk over it slow.
 */
const differenceChildren = (a: FieldTree, b: FieldTree): Record<string, FieldTree> => {
  let rests: Map<string, FieldTree | undefined> | undefined
  for (const k in b) {
    if (k === MEMBER || !Object.prototype.hasOwnProperty.call(a, k)) continue
    const na = a[k]!
    const nb = b[k]!
    ;(rests ??= new Map()).set(k, node(isMember(na) && !isMember(nb), differenceChildren(na, nb)))
  }
  if (rests === undefined) return Object.prototype.hasOwnProperty.call(a, MEMBER) ? (without(a, MEMBER) as Record<string, FieldTree>) : (a as Record<string, FieldTree>)
  const out: Record<string, FieldTree> = {}
  for (const k in a) {
    if (k === MEMBER) continue
    const rest = rests.has(k) ? rests.get(k) : a[k]
    if (rest !== undefined) out[k] = rest
  }
  return out
}

/** Whether every member of `sub` is a member of `set`; walks only `sub`. */
export const contains = (set: FieldTree, sub: FieldTree): boolean => {
  for (const k in sub) {
    if (k === MEMBER) continue
    if (!Object.prototype.hasOwnProperty.call(set, k)) return false
    const ns = set[k]!
    const nb = sub[k]!
    if (isMember(nb) && !isMember(ns)) return false
    if (!contains(ns, nb)) return false
  }
  return true
}

/** Members in both (`Set.Intersection`). */
export const intersection = (a: FieldTree, b: FieldTree): FieldTree => {
  if (isEmpty(a) || isEmpty(b)) return emptySet
  return intersectionChildren(a, b)
}

const intersectionChildren = (a: FieldTree, b: FieldTree): Record<string, FieldTree> => {
  const out: Record<string, FieldTree> = {}
  // Symmetric: walk the smaller side.
  if (Object.keys(a).length > Object.keys(b).length) [a, b] = [b, a]
  for (const k of childKeys(a)) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) continue
    const na = a[k]!
    const nb = b[k]!
    const both = node(isMember(na) && isMember(nb), intersectionChildren(na, nb))
    if (both !== undefined) out[k] = both
  }
  return out
}

/** Whether `a` and `b` share a member (`!isEmpty(intersection(a, b))` without building it); walks only `b`. */
export const intersects = (a: FieldTree, b: FieldTree): boolean => {
  for (const k in b) {
    if (k === MEMBER || !Object.prototype.hasOwnProperty.call(a, k)) continue
    const na = a[k]!
    const nb = b[k]!
    if ((isMember(na) && isMember(nb)) || intersects(na, nb)) return true
  }
  return false
}

/** The same tree, keys in the same order (as JSON writes it): `equalSets` and the same text. */
export const identicalTrees = (a: FieldTree, b: FieldTree): boolean => {
  if (a === b) return true
  // `a`'s keys walked with `for…in` (the same order as `Object.keys`): one array of keys per node, not two.
  const kb = Object.keys(b)
  let i = 0
  for (const k in a) if (k !== kb[i++] || !identicalTrees(a[k]!, b[k]!)) return false
  return i === kb.length
}

export const equalSets = (a: FieldTree, b: FieldTree): boolean => a === b || (contains(a, b) && contains(b, a))

/** Every member path, in key order, as `Path.String()` prints it: `.spec.containers[name="a"].image`. */
export const memberPaths = (t: FieldTree): string[] => {
  const out: string[] = []
  const walk = (n: FieldTree, prefix: string) => {
    for (const k of childKeys(n).sort()) {
      const child = n[k]!
      const path = prefix + pathElement(k)
      if (isMember(child)) out.push(path)
      walk(child, path)
    }
  }
  walk(t, "")
  return out
}

/** One FieldsV1 key as a path element: `.name`, `[name="a"]`, `[="x"]`, `[3]`. */
const pathElement = (key: string): string => {
  const body = key.slice(2)
  switch (key.slice(0, 2)) {
    case "f:":
      return `.${body}`
    case "v:":
      return `[=${body}]`
    case "i:":
      return `[${body}]`
    case "k:": {
      const fields = JSON.parse(body) as Record<string, unknown>
      return `[${Object.keys(fields)
        .sort()
        .map((f) => `${f}=${JSON.stringify(fields[f])}`)
        .join(",")}]`
    }
    default:
      return `.${key}`
  }
}

/**
 * A `fieldsV1` value read from an object: only objects of objects are trees; anything else is empty. Checked on
 * every read, without a memo: the walk allocates nothing and a set is small (a lease's has 5 nodes), while a
 * lookup in a set of every tree ever checked cost more than the walk on the 5,000-node hour.
 */
export const fieldTreeOf = (v: unknown): FieldTree => (isRecord(v) && isValidTree(v) ? (v as FieldTree) : emptySet)

const isValidTree = (v: Readonly<Record<string, unknown>>): boolean => {
  for (const k in v) {
    const child = v[k]
    if (!isRecord(child) || !isValidTree(child)) return false
  }
  return true
}

/** `k:` key of a keyed list item: its key fields sorted by name (an omitted one by its default), as compact JSON. */
export const itemKey = (item: Readonly<Record<string, unknown>>, keys: ReadonlyArray<string>, defaults?: Readonly<Record<string, unknown>>): string => {
  if (keys.length === 1) {
    // The common list (conditions by type, containers by name): the same text, without sorting or an object.
    const key = keys[0]!
    const v = item[key] ?? defaults?.[key]
    if (typeof v === "string") return singleFieldKey(key, v)
    return v === undefined ? "k:{}" : `k:{${JSON.stringify(key)}:${JSON.stringify(v)}}`
  }
  const fields: Record<string, unknown> = {}
  for (const k of [...keys].sort()) {
    const v = item[k] ?? defaults?.[k]
    if (v !== undefined) fields[k] = v
  }
  return `k:${JSON.stringify(fields)}`
}

/** Keys of items keyed by one string field, by field and value. */
const singleFieldKeys = new Map<string, Map<string, string>>()
let singleFieldKeyCount = 0

/**
 * `k:{"<field>":"<value>"}`, made once per field and value (started over past 50,000 keys: values are arbitrary):
 * every write to a pod compares its conditions and containers by these keys, and a key built afresh was hashed
 * again by each map, set and tree it went into (docs/benchmarks.md "Simulated cluster"). Flat, not `internalized`:
 * a property name is internalized in place at its first use, while internalizing up front cost ~4 µs a key for
 * values seen once (a lease's owner's uid).
 */
const singleFieldKey = (field: string, value: string): string => {
  let byValue = singleFieldKeys.get(field)
  if (byValue === undefined) singleFieldKeys.set(field, (byValue = new Map()))
  let key = byValue.get(value)
  if (key === undefined) {
    if (++singleFieldKeyCount > 50_000) {
      for (const m of singleFieldKeys.values()) m.clear()
      singleFieldKeyCount = 1
    }
    byValue.set(value, (key = flatString(`k:{${JSON.stringify(field)}:`, JSON.stringify(value), "}")))
  }
  return key
}

export const valueKey = (v: unknown): string => `v:${JSON.stringify(v)}`

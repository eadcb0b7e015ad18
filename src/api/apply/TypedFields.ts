/**
 * Objects seen through their kind's schema the way server-side apply sees them (`structured-merge-diff` typed
 * values): the set of fields an object sets, what changed between two objects, the merge of an applied
 * configuration into a live object, and the removal of fields. Lists follow {@link listSemantics} (atomic, set, or
 * keyed map), structs and maps marked atomic are leaves.
 *
 * Pure; parts that are identical (`===`) between two objects are not walked, so comparing a stored object with
 * its successor costs what changed, not the object's size.
 */
import { LastCall, LastCalls } from "../internal/LastCall.js"
import { internalized } from "../internal/V8Shapes.js"
import { isRecord } from "../Object.js"
import { sameObject } from "../SameObject.js"
import { fieldOf, type FieldSchema, listSemantics, type ListSemantics } from "../kinds/FieldSchema.js"
import { emptySet, type FieldTree, isLeaf, isMember, itemKey, valueKey } from "./FieldSet.js"

type Mutable = Record<string, FieldTree>

const fieldKeys = new Map<string, string>()
/** A field's key in a set, `f:<name>`, made once per name (started over past 50,000 names: maps with arbitrary keys). */
const fieldKey = (name: string): string => {
  let key = fieldKeys.get(name)
  if (key === undefined) {
    if (fieldKeys.size >= 50_000) fieldKeys.clear()
    fieldKeys.set(name, (key = internalized(`f:${name}`)))
  }
  return key
}

const childSchema = (s: FieldSchema | undefined, key: string): FieldSchema | undefined =>
  s === undefined ? undefined : s.type === "object" ? fieldOf(s, key) : s.type === "map" ? s.values : undefined

/** Structs and maps walked field by field (not atomic). */
const isGranular = (s: FieldSchema | undefined): boolean =>
  s !== undefined && ((s.type === "object" && s.patch?.structType !== "atomic") || (s.type === "map" && s.patch?.mapType !== "atomic"))

interface ListOf {
  readonly semantics: ListSemantics
  readonly items: FieldSchema | undefined
}

/** Derived once per array schema: a comparison asks it of every list it walks, on every write. */
const lists = new WeakMap<FieldSchema, ListOf>()

const listOf = (s: FieldSchema | undefined): ListOf | undefined => {
  if (s?.type !== "array") return undefined
  let list = lists.get(s)
  if (list === undefined) lists.set(s, (list = { semantics: listSemantics(s), items: s.items }))
  return list
}

const keyOfItem = (item: unknown, semantics: ListSemantics): string =>
  semantics.type === "map" && isRecord(item) ? itemKey(item, semantics.keys, semantics.keyDefaults) : valueKey(item)

/** The fields `value` sets (`ToFieldSet`), below the path where `schema` applies; a leaf is `{}`. */
export const fieldSetOf = (value: unknown, schema: FieldSchema | undefined): FieldTree => asChildren(value, schema) ?? emptySet

/** The children of a granular value (undefined for a leaf). */
const asChildren = (value: unknown, schema: FieldSchema | undefined): FieldTree | undefined => {
  // A scalar (most fields) is a leaf: no node made for it.
  if (value === null || typeof value !== "object") return undefined
  const out: Mutable = {}
  return putChildren(value, schema, out) < 0 ? undefined : out
}

/**
 * Writes the children of a granular value into `out`; how many it wrote (an item repeated counts twice), -1 for a
 * leaf. Written into the caller's node so that a member node is built with its `"."` first, not copied after.
 */
const putChildren = (value: unknown, schema: FieldSchema | undefined, out: Mutable): number => {
  let written = 0
  if (isRecord(value) && isGranular(schema)) {
    for (const k of Object.keys(value)) if (value[k] !== undefined) (out[fieldKey(k)] = valueNode(value[k], childSchema(schema, k))), written++
    return written
  }
  const list = listOf(schema)
  if (Array.isArray(value) && list !== undefined && list.semantics.type !== "atomic") {
    for (const item of value) (out[keyOfItem(item, list.semantics)] = itemNode(item, list)), written++
    return written
  }
  return -1
}

/** A field's node: its children when granular (an empty struct owns nothing), else a member leaf. */
const valueNode = (value: unknown, schema: FieldSchema | undefined): FieldTree => {
  const children = asChildren(value, schema)
  return children === undefined ? emptySet : children
}

/** A field added or removed as a whole: the field itself and everything below it. */
const wholeNode = (value: unknown, schema: FieldSchema | undefined): FieldTree => {
  const out: Mutable = { ".": emptySet }
  return putChildren(value, schema, out) > 0 ? out : emptySet
}

/** A list item's node: a keyed item with everything below it, a set's item a member leaf. */
const itemNode = (item: unknown, list: ListOf): FieldTree =>
  list.semantics.type === "map" ? wholeNode(item, list.items) : emptySet

export interface Comparison {
  readonly added: FieldTree
  readonly modified: FieldTree
  readonly removed: FieldTree
}

/**
 * The differences found below one path. Each tree is made on its first entry: a level usually changes in one way
 * only (a lease renewal modifies one field), and every write of the control-plane hour compares (docs/benchmarks.md).
 */
class Differences {
  added: Mutable | undefined = undefined
  modified: Mutable | undefined = undefined
  removed: Mutable | undefined = undefined

  add(key: string, t: FieldTree | undefined): void {
    if (t !== undefined) (this.added ??= {})[key] = t
  }

  modify(key: string, t: FieldTree | undefined): void {
    if (t !== undefined) (this.modified ??= {})[key] = t
  }

  remove(key: string, t: FieldTree | undefined): void {
    if (t !== undefined) (this.removed ??= {})[key] = t
  }

  /** These differences as the children of `key` in `into` (a tree made here is never empty). */
  putUnder(key: string, into: Differences): void {
    into.add(key, this.added)
    into.modify(key, this.modified)
    into.remove(key, this.removed)
  }
}

/** What changed from `before` to `after` (`TypedValue.Compare`). */
export const compare = (before: unknown, after: unknown, schema: FieldSchema | undefined): Comparison => {
  const found = new Differences()
  const last = lastComparisons.of(schema)
  compareInto(before, after, schema, found, last)
  const known = last.comparison
  // The same differences below every changed field as the last comparison's (`childDifferences`): its result again.
  if (known !== undefined && sameChildren(found.added, known.added) && sameChildren(found.modified, known.modified) && sameChildren(found.removed, known.removed))
    return known
  return (last.comparison = { added: found.added ?? emptySet, modified: found.modified ?? emptySet, removed: found.removed ?? emptySet })
}

/**
 * A kind's last comparison (`LastCall.ts`): the differences it found below one changed top-level field, and its
 * result, given again for a comparison that finds the very same trees under the same fields — then whatever is
 * worked out from the result (`ManagedFields.ts` `updatedEntries`) can be remembered by its identity too. A status
 * patch the simulation repeats (`Patch.ts` `mergedPart`) leaves every pod it starts in one second the same status
 * over the same stored one. One per kind's schema: other kinds' writes in between do not take it.
 */
class LastComparison extends LastCall<Differences> {
  comparison: Comparison | undefined = undefined
}

const lastComparisons = new LastCalls<Differences, LastComparison>(() => new LastComparison())

/** `found` (undefined: nothing) has the same keys as `known`, in the same order, holding the same trees. */
const sameChildren = (found: FieldTree | undefined, known: FieldTree): boolean => {
  if (found === undefined) return isLeaf(known)
  const keys = Object.keys(known)
  let i = 0
  for (const k in found) if (k !== keys[i++] || found[k] !== known[k]) return false
  return i === keys.length
}

/** Compares the children of two values at one path, writing the differences as children of `found`'s trees. */
const compareInto = (before: unknown, after: unknown, schema: FieldSchema | undefined, found: Differences, last?: LastComparison): void => {
  if (before === after) return
  if (isRecord(before) && isRecord(after) && isGranular(schema)) {
    // Keys walked with `for…in` (the same order as `Object.keys`): no array of keys per level.
    for (const k in after) {
      const a = after[k]
      const b = before[k]
      // Managed fields are owned by nobody (stripped from every set): not worth comparing on every write. A field
      // shared with `before` costs neither its schema nor its key text (a lease renewal shares all but one).
      if (a === undefined || a === b || k === "managedFields") continue
      const sub = childSchema(schema, k)
      if (b === undefined) found.add(fieldKey(k), wholeNode(a, sub))
      else compareChild(fieldKey(k), b, a, sub, found, last)
    }
    for (const k in before) if (before[k] !== undefined && after[k] === undefined && k !== "managedFields") found.remove(fieldKey(k), wholeNode(before[k], childSchema(schema, k)))
    return
  }
  const list = listOf(schema)
  if (Array.isArray(before) && Array.isArray(after) && list !== undefined && list.semantics.type !== "atomic") {
    const old = new Map<string, unknown>()
    for (const item of before) old.set(keyOfItem(item, list.semantics), item)
    const seen = new Set<string>()
    for (const item of after) {
      const key = keyOfItem(item, list.semantics)
      seen.add(key)
      if (!old.has(key)) {
        found.add(key, itemNode(item, list))
        continue
      }
      if (list.semantics.type !== "map") continue
      const itemDifferences = new Differences()
      compareInto(old.get(key), item, list.items, itemDifferences)
      itemDifferences.putUnder(key, found)
    }
    for (const [key, item] of old) if (!seen.has(key)) found.remove(key, itemNode(item, list))
  }
}

/** `last`: the kind's last comparison, at the top level only. */
const compareChild = (key: string, before: unknown, after: unknown, schema: FieldSchema | undefined, found: Differences, last: LastComparison | undefined): void => {
  if (before === after) return
  const granular =
    (isRecord(before) && isRecord(after) && isGranular(schema)) ||
    (Array.isArray(before) && Array.isArray(after) && listOf(schema) !== undefined && listOf(schema)!.semantics.type !== "atomic")
  if (!granular) {
    if (!sameObject(before, after)) found.modify(key, emptySet)
    return
  }
  const known = last?.get(before as object, after as object, schema)
  if (known !== undefined) return known.putUnder(key, found)
  // Their trees are never changed once made: the next comparison of the same objects may take them as they are.
  const childDifferences = new Differences()
  compareInto(before, after, schema, childDifferences)
  childDifferences.putUnder(key, found)
  last?.set(before as object, after as object, schema, childDifferences)
}

/** How the changes between two objects stand against one manager's fields ({@link changeExtent}). */
export type ChangeExtent = "none" | "owned" | "other"

/**
 * Whether `compare(before, after)` would find only modified fields that are members of `owned` and of none of
 * `others` ("owned"), nothing ("none"), or anything else ("other": an added or removed field, a keyed-list item
 * moved, a field outside `owned`, one another manager owns). Fields that are leaves of `ignored` are not looked
 * at. Walks only the parts that differ and builds nothing: the question every lease renewal asks of its write
 * (the managed-fields fast path in `ManagedFields.ts`).
 */
export const changeExtent = (
  before: unknown,
  after: unknown,
  schema: FieldSchema | undefined,
  owned: FieldTree | undefined,
  others: ReadonlyArray<FieldTree>,
  ignored: FieldTree | undefined
): ChangeExtent => {
  if (before === after) return "none"
  if (before === undefined || after === undefined) return "other"
  if (isRecord(before) && isRecord(after) && isGranular(schema)) {
    let extent: ChangeExtent = "none"
    // Fields defined in `after` less those defined in `before`: every one of `after` is in `before` (else
    // "other"), so a difference means `before` has a field `after` removed.
    let defined = 0
    for (const k in after) {
      const a = after[k]
      if (a === undefined) continue
      defined++
      const b = before[k]
      if (a === b || k === "managedFields") continue
      if (b === undefined) return "other"
      const key = fieldKey(k)
      const skipped = ignored?.[key]
      if (skipped !== undefined && isLeaf(skipped)) continue
      const child = changeExtent(b, a, childSchema(schema, k), owned?.[key], childrenAt(others, key), skipped)
      if (child === "other") return "other"
      if (child === "owned") extent = "owned"
    }
    for (const k in before) if (before[k] !== undefined) defined--
    return defined === 0 ? extent : "other"
  }
  const list = listOf(schema)
  if (Array.isArray(before) && Array.isArray(after) && list !== undefined && list.semantics.type !== "atomic") {
    // Keyed items in place (a condition's heartbeat), keys unique; sets and anything moved go to `compare`.
    if (list.semantics.type !== "map" || !isGranular(list.items) || before.length !== after.length) return "other"
    const keys = itemKeys(after, list.semantics)
    if (new Set(keys).size !== keys.length) return "other"
    let extent: ChangeExtent = "none"
    for (let i = 0; i < after.length; i++) {
      const a: unknown = after[i]
      const b: unknown = before[i]
      if (a === b) continue
      const key = keys[i]!
      if (keyOfItem(b, list.semantics) !== key) return "other"
      const child = changeExtent(b, a, list.items, owned?.[key], childrenAt(others, key), undefined)
      if (child === "other") return "other"
      if (child === "owned") extent = "owned"
    }
    return extent
  }
  // A leaf changed as a whole (as `compareChild` sees it).
  if (sameObject(before, after)) return "none"
  if (owned === undefined || !isMember(owned)) return "other"
  for (const o of others) if (isMember(o)) return "other"
  return "owned"
}

/**
 * The keys of a list's items. Not `after.map((item) => …)` in `changeExtent`: a closure over its locals would
 * make every call of that recursive function allocate a context (~40 bytes, three per lease renewal).
 */
const itemKeys = (items: ReadonlyArray<unknown>, semantics: ListSemantics): string[] => {
  const keys: string[] = []
  for (const item of items) keys.push(keyOfItem(item, semantics))
  return keys
}

const noTrees: ReadonlyArray<FieldTree> = []

const childrenAt = (trees: ReadonlyArray<FieldTree>, key: string): ReadonlyArray<FieldTree> => {
  if (trees.length === 0) return noTrees
  const out: FieldTree[] = []
  for (const t of trees) if (t[key] !== undefined) out.push(t[key]!)
  return out
}

/**
 * `live` with `config` merged in (`TypedValue.Merge`): config values win, granular structs and maps merge field
 * by field, keyed lists item by item (live order, new items appended), sets as a union.
 */
export const mergeConfig = (live: unknown, config: unknown, schema: FieldSchema | undefined): unknown => {
  if (isRecord(live) && isRecord(config) && isGranular(schema)) {
    const out: Record<string, unknown> = { ...live }
    for (const k of Object.keys(config)) {
      if (config[k] === undefined) continue
      out[k] = live[k] === undefined ? config[k] : mergeConfig(live[k], config[k], childSchema(schema, k))
    }
    return out
  }
  const list = listOf(schema)
  if (Array.isArray(live) && Array.isArray(config) && list !== undefined && list.semantics.type !== "atomic") {
    const index = new Map(config.map((item) => [keyOfItem(item, list.semantics), item] as const))
    const out = live.map((item) => {
      const key = keyOfItem(item, list.semantics)
      const applied = index.get(key)
      if (applied === undefined) return item
      index.delete(key)
      return list.semantics.type === "map" ? mergeConfig(item, applied, list.items) : item
    })
    return [...out, ...index.values()]
  }
  return config
}

/** `value` without the member fields of `set` (fields pruned when no manager keeps them). */
export const removeFields = (value: unknown, set: FieldTree, schema: FieldSchema | undefined): unknown => {
  if (isRecord(value) && isGranular(schema)) {
    let out: Record<string, unknown> | undefined
    for (const key of Object.keys(set)) {
      if (!key.startsWith("f:")) continue
      const field = key.slice(2)
      if (value[field] === undefined) continue
      const node = set[key]!
      const copy = (out ??= { ...value })
      if (Object.keys(node).length === 0 || Object.prototype.hasOwnProperty.call(node, ".")) delete copy[field]
      else {
        const rest = removeFields(value[field], node, childSchema(schema, field))
        // A struct left empty by pruning goes too, as upstream's omitempty encoding drops it.
        if (isRecord(rest) && Object.keys(rest).length === 0) delete copy[field]
        else copy[field] = rest
      }
    }
    return out ?? value
  }
  const list = listOf(schema)
  if (Array.isArray(value) && list !== undefined && list.semantics.type !== "atomic") {
    const out: unknown[] = []
    for (const item of value) {
      const key = keyOfItem(item, list.semantics)
      const node = set[key]
      if (node === undefined) out.push(item)
      else if (Object.keys(node).length === 0 || Object.prototype.hasOwnProperty.call(node, ".")) continue
      else out.push(removeFields(item, node, list.items))
    }
    return out
  }
  return value
}

/**
 * Objects seen through their kind's schema the way server-side apply sees them (`structured-merge-diff` typed
 * values): the set of fields an object sets, what changed between two objects, the merge of an applied
 * configuration into a live object, and the removal of fields. Lists follow {@link listSemantics} (atomic, set, or
 * keyed map), structs and maps marked atomic are leaves.
 *
 * Pure; parts that are identical (`===`) between two objects are not walked, so comparing a stored object with
 * its successor costs what changed, not the object's size.
 */
import { isRecord } from "../Object.js"
import { fieldOf, type FieldSchema, listSemantics, type ListSemantics } from "../kinds/FieldSchema.js"
import { emptySet, type FieldTree, itemKey, memberWith, valueKey } from "./FieldSet.js"

type Mutable = Record<string, FieldTree>

const childSchema = (s: FieldSchema | undefined, key: string): FieldSchema | undefined =>
  s === undefined ? undefined : s.type === "object" ? fieldOf(s, key) : s.type === "map" ? s.values : undefined

/** Structs and maps walked field by field (not atomic). */
const isGranular = (s: FieldSchema | undefined): boolean =>
  s !== undefined && ((s.type === "object" && s.patch?.structType !== "atomic") || (s.type === "map" && s.patch?.mapType !== "atomic"))

const listOf = (s: FieldSchema | undefined): { semantics: ListSemantics; items: FieldSchema | undefined } | undefined =>
  s?.type === "array" ? { semantics: listSemantics(s), items: s.items } : undefined

const keyOfItem = (item: unknown, semantics: ListSemantics): string =>
  semantics.type === "map" && isRecord(item) ? itemKey(item, semantics.keys, semantics.keyDefaults) : valueKey(item)

const asNode = (member: boolean, children: Mutable): FieldTree | undefined => {
  const empty = Object.keys(children).length === 0
  if (empty) return member ? emptySet : undefined
  return member ? memberWith(children) : children
}

/** The fields `value` sets (`ToFieldSet`), below the path where `schema` applies; a leaf is `{}`. */
export const fieldSetOf = (value: unknown, schema: FieldSchema | undefined): FieldTree => asChildren(value, schema) ?? emptySet

/** The children of a granular value (undefined for a leaf). */
const asChildren = (value: unknown, schema: FieldSchema | undefined): FieldTree | undefined => {
  if (isRecord(value) && isGranular(schema)) {
    const out: Mutable = {}
    for (const k of Object.keys(value)) if (value[k] !== undefined) out[`f:${k}`] = valueNode(value[k], childSchema(schema, k))
    return out
  }
  const list = listOf(schema)
  if (Array.isArray(value) && list !== undefined && list.semantics.type !== "atomic") {
    const out: Mutable = {}
    for (const item of value) {
      const children = list.semantics.type === "map" ? asChildren(item, list.items) : undefined
      out[keyOfItem(item, list.semantics)] = asNode(true, (children ?? {}) as Mutable) ?? emptySet
    }
    return out
  }
  return undefined
}

/** A field's node: its children when granular (an empty struct owns nothing), else a member leaf. */
const valueNode = (value: unknown, schema: FieldSchema | undefined): FieldTree => {
  const children = asChildren(value, schema)
  return children === undefined ? emptySet : children
}

/** A field added or removed as a whole: the field itself and everything below it. */
const wholeNode = (value: unknown, schema: FieldSchema | undefined): FieldTree => asNode(true, (asChildren(value, schema) ?? {}) as Mutable) ?? emptySet

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
  compareInto(before, after, schema, found)
  return { added: found.added ?? emptySet, modified: found.modified ?? emptySet, removed: found.removed ?? emptySet }
}

const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameJson(x, b[i]))
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined)
    const kb = Object.keys(b).filter((k) => b[k] !== undefined)
    return ka.length === kb.length && ka.every((k) => sameJson(a[k], b[k]))
  }
  return false
}

/** Compares the children of two values at one path, writing the differences as children of `found`'s trees. */
const compareInto = (before: unknown, after: unknown, schema: FieldSchema | undefined, found: Differences): void => {
  if (before === after) return
  if (isRecord(before) && isRecord(after) && isGranular(schema)) {
    for (const k of Object.keys(after)) {
      const a = after[k]
      const b = before[k]
      // Managed fields are owned by nobody (stripped from every set): not worth comparing on every write. A field
      // shared with `before` costs neither its schema nor its key text (a lease renewal shares all but one).
      if (a === undefined || a === b || k === "managedFields") continue
      const sub = childSchema(schema, k)
      if (b === undefined) found.add(`f:${k}`, wholeNode(a, sub))
      else compareChild(`f:${k}`, b, a, sub, found)
    }
    for (const k of Object.keys(before)) if (before[k] !== undefined && after[k] === undefined && k !== "managedFields") found.remove(`f:${k}`, wholeNode(before[k], childSchema(schema, k)))
    return
  }
  const list = listOf(schema)
  if (Array.isArray(before) && Array.isArray(after) && list !== undefined && list.semantics.type !== "atomic") {
    const old = new Map(before.map((item) => [keyOfItem(item, list.semantics), item] as const))
    const seen = new Set<string>()
    for (const item of after) {
      const key = keyOfItem(item, list.semantics)
      seen.add(key)
      if (!old.has(key)) {
        const children = list.semantics.type === "map" ? asChildren(item, list.items) : undefined
        found.add(key, asNode(true, (children ?? {}) as Mutable))
        continue
      }
      if (list.semantics.type !== "map") continue
      const itemDifferences = new Differences()
      compareInto(old.get(key), item, list.items, itemDifferences)
      itemDifferences.putUnder(key, found)
    }
    for (const [key, item] of old) {
      if (seen.has(key)) continue
      const children = list.semantics.type === "map" ? asChildren(item, list.items) : undefined
      found.remove(key, asNode(true, (children ?? {}) as Mutable))
    }
  }
}

const compareChild = (key: string, before: unknown, after: unknown, schema: FieldSchema | undefined, found: Differences): void => {
  if (before === after) return
  const granular = (isRecord(before) && isRecord(after) && isGranular(schema)) || (Array.isArray(before) && Array.isArray(after) && listOf(schema) !== undefined && listOf(schema)!.semantics.type !== "atomic")
  if (!granular) {
    if (!sameJson(before, after)) found.modify(key, emptySet)
    return
  }
  const childDifferences = new Differences()
  compareInto(before, after, schema, childDifferences)
  childDifferences.putUnder(key, found)
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

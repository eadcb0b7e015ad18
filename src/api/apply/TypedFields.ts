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
import { emptySet, type FieldTree, itemKey, valueKey } from "./FieldSet.js"

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

const put = (out: Mutable, key: string, t: FieldTree | undefined): void => {
  if (t !== undefined) out[key] = t
}

const asNode = (member: boolean, children: Mutable): FieldTree | undefined => {
  const empty = Object.keys(children).length === 0
  if (empty) return member ? emptySet : undefined
  return member ? { ".": emptySet, ...children } : children
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

/** What changed from `before` to `after` (`TypedValue.Compare`). */
export const compare = (before: unknown, after: unknown, schema: FieldSchema | undefined): Comparison => {
  const added: Mutable = {}
  const modified: Mutable = {}
  const removed: Mutable = {}
  compareInto(before, after, schema, added, modified, removed)
  return { added, modified, removed }
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

/** Compares the children of two values at one path, writing the differences as children of the given trees. */
const compareInto = (before: unknown, after: unknown, schema: FieldSchema | undefined, added: Mutable, modified: Mutable, removed: Mutable): void => {
  if (before === after) return
  if (isRecord(before) && isRecord(after) && isGranular(schema)) {
    for (const k of Object.keys(after)) {
      // Managed fields are owned by nobody (stripped from every set): not worth comparing on every write.
      if (after[k] === undefined || k === "managedFields") continue
      const sub = childSchema(schema, k)
      if (before[k] === undefined) put(added, `f:${k}`, wholeNode(after[k], sub))
      else compareChild(`f:${k}`, before[k], after[k], sub, added, modified, removed)
    }
    for (const k of Object.keys(before)) if (before[k] !== undefined && after[k] === undefined && k !== "managedFields") put(removed, `f:${k}`, wholeNode(before[k], childSchema(schema, k)))
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
        put(added, key, asNode(true, (children ?? {}) as Mutable))
        continue
      }
      if (list.semantics.type !== "map") continue
      const a: Mutable = {}
      const m: Mutable = {}
      const r: Mutable = {}
      compareInto(old.get(key), item, list.items, a, m, r)
      put(added, key, asNode(false, a))
      put(modified, key, asNode(false, m))
      put(removed, key, asNode(false, r))
    }
    for (const [key, item] of old) {
      if (seen.has(key)) continue
      const children = list.semantics.type === "map" ? asChildren(item, list.items) : undefined
      put(removed, key, asNode(true, (children ?? {}) as Mutable))
    }
  }
}

const compareChild = (key: string, before: unknown, after: unknown, schema: FieldSchema | undefined, added: Mutable, modified: Mutable, removed: Mutable): void => {
  if (before === after) return
  const granular = (isRecord(before) && isRecord(after) && isGranular(schema)) || (Array.isArray(before) && Array.isArray(after) && listOf(schema) !== undefined && listOf(schema)!.semantics.type !== "atomic")
  if (!granular) {
    if (!sameJson(before, after)) put(modified, key, emptySet)
    return
  }
  const a: Mutable = {}
  const m: Mutable = {}
  const r: Mutable = {}
  compareInto(before, after, schema, a, m, r)
  put(added, key, asNode(false, a))
  put(modified, key, asNode(false, m))
  put(removed, key, asNode(false, r))
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

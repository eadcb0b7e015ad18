/**
 * Strategic merge patch (`application/strategic-merge-patch+json`) as the 1.26 API server applies it
 * (`kubernetes/apimachinery: pkg/util/strategicpatch/patch.go`, `StrategicMergeMapPatch` with
 * `MergeParallelList` and `IgnoreUnmatchedNulls`): a JSON merge patch whose lists merge as the kind's schema
 * tags them (`patchStrategy:"merge"` + `patchMergeKey`, `UpstreamTags.ts`), plus the directives `$patch`
 * (`delete`, `replace`, and `merge` refused in lists), `$retainKeys`, `$deleteFromPrimitiveList/<field>` and
 * `$setElementOrder/<field>`. Untagged lists are replaced whole.
 *
 * Errors follow the server's `interpretStrategicMergePatchError`: malformed directives are 400, lists of lists
 * a generic 422, anything else (a missing merge key, an unknown `$patch`) the raw error text as a 500.
 *
 * Every list merge is O(n log n): merge-key values are looked up in maps built once per list, and upstream's
 * insertion sorts are replaced by sorts that give the same order. The merge takes steps from the request's
 * `WorkBudget` (one per list element or map key handled); past it the patch is refused (422).
 *
 * Pure: the target is never changed; the result shares its untouched parts.
 */
import { Either } from "effect"
import { fieldOf, type FieldSchema } from "../kinds/FieldSchema.js"
import { goJsonTypeName, goPrintValue } from "../go/PrintValue.js"
import { isRecord } from "../Object.js"
import { ApiError, badRequest, internal, makeStatus } from "../Status.js"
import { setKey, withoutNulls } from "./JsonValues.js"
import { sortedAsUpstream } from "./ListOrder.js"
import { makeWorkBudget, stepCost, workBudgetSpent, type WorkBudget } from "./WorkBudget.js"

type Obj = Record<string, unknown>

const directiveMarker = "$patch"
const retainKeysDirective = "$retainKeys"
const deleteFromPrimitiveListPrefix = "$deleteFromPrimitiveList"
const setElementOrderPrefix = "$setElementOrder"

class PatchFailure {
  constructor(readonly error: ApiError) {}
}

const fail = (error: ApiError): never => {
  throw new PatchFailure(error)
}

/** `mergepatch.Err…` texts that the server answers 400. */
const badPatchFormat = {
  primitiveList: "invalid patch format of primitive list",
  retainKeys: "invalid patch format of retainKeys",
  setElementOrder: "invalid patch format of setElementOrder list"
} as const

/** `errors.NewGenericServerResponse(422, …)`: the generic text, the error as an `UnexpectedServerResponse` cause. */
const unprocessable = (message: string): ApiError =>
  new ApiError({
    status: makeStatus({
      code: 422,
      reason: "Invalid",
      message: "the server rejected our request due to an error in our request",
      details: { causes: [{ reason: "UnexpectedServerResponse", message }] }
    })
  })

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k)

/** Pays for handling `items` list items or map keys; once the budget is spent the patch is refused (422, `WorkBudget.ts`). */
const spend = (budget: WorkBudget, items: number): void => {
  if (!budget.take(items * stepCost.item)) fail(unprocessable(workBudgetSpent(budget.steps)))
}

/** Go's `%s` of a directive value: strings as they are, other values as `%!s(type=value)`. */
const goPrintS = (v: unknown): string =>
  typeof v === "string" ? v : isRecord(v) || Array.isArray(v) ? goPrintValue(v) : v === null || v === undefined ? "%!s(<nil>)" : `%!s(${goJsonTypeName(v)}=${String(v)})`

const noMergeKey = (m: unknown, key: string): never => fail(internal(`map: ${goPrintValue(m)} does not contain declared merge key: ${key}`))
const badArgType = (expected: "map" | "slice", actual: unknown): never =>
  fail(internal(`expected a ${expected === "map" ? "map[string]interface {}" : "[]interface {}"}, but received a ${goJsonTypeName(actual)}`))
const badPatchType = (directive: unknown, m: unknown): never => fail(internal(`unknown patch type: ${goPrintS(directive)} in map: ${goPrintValue(m)}`))

// --- the schema as upstream's LookupPatchMeta sees it ------------------------------------------------------

const childSchema = (s: FieldSchema | undefined, key: string): FieldSchema | undefined =>
  s === undefined ? undefined : s.type === "object" ? fieldOf(s, key) : s.type === "map" ? s.values : undefined

/** The field's patch strategy without `retainKeys` (`extractRetainKeysPatchStrategy`). */
const strategyOf = (s: FieldSchema | undefined): string => {
  const tags = s !== undefined && (s.type === "object" || s.type === "map" || s.type === "array") ? s.patch : undefined
  return (tags?.patchStrategy ?? "").split(",").find((p) => p !== "" && p !== "retainKeys") ?? ""
}

const mergeKeyOf = (s: FieldSchema | undefined): string => (s?.type === "array" ? s.patch?.patchMergeKey ?? "" : "")
const itemsOf = (s: FieldSchema | undefined): FieldSchema | undefined => (s?.type === "array" ? s.items : undefined)

// --- maps -----------------------------------------------------------------------------------------------

const mergeMap = (original: Obj, patchIn: Obj, schema: FieldSchema | undefined, budget: WorkBudget): Obj => {
  if (hasOwn(patchIn, directiveMarker)) return directiveInMap(patchIn[directiveMarker], patchIn)
  const out: Obj = { ...original }
  // The directives below are consumed from the patch as upstream deletes them: a copy, the body stays as sent.
  const patch: Obj = { ...patchIn }
  const keys = Object.keys(patch)
  spend(budget, keys.length)
  applyRetainKeys(out, patch)
  applySetElementOrder(out, patch, schema, budget)
  for (const k of Object.keys(patch)) {
    const patchV = patch[k]
    const isDeleteList = k.startsWith(deleteFromPrimitiveListPrefix)
    const key = isDeleteList ? extractKey(k, deleteFromPrimitiveListPrefix) : k
    if (patchV === null) {
      delete out[key]
      continue
    }
    if (!hasOwn(out, key)) {
      if (!isDeleteList) setKey(out, key, withoutNulls(patchV))
      continue
    }
    const current = out[key]
    const sub = childSchema(schema, key)
    if (isRecord(current) && isRecord(patchV)) {
      setKey(out, key, strategyOf(sub) === "replace" ? patchV : mergeMap(current, patchV, sub, budget))
    } else if (Array.isArray(current) && Array.isArray(patchV)) {
      setKey(out, key, strategyOf(sub) === "merge" ? mergeSlice(current, patchV, itemsOf(sub), mergeKeyOf(sub), isDeleteList, budget) : patchV)
    } else if (!isDeleteList) {
      // Different JSON types, or scalars: the patch's value wins.
      setKey(out, key, withoutNulls(patchV))
    }
  }
  return out
}

/** `$patch` in a map: `replace` takes the patch's map as it is, `delete` empties it. */
const directiveInMap = (directive: unknown, patch: Obj): Obj => {
  if (directive === "replace") {
    const { [directiveMarker]: _d, ...rest } = patch
    return withoutNulls(rest) as Obj
  }
  if (directive === "delete") return {}
  return badPatchType(directive, patch)
}

/** `$retainKeys`: every key the patch sets must be listed; keys of the original not listed go. */
const applyRetainKeys = (out: Obj, patch: Obj): void => {
  if (!hasOwn(patch, retainKeysDirective)) return
  const list = patch[retainKeysDirective]
  delete patch[retainKeysDirective]
  if (!Array.isArray(list)) fail(badRequest(badPatchFormat.retainKeys))
  const keep = new Set(list as ReadonlyArray<unknown>)
  for (const k of Object.keys(patch)) {
    if (patch[k] === null || k.startsWith(deleteFromPrimitiveListPrefix) || k.startsWith(setElementOrderPrefix)) continue
    if (!keep.has(k)) fail(badRequest(badPatchFormat.retainKeys))
  }
  for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k]
}

/** `$deleteFromPrimitiveList/finalizers` → `finalizers`; a directive without the slash is a 400. */
const extractKey = (key: string, prefix: string): string => {
  const slash = key.indexOf("/")
  if (slash < 0 || key.slice(0, slash) !== prefix)
    return fail(badRequest(prefix === deleteFromPrimitiveListPrefix ? badPatchFormat.primitiveList : badPatchFormat.setElementOrder))
  return key.slice(slash + 1)
}

/**
 * `$setElementOrder/<field>` (`mergePatchIntoOriginal`): the field's list is merged here and put in the
 * directive's order; items only the server has keep their place relative to it.
 */
const applySetElementOrder = (out: Obj, patch: Obj, schema: FieldSchema | undefined, budget: WorkBudget): void => {
  for (const key of Object.keys(patch)) {
    if (!key.startsWith(setElementOrderPrefix)) continue
    const order = patch[key]
    delete patch[key]
    if (!Array.isArray(order)) return badArgType("slice", order)
    const field = extractKey(key, setElementOrderPrefix)
    const foundOriginal = hasOwn(out, field)
    const foundPatch = hasOwn(patch, field)
    const originalList = foundOriginal ? out[field] : []
    const patchList = foundPatch ? patch[field] : []
    if (!Array.isArray(originalList)) return badArgType("slice", originalList)
    if (!Array.isArray(patchList)) return badArgType("slice", patchList)
    spend(budget, order.length + originalList.length + patchList.length)
    const sub = childSchema(schema, field)
    const mergeKey = mergeKeyOf(sub)
    validatePatchWithSetOrderList(patchList, order, mergeKey)
    let merged: unknown[]
    if (foundOriginal && !foundPatch) merged = originalList
    else if (!foundOriginal && foundPatch) merged = patchList
    else if (foundOriginal && foundPatch)
      merged = strategyOf(sub) === "merge" ? mergeSlice(originalList, patchList, itemsOf(sub), mergeKey, false, budget) : patchList
    else continue
    const [patchItems, serverOnly] = mergeKey ? partitionMaps(merged, order, mergeKey, budget) : partitionPrimitives(merged, order)
    const isMap = elementsAreMaps(originalList, patchList)
    setKey(out, field, normalizeElementOrder(patchItems, serverOnly, order, originalList, mergeKey, isMap, budget))
    delete patch[field]
  }
}

const containsDirectiveMarker = (item: unknown): boolean => isRecord(item) && hasOwn(item, directiveMarker)

const mergeKeyValueEqual = (left: unknown, right: unknown, mergeKey: string): boolean => {
  if (!mergeKey) return left === right
  if (!isRecord(left)) return badArgType("map", left)
  if (!isRecord(right)) return badArgType("map", right)
  if (!hasOwn(left, mergeKey)) return noMergeKey(left, mergeKey)
  if (!hasOwn(right, mergeKey)) return noMergeKey(right, mergeKey)
  return left[mergeKey] === right[mergeKey]
}

/** The patch list's items (deletions aside) must appear in the `$setElementOrder` list, in its order. */
const validatePatchWithSetOrderList = (patchList: ReadonlyArray<unknown>, order: ReadonlyArray<unknown>, mergeKey: string): void => {
  if (order.length === 0 || patchList.length === 0) return
  const nonDelete = mergeKey ? extractToDeleteItems(patchList)[0] : patchList
  let p = 0
  let s = 0
  while (p < nonDelete.length && s < order.length) {
    if (containsDirectiveMarker(nonDelete[p])) {
      p++
      continue
    }
    if (mergeKeyValueEqual(nonDelete[p], order[s], mergeKey)) p++
    s++
  }
  if (p < nonDelete.length && s >= order.length)
    fail(internal(`The order in patch list:\n${goPrintValue(patchList)}\n doesn't match ${setElementOrderPrefix} list:\n${goPrintValue(order)}\n`))
}

// --- lists ----------------------------------------------------------------------------------------------

/** Whether the lists hold maps (else scalars); lists of lists are refused (422), mixed element types are a 500. */
const elementsAreMaps = (...lists: ReadonlyArray<ReadonlyArray<unknown>>): boolean => {
  let first: string | undefined
  for (const list of lists)
    for (const v of list) {
      const type = goJsonTypeName(v)
      if (first === undefined) {
        if (Array.isArray(v)) fail(unprocessable("lists of lists are not supported"))
        first = type
      } else if (type !== first) fail(internal(`list element types are not identical: ${goPrintValue(lists)}`))
    }
  if (first === undefined) fail(internal("no elements in any of the given slices"))
  return first === "map[string]interface {}"
}

const mergeSlice = (
  original: ReadonlyArray<unknown>,
  patch: ReadonlyArray<unknown>,
  itemSchema: FieldSchema | undefined,
  mergeKey: string,
  isDeleteList: boolean,
  budget: WorkBudget
): unknown[] => {
  if (original.length === 0 && patch.length === 0) return [...original]
  spend(budget, original.length + patch.length)
  const isMap = elementsAreMaps(original, patch)
  if (!isMap) {
    if (isDeleteList) {
      const gone = new Set(patch)
      return original.filter((v) => !gone.has(v))
    }
    const merged = [...new Set([...original, ...patch])]
    const [patchItems, serverOnly] = partitionPrimitives(merged, patch)
    return normalizeElementOrder(patchItems, serverOnly, patch, original, mergeKey, false, budget)
  }
  // PatchMetaFromStruct.Name() is the Go kind of the element type.
  if (!mergeKey) fail(internal("cannot merge lists without merge key for struct"))
  const [base, rest] = withSpecialElements(original, patch as ReadonlyArray<Obj>, mergeKey)
  const merged = mergeByKey(base, rest, mergeKey, itemSchema, budget)
  const [patchItems, serverOnly] = partitionMaps(merged, rest, mergeKey, budget)
  return normalizeElementOrder(patchItems, serverOnly, rest, base, mergeKey, true, budget)
}

/** `$patch` items of a merged list: `delete` drops the original's items with that key, `replace` drops them all. */
const withSpecialElements = (original: ReadonlyArray<unknown>, patch: ReadonlyArray<Obj>, mergeKey: string): [ReadonlyArray<unknown>, ReadonlyArray<Obj>] => {
  const rest: Obj[] = []
  const deleted = new Set<unknown>()
  let replace = false
  for (const v of patch) {
    if (!hasOwn(v, directiveMarker)) {
      rest.push(v)
      continue
    }
    const directive = v[directiveMarker]
    if (directive === "delete") {
      if (!hasOwn(v, mergeKey)) noMergeKey(v, mergeKey)
      deleted.add(v[mergeKey])
    } else if (directive === "replace") replace = true
    else if (directive === "merge") fail(internal("merging lists cannot yet be specified in the patch"))
    else badPatchType(directive, v)
  }
  if (replace) return [rest.map((o) => withoutNulls(o)), []]
  // One pass for all deletions: the original's items whose key is one a `delete` names.
  const base = deleted.size === 0 ? original : original.filter((o) => !(isRecord(o) && hasOwn(o, mergeKey) && deleted.has(o[mergeKey])))
  return [base, rest]
}

/**
 * Patch items merge into the original item with the same key value, or are appended (upstream's
 * `findMapInSliceBasedOnKeyValue` per item, here one lookup in the positions of each key value).
 */
const mergeByKey = (original: ReadonlyArray<unknown>, patch: ReadonlyArray<Obj>, mergeKey: string, itemSchema: FieldSchema | undefined, budget: WorkBudget): unknown[] => {
  const out = [...original]
  // The positions in `out` of the items holding each key value, ascending, and how many of them no longer hold
  // it: a merge deletes the key when the patch's value is null, and the next item with it is then the first.
  const positions = new Map<unknown, { readonly at: number[]; gone: number }>()
  const note = (value: unknown, at: number) => {
    const entry = positions.get(value)
    if (entry === undefined) positions.set(value, { at: [at], gone: 0 })
    else entry.at.push(at)
  }
  for (let i = 0; i < out.length; i++) {
    const item = out[i] as Obj
    if (hasOwn(item, mergeKey)) note(item[mergeKey], i)
  }
  for (const v of patch) {
    if (!hasOwn(v, mergeKey)) noMergeKey(v, mergeKey)
    const value = v[mergeKey]
    const entry = positions.get(value)
    const at = entry !== undefined && entry.gone < entry.at.length ? entry.at[entry.gone]! : -1
    if (at >= 0) {
      const merged = mergeMap(out[at] as Obj, v, itemSchema, budget)
      out[at] = merged
      if (!(hasOwn(merged, mergeKey) && merged[mergeKey] === value)) entry!.gone++
    } else {
      const added = withoutNulls(v) as Obj
      out.push(added)
      if (hasOwn(added, mergeKey)) note(added[mergeKey], out.length - 1)
    }
  }
  return out
}

/**
 * `findMapInSliceBasedOnKeyValue` for many values at once: the first map in `list` with each merge-key value.
 * Upstream scans `list` from the start and fails at a non-map item before the match; `indexOf` fails the same.
 */
const keyIndex = (list: ReadonlyArray<unknown>, mergeKey: string): ((value: unknown) => number) => {
  const first = new Map<unknown, number>()
  let nonMap = -1
  for (let i = 0; i < list.length; i++) {
    const item = list[i]
    if (!isRecord(item)) {
      nonMap = i
      break
    }
    if (hasOwn(item, mergeKey) && !first.has(item[mergeKey])) first.set(item[mergeKey], i)
  }
  return (value) => {
    const at = first.get(value)
    if (at === undefined && nonMap >= 0) fail(internal(`value for key ${nonMap} is not a map`))
    return at ?? -1
  }
}

const partitionPrimitives = (list: ReadonlyArray<unknown>, by: ReadonlyArray<unknown>): [unknown[], unknown[]] => {
  const inPatch = new Set(by)
  return [list.filter((v) => inPatch.has(v)), list.filter((v) => !inPatch.has(v))]
}

const partitionMaps = (list: ReadonlyArray<unknown>, by: ReadonlyArray<unknown>, mergeKey: string, budget: WorkBudget): [unknown[], unknown[]] => {
  spend(budget, list.length + by.length)
  const indexOf = keyIndex(by, mergeKey)
  const inPatch: unknown[] = []
  const serverOnly: unknown[] = []
  for (const v of list) {
    if (!isRecord(v)) return badArgType("map", v)
    if (!hasOwn(v, mergeKey)) noMergeKey(v, mergeKey)
    ;(indexOf(v[mergeKey]) >= 0 ? inPatch : serverOnly).push(v)
  }
  return [inPatch, serverOnly]
}

const extractToDeleteItems = (list: ReadonlyArray<unknown>): [unknown[], unknown[]] => {
  const keep: unknown[] = []
  const drop: unknown[] = []
  for (const v of list) {
    if (!isRecord(v)) return badArgType("map", v)
    ;(v[directiveMarker] === "delete" ? drop : keep).push(v)
  }
  return [keep, drop]
}

/**
 * Upstream's `index` as a lookup: the first position in `list` of each item's value (the merge key's value for
 * maps, a map without it counting as `undefined`; the item itself for scalars), -1 when absent.
 */
const positionsIn = (list: ReadonlyArray<unknown>, mergeKey: string, isMap: boolean): ((item: unknown) => number) => {
  const valueOf = (x: unknown) => (isMap ? (isRecord(x) ? x[mergeKey] : undefined) : x)
  const first = new Map<unknown, number>()
  for (let i = 0; i < list.length; i++) {
    const v = valueOf(list[i])
    if (!first.has(v)) first.set(v, i)
  }
  return (item) => first.get(valueOf(item)) ?? -1
}

/**
 * Patch items in the patch's order, server-only items in the live order, interleaved so that both relative
 * orders hold (`normalizeElementOrder` and `mergeSortedSlice`).
 */
const normalizeElementOrder = (
  patchItems: ReadonlyArray<unknown>,
  serverOnly: ReadonlyArray<unknown>,
  patchOrder: ReadonlyArray<unknown>,
  serverOrder: ReadonlyArray<unknown>,
  mergeKey: string,
  isMap: boolean,
  budget: WorkBudget
): unknown[] => {
  spend(budget, patchItems.length + serverOnly.length + patchOrder.length + serverOrder.length)
  const right = normalizeSliceOrder(patchItems, patchOrder, mergeKey, isMap)
  const left = normalizeSliceOrder(serverOnly, serverOrder, mergeKey, isMap)
  const serverIndex = positionsIn(serverOrder, mergeKey, isMap)
  const out: unknown[] = []
  let i = 0
  let j = 0
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++])
    else if (j >= right.length) out.push(left[i++])
    else {
      const li = serverIndex(left[i])
      const ri = serverIndex(right[j])
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++])
      else out.push(right[j++])
    }
  }
  return out
}

/** `toSort` in `order`'s order, as upstream's sort with its comparator leaves it (`ListOrder.ts`); deletions last. */
const normalizeSliceOrder = (toSortIn: ReadonlyArray<unknown>, order: ReadonlyArray<unknown>, mergeKey: string, isMap: boolean): unknown[] => {
  let toSort = [...toSortIn]
  let toDelete: unknown[] = []
  if (isMap) {
    for (const item of [...toSort, ...order]) {
      if (!isRecord(item)) return badArgType("map", item)
      if (!hasOwn(item, mergeKey)) noMergeKey(item, mergeKey)
    }
    ;[toSort, toDelete] = extractToDeleteItems(toSort)
  }
  const rankOf = positionsIn(order, mergeKey, isMap)
  return [...sortedAsUpstream(toSort, toSort.map(rankOf)), ...toDelete]
}

/**
 * Applies a strategic merge patch to `target` (never mutated) with the kind's `schema`. The body must decode as
 * a JSON object (`null` is an empty patch); else 400 as Go's decoder words it.
 */
export const strategicMergePatch = (
  target: Readonly<Record<string, unknown>>,
  patch: unknown,
  schema: FieldSchema | undefined,
  budget: WorkBudget = makeWorkBudget()
): Either.Either<unknown, ApiError> => {
  if (patch === null) return Either.right(target)
  if (!isRecord(patch)) return Either.left(badRequest(`json: cannot unmarshal ${Array.isArray(patch) ? "array" : typeof patch === "boolean" ? "bool" : typeof patch} into Go value of type map[string]interface {}`))
  try {
    return Either.right(mergeMap(target, patch, schema, budget))
  } catch (e) {
    if (e instanceof PatchFailure) return Either.left(e.error)
    throw e
  }
}

/**
 * JSON patch (RFC 6902, `application/json-patch+json`) as the 1.26 API server applies it (`kubernetes/apiserver:
 * pkg/endpoints/handlers/patch.go` `applyJSPatch`, `evanphx/json-patch` v4), with upstream's two bounds:
 * - at most 10,000 operations (`maxJSONPatchOperations`): more is 413 before anything is applied;
 * - the values `copy` operations copy add up to at most 3 MiB (json-patch's `AccumulatedCopySizeLimit`, which
 *   the server sets to its `JSONPatchMaxCopyBytes`, 3 MiB: twice etcd's 1.5 MB request limit): each copied
 *   value is measured as Go's encoder writes it before it is copied, and the copy past the limit fails the patch.
 * The operations are carried out one at a time by `fast-json-patch`, each first paid for from the request's
 * `WorkBudget` (array items shifted, bytes cloned or compared), so 10,000 operations on a large document cannot
 * hold the event loop (docs/limits.md "Patch work"). The library's own check that a `move`'s or `copy`'s `from`
 * exists cloned the whole document per operation; the same check is made here on the document itself.
 */
import { Either } from "effect"
import jsonpatch from "fast-json-patch"
import { isRecord } from "../Object.js"
import { ApiError, badRequest, makeStatus, requestEntityTooLarge } from "../Status.js"
import { setKey } from "./JsonValues.js"
import { makeWorkBudget, stepCost, workBudgetSpent, type WorkBudget } from "./WorkBudget.js"

/** `maxJSONPatchOperations` in upstream's `patch.go`. */
export const maxJsonPatchOperations = 10000

/** `JSONPatchMaxCopyBytes` (`kubernetes/apiserver: pkg/server/config.go`), json-patch's `AccumulatedCopySizeLimit`. */
export const maxJsonPatchCopyBytes = 3 * 1024 * 1024

const goKind = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : typeof v

/**
 * `errors.NewGenericServerResponse(422, …, isUnexpectedResponse=false)`: every failure while applying (a missing
 * path, a failed test, the copy limit) is this Status, the library's error text not shown.
 */
const patchFailed = (causes?: ReadonlyArray<{ readonly reason: string; readonly message: string }>) =>
  new ApiError({
    status: makeStatus({
      code: 422,
      reason: "Invalid",
      message: "the server rejected our request due to an error in our request",
      details: causes === undefined ? {} : { causes: [...causes] }
    })
  })

/** Our bound (not upstream's): the same 422, with the reason as a cause so that it can be told apart. */
class BudgetSpent {
  constructor(readonly steps: number) {}
}

const operationKinds = new Set(["add", "remove", "replace", "move", "copy", "test"])

const cloneJson = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(cloneJson)
  if (isRecord(v)) {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v)) setKey(out, k, cloneJson(v[k]))
    return out
  }
  return v
}

/**
 * `__proto__` as a JSON pointer segment. Upstream (Go maps) treats it as any key, as merge, strategic merge and
 * apply do here; fast-json-patch refuses it to guard the prototype. So such a patch is applied with every
 * `__proto__` key (of the document, the operations' values and pointers) renamed to a key found nowhere in them,
 * and renamed back after: the library never sees the name, and the result keeps it as a plain data key.
 */
const protoKey = "__proto__"
const pointsThroughProto = (op: unknown): boolean =>
  isRecord(op) && [op.path, op.from].some((p) => typeof p === "string" && p.split("/").includes(protoKey))

/** A key that occurs nowhere in `values` (as a key or a pointer segment). */
const unusedKey = (...values: ReadonlyArray<unknown>): string => {
  const text = JSON.stringify(values)
  let key = "\u0000proto"
  while (text.includes(JSON.stringify(key).slice(1, -1))) key += "\u0000"
  return key
}

/** A deep copy of `v` with every key `from` named `to`. */
const renameKeys = (v: unknown, from: string, to: string): unknown => {
  if (Array.isArray(v)) return v.map((x) => renameKeys(x, from, to))
  if (!isRecord(v)) return v
  const out: Record<string, unknown> = {}
  for (const k of Object.keys(v)) setKey(out, k === from ? to : k, renameKeys(v[k], from, to))
  return out
}

/** An operation with `__proto__` renamed to `to` in its value and in its pointers' segments. */
const renameProtoInOperation = (op: unknown, to: string): unknown => {
  const renamed = renameKeys(op, protoKey, to) as Record<string, unknown>
  for (const field of ["path", "from"] as const) {
    const pointer = renamed[field]
    if (typeof pointer === "string") renamed[field] = pointer.split("/").map((segment) => (segment === protoKey ? to : segment)).join("/")
  }
  return renamed
}

const hasOwn = (o: object, k: string): boolean => Object.prototype.hasOwnProperty.call(o, k)

/** Where a JSON pointer leads, as fast-json-patch walks it: the container of its last token and that token's value. */
interface Target {
  readonly container: unknown
  readonly token: string | undefined
  readonly value: unknown
}

const isIndex = (token: string): boolean => {
  if (token.length === 0) return false
  for (let i = 0; i < token.length; i++) {
    const c = token.charCodeAt(i)
    if (c < 48 || c > 57) return false
  }
  return true
}

const resolve = (doc: unknown, pointer: unknown): Target | undefined => {
  if (typeof pointer !== "string") return undefined
  if (pointer === "") return { container: undefined, token: undefined, value: doc }
  const tokens = pointer.split("/")
  let container: unknown
  let token: string | undefined
  let value = doc
  for (let t = 1; t < tokens.length; t++) {
    token = tokens[t]!
    if (token.includes("~")) token = token.replace(/~1/g, "/").replace(/~0/g, "~")
    container = value
    if (Array.isArray(value)) value = isIndex(token) ? value[Number(token)] : undefined
    else if (isRecord(value)) value = hasOwn(value, token) ? value[token] : undefined
    else return t === tokens.length - 1 ? { container, token, value: undefined } : undefined
  }
  return { container, token, value }
}

/**
 * The length of `v` as Go's `json.Marshal` writes it (compact; `<`, `>`, `&`, U+2028 and U+2029 escaped, control
 * characters other than `\n`, `\r`, `\t` as `\u00XX`; UTF-8), stopping early with a number above `cap` once it
 * passes `cap`. Walked with a stack: copies can nest a document deeper than the call stack allows.
 */
export const goJsonSize = (v: unknown, cap: number): number => {
  let size = 0
  const stack: unknown[] = [v]
  while (stack.length > 0) {
    if (size > cap) return size
    const x = stack.pop()
    if (x === null || x === undefined) size += 4
    else if (typeof x === "string") size += stringSize(x)
    else if (typeof x === "number") size += JSON.stringify(x).length
    else if (typeof x === "boolean") size += x ? 4 : 5
    else if (Array.isArray(x)) {
      size += 2 + Math.max(0, x.length - 1)
      if (size > cap) return size
      for (let i = x.length - 1; i >= 0; i--) stack.push(x[i])
    } else if (isRecord(x)) {
      const keys = Object.keys(x)
      size += 2 + Math.max(0, keys.length - 1)
      if (size > cap) return size
      for (const k of keys) {
        size += stringSize(k) + 1
        stack.push(x[k])
      }
    }
  }
  return size
}

const stringSize = (s: string): number => {
  let size = 2
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x20) size += c === 0x0a || c === 0x0d || c === 0x09 ? 2 : 6
    else if (c === 0x22 || c === 0x5c) size += 2
    else if (c === 0x3c || c === 0x3e || c === 0x26) size += 6
    else if (c < 0x80) size += 1
    else if (c < 0x800) size += 2
    else if (c === 0x2028 || c === 0x2029) size += 6
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && s.charCodeAt(i + 1) >= 0xdc00 && s.charCodeAt(i + 1) <= 0xdfff) {
      size += 4
      i++
    } else size += 3 // a lone surrogate is written as U+FFFD
  }
  return size
}

/**
 * fast-json-patch's validation, except that a `move`'s or `copy`'s `from` is looked up in the document itself
 * (the library looks it up in a deep clone of the whole document, once per operation). A `from` that does not
 * resolve fails as the library fails it; its other errors there are ignored, as the library ignores them.
 */
const validateOperation = (op: jsonpatch.Operation, index: number, document: unknown, existingPathFragment: string): void => {
  if (document === undefined || (op.op !== "move" && op.op !== "copy")) return jsonpatch.validator(op, index, document, existingPathFragment)
  jsonpatch.validator(op, index)
  try {
    jsonpatch.applyOperation(document, { op: "_get", path: op.from, value: undefined } as unknown as jsonpatch.Operation, true, true, true, 0)
  } catch (e) {
    if (!(e instanceof jsonpatch.JsonPatchError)) throw e
    if (e.name === "OPERATION_PATH_UNRESOLVABLE")
      throw new jsonpatch.JsonPatchError("Cannot perform the operation from a path that does not exist", "OPERATION_FROM_UNRESOLVABLE", index, op, document)
  }
}

/** Items an insert at (or a removal of) `t`'s last token shifts in its array; 0 when it is not an array's. */
const shiftedBy = (t: Target | undefined, removal: boolean): number => {
  if (t === undefined || !Array.isArray(t.container) || typeof t.token !== "string") return 0
  const length = t.container.length
  const index = isIndex(t.token) ? Math.min(Number(t.token), length) : length
  return Math.max(0, length - index - (removal ? 1 : 0))
}

/**
 * Pays for one operation before it is carried out: items shifted in the arrays it inserts into or removes from,
 * and the bytes of the values the library clones (`copy`'s value, the value a `move` overwrites) or compares
 * (`test`); a JSON patch's other work is linear in the body and the document. Returns the size of a `copy`'s
 * value, for the copy limit.
 */
const payFor = (doc: unknown, op: Record<string, unknown>, budget: WorkBudget, copyRoom: number): number => {
  const take = (steps: number) => {
    if (!budget.take(steps)) throw new BudgetSpent(budget.steps)
  }
  const at = resolve(doc, op.path)
  take(stepCost.byte * ((typeof op.path === "string" ? op.path.length : 0) + (typeof op.from === "string" ? op.from.length : 0)))
  // Measured up to what the budget has left: a larger value fails either way.
  const bytes = (v: unknown, cap: number) => (v === undefined || v === null ? 0 : goJsonSize(v, cap))
  const bytesLeft = () => Math.floor(budget.left() / stepCost.byte)
  switch (op.op) {
    case "add":
      take(stepCost.shift * shiftedBy(at, false))
      return 0
    case "remove":
      take(stepCost.shift * shiftedBy(at, true))
      return 0
    case "move": {
      take(stepCost.shift * (shiftedBy(resolve(doc, op.from), true) + shiftedBy(at, false)))
      take(stepCost.byte * bytes(at?.value, bytesLeft()))
      return 0
    }
    case "copy": {
      take(stepCost.shift * shiftedBy(at, false))
      // json-patch v4 counts a null value (a nil node) as 0 bytes.
      const size = bytes(resolve(doc, op.from)?.value, Math.min(copyRoom, bytesLeft()))
      if (size <= copyRoom) take(stepCost.byte * size)
      return size
    }
    case "test":
      // The comparison stops within the shorter value: the operation's own, which the body bounds.
      take(stepCost.byte * bytes(op.value, bytesLeft()))
      return 0
    default:
      return 0
  }
}

/**
 * Applies a decoded JSON patch body to `target` (never mutated). A body that is not an array → 400 as Go's
 * decoder words it; more than 10,000 operations → 413; a failing operation or copies past 3 MiB → the generic
 * 422; past the work budget → the same 422 with a cause naming the budget.
 */
export const jsonPatch = (target: unknown, patch: unknown, budget: WorkBudget = makeWorkBudget()): Either.Either<unknown, ApiError> => {
  // Decoding into jsonpatch.Patch ([]map[string]*json.RawMessage): null is an empty patch.
  if (patch === null) return Either.right(cloneJson(target))
  if (!Array.isArray(patch)) {
    return Either.left(badRequest(`json: cannot unmarshal ${goKind(patch)} into Go value of type jsonpatch.Patch`))
  }
  const notObject = patch.find((op) => op !== null && !isRecord(op))
  if (notObject !== undefined) {
    return Either.left(badRequest(`json: cannot unmarshal ${goKind(notObject)} into Go value of type jsonpatch.Operation`))
  }
  if (patch.length > maxJsonPatchOperations) {
    return Either.left(
      requestEntityTooLarge(
        `Request entity too large: The allowed maximum operations in a JSON patch is ${maxJsonPatchOperations}, got ${patch.length}`
      )
    )
  }
  // Any failure while applying (unknown op, missing path, failed test) is the generic 422.
  if (patch.some((op) => !isRecord(op) || typeof op.op !== "string" || !operationKinds.has(op.op))) {
    return Either.left(patchFailed())
  }
  const protoStandIn = patch.some(pointsThroughProto) ? unusedKey(target, patch) : undefined
  try {
    let doc = protoStandIn === undefined ? cloneJson(target) : renameKeys(target, protoKey, protoStandIn)
    let copied = 0
    for (let i = 0; i < patch.length; i++) {
      const op = (protoStandIn === undefined ? cloneJson(patch[i]) : renameProtoInOperation(patch[i], protoStandIn)) as Record<string, unknown>
      const size = payFor(doc, op, budget, maxJsonPatchCopyBytes - copied)
      if (op.op === "copy") {
        copied += size
        if (copied > maxJsonPatchCopyBytes) return Either.left(patchFailed())
      }
      doc = jsonpatch.applyOperation(doc, op as unknown as jsonpatch.Operation, validateOperation, true, true, i).newDocument
    }
    return Either.right(protoStandIn === undefined ? doc : renameKeys(doc, protoStandIn, protoKey))
  } catch (e) {
    if (e instanceof BudgetSpent) return Either.left(patchFailed([{ reason: "UnexpectedServerResponse", message: workBudgetSpent(e.steps) }]))
    // JsonPatchError, or the TypeError fast-json-patch would throw for a `__proto__` path: both come from the body
    return Either.left(patchFailed())
  }
}

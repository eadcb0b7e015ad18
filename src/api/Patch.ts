/**
 * PATCH bodies (`kubernetes/apiserver: pkg/endpoints/handlers/patch.go`):
 * JSON merge patch (RFC 7386) with the error codes and texts of the 1.26 server and its `evanphx/json-patch` v4
 * library, JSON patch (RFC 6902, `patch/JsonPatch.ts`) and strategic merge patch (`patch/StrategicMerge.ts`) with
 * the kind's schema. JSON and strategic merge patches take their work from one budget per request
 * (`patch/WorkBudget.ts`); a merge patch's work is linear in the body.
 */
import { Either } from "effect"
import type { FieldSchema } from "./kinds/FieldSchema.js"
import { isRecord } from "./Object.js"
import { type LastCall, LastCalls } from "./internal/LastCall.js"
import { extendable } from "./internal/V8Shapes.js"
import { jsonPatch } from "./patch/JsonPatch.js"
import { setKey, withoutNulls } from "./patch/JsonValues.js"
import { strategicMergePatch } from "./patch/StrategicMerge.js"
import { makeWorkBudget } from "./patch/WorkBudget.js"
import { type ApiError, badRequest, internal } from "./Status.js"

export type PatchType = "merge" | "json" | "strategic"

const patchContentTypes: Record<string, PatchType | "apply"> = {
  "application/json-patch+json": "json",
  "application/merge-patch+json": "merge",
  "application/strategic-merge-patch+json": "strategic",
  "application/apply-patch+yaml": "apply"
}

/**
 * The patch type a request's Content-Type names, or `undefined` (the route answers 415
 * `415: Unsupported Media Type`). Upstream cuts the header at the first `;` (so `;charset=…` goes) and
 * then compares exactly, case included.
 */
export const patchTypeOf = (contentType: string): PatchType | "apply" | undefined => {
  const semi = contentType.indexOf(";")
  const base = (semi >= 0 ? contentType.slice(0, semi) : contentType).trim()
  return Object.prototype.hasOwnProperty.call(patchContentTypes, base) ? patchContentTypes[base] : undefined
}

// --- merge patch, with json-patch v4's null pruning (`withoutNulls`) ---------------------------------

/**
 * The patched copy of `doc`: objects on the patch's paths are copied, everything else is shared with the
 * target, which is never changed (stored objects are immutable, and a deep clone per patch is costly).
 */
const mergeInto = (doc: Record<string, unknown>, patch: Record<string, unknown>, parts: LastCall<Record<string, unknown>>): Record<string, unknown> => {
  // `extendable` first: a patch adding keys to a copy of a literal-built object would give it a class of its own
  const out: Record<string, unknown> = { ...extendable, ...doc }
  for (const k of Object.keys(patch)) {
    const v = patch[k]
    if (v === null) {
      delete out[k]
      continue
    }
    const cur = Object.prototype.hasOwnProperty.call(doc, k) ? doc[k] : undefined
    if (cur === undefined || cur === null || !isRecord(cur)) setKey(out, k, withoutNulls(v))
    else if (!isRecord(v)) setKey(out, k, v) // v4 does not prune a non-object replacing an object
    else setKey(out, k, mergedPart(cur, v, parts))
  }
  return out
}

/**
 * A nested part merged, or the part the last merge of these same objects made (`LastCall.ts`): a node agent sends
 * every pod started in one second the same status body, onto the same stored status for pods seeded together.
 * Recorded after the parts below it, so the slot (one per kind) keeps the outermost part of a patch's last field.
 */
const lastParts = new LastCalls<Record<string, unknown>>()
const mergedPart = (doc: Record<string, unknown>, patch: Record<string, unknown>, parts: LastCall<Record<string, unknown>>): Record<string, unknown> =>
  parts.get(doc, patch, undefined) ?? parts.set(doc, patch, undefined, mergeInto(doc, patch, parts))

/**
 * A merge patch's object `patch` merged into the object `doc` at one place of a kind's object, as `applyPatch` merges
 * it there (the same remembered parts): for a write that knows the rest of the object stays (`StatusMergePatch.ts`).
 */
export const mergedObjectPart = (doc: Record<string, unknown>, patch: Record<string, unknown>, schema: FieldSchema | undefined): Record<string, unknown> =>
  mergedPart(doc, patch, lastParts.of(schema))

const mergePatch = (target: unknown, patch: unknown, schema: FieldSchema | undefined): Either.Either<unknown, ApiError> => {
  // json-patch v4's order: a null document is `ErrBadJSONDoc` (not a Status error, so 500), then a
  // patch that is not a JSON object or array (null included) is `ErrBadJSONPatch`, answered 400.
  if (target === null || target === undefined) return Either.left(internal("Invalid JSON Document"))
  if (!isRecord(patch) && !Array.isArray(patch)) return Either.left(badRequest("Invalid JSON Patch"))
  if (Array.isArray(patch) || !isRecord(target)) return Either.right(withoutNulls(patch))
  return Either.right(mergeInto(target, patch as Record<string, unknown>, lastParts.of(schema)))
}

/**
 * Applies an already-decoded patch body to `target` (never mutated) and returns the patched document.
 * Merge: a body that is not an object or array → 400 `Invalid JSON Patch`. JSON patch: a body that is not
 * an array → 400 `json: cannot unmarshal object into Go value of type jsonpatch.Patch`; more than 10000
 * operations → 413; a failing operation, or copies of more than 3 MiB in all → 422 `the server rejected our
 * request due to an error in our request`.
 * Strategic: lists merge as `schema` tags them (a kind without a schema merges like a merge patch whose
 * lists are replaced).
 */
export const applyPatch = (target: unknown, patchType: PatchType, patch: unknown, schema?: FieldSchema): Either.Either<unknown, ApiError> => {
  if (patchType === "json") return jsonPatch(target, patch, makeWorkBudget())
  if (patchType === "strategic") return isRecord(target) ? strategicMergePatch(target, patch, schema, makeWorkBudget()) : Either.left(internal("Invalid JSON Document"))
  return mergePatch(target, patch, schema)
}

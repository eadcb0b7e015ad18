/**
 * PATCH bodies (`kubernetes/apiserver: pkg/endpoints/handlers/patch.go`):
 * JSON merge patch (RFC 7386) and JSON patch (RFC 6902) with the error codes and texts of the 1.26
 * server and its `evanphx/json-patch` v4 library, and strategic merge patch (`patch/StrategicMerge.ts`) with the
 * kind's schema.
 */
import { Either } from "effect"
import jsonpatch from "fast-json-patch"
import type { FieldSchema } from "./kinds/FieldSchema.js"
import { isRecord } from "./Object.js"
import { extendable } from "./internal/V8Shapes.js"
import { setKey, withoutNulls } from "./patch/JsonValues.js"
import { strategicMergePatch } from "./patch/StrategicMerge.js"
import { ApiError, badRequest, internal, makeStatus, requestEntityTooLarge } from "./Status.js"

export type PatchType = "merge" | "json" | "strategic"

export const maxJsonPatchOperations = 10000

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

const cloneJson = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(cloneJson)
  if (isRecord(v)) {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v)) setKey(out, k, cloneJson(v[k]))
    return out
  }
  return v
}

// --- merge patch, with json-patch v4's null pruning (`withoutNulls`) ---------------------------------

/**
 * The patched copy of `doc`: objects on the patch's paths are copied, everything else is shared with the
 * target, which is never changed (stored objects are immutable, and a deep clone per patch is costly).
 */
const mergeInto = (doc: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> => {
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
    else setKey(out, k, mergeInto(cur, v))
  }
  return out
}

const mergePatch = (target: unknown, patch: unknown): Either.Either<unknown, ApiError> => {
  // json-patch v4's order: a null document is `ErrBadJSONDoc` (not a Status error, so 500), then a
  // patch that is not a JSON object or array (null included) is `ErrBadJSONPatch`, answered 400.
  if (target === null || target === undefined) return Either.left(internal("Invalid JSON Document"))
  if (!isRecord(patch) && !Array.isArray(patch)) return Either.left(badRequest("Invalid JSON Patch"))
  if (Array.isArray(patch) || !isRecord(target)) return Either.right(withoutNulls(patch))
  return Either.right(mergeInto(target, patch as Record<string, unknown>))
}

// --- JSON patch -----------------------------------------------------------------------------------------

const goKind = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "array" : typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : typeof v

/** `the server rejected our request due to an error in our request`, 422 Invalid with empty details. */
const patchFailed = () =>
  new ApiError({
    status: makeStatus({
      code: 422,
      reason: "Invalid",
      message: "the server rejected our request due to an error in our request",
      details: {}
    })
  })

const operationKinds = new Set(["add", "remove", "replace", "move", "copy", "test"])

const jsonPatch = (target: unknown, patch: unknown): Either.Either<unknown, ApiError> => {
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
  try {
    const result = jsonpatch.applyPatch(cloneJson(target), cloneJson(patch) as Array<jsonpatch.Operation>, true, true)
    return Either.right(result.newDocument)
  } catch {
    // JsonPatchError, or the TypeError fast-json-patch throws for `__proto__` paths: both come from the body
    return Either.left(patchFailed())
  }
}

/**
 * Applies an already-decoded patch body to `target` (never mutated) and returns the patched document.
 * Merge: a body that is not an object or array → 400 `Invalid JSON Patch`. JSON patch: a body that is not
 * an array → 400 `json: cannot unmarshal object into Go value of type jsonpatch.Patch`; more than 10000
 * operations → 413; a failing operation → 422 `the server rejected our request due to an error in our request`.
 * Strategic: lists merge as `schema` tags them (a kind without a schema merges like a merge patch whose
 * lists are replaced).
 */
export const applyPatch = (target: unknown, patchType: PatchType, patch: unknown, schema?: FieldSchema): Either.Either<unknown, ApiError> => {
  if (patchType === "json") return jsonPatch(target, patch)
  if (patchType === "strategic") return isRecord(target) ? strategicMergePatch(target, patch, schema) : Either.left(internal("Invalid JSON Document"))
  return mergePatch(target, patch)
}

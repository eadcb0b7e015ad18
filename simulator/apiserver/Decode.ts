/**
 * What a write request carries, checked before anything is stored: the body decoded against the kind's field
 * schema (type errors → 400; unknown and duplicate fields per `fieldValidation`, upstream "Field validation"),
 * kind/apiVersion against the URL, and the write and delete options. Pure: no store, no time.
 */
import { Either } from "effect"
import { forbidden, invalid as invalidField, noFieldErrors, notSupported, required, type FieldError } from "../../src/api/FieldError.js"
import { goQuote } from "../../src/api/go/Quote.js"
import { depthOverflowInText, maxBodyNestingDepth } from "../../src/api/JsonDepth.js"
import { strictDecodingErrors } from "../../src/api/kinds/DuplicateFields.js"
import { decodesCleanly, envelopeSchema, FieldSchema, splitUnknownFields, typeError } from "../../src/api/kinds/FieldSchema.js"
import { isRecord, type KObject } from "../../src/api/Object.js"
import type { DeleteOptions, PatchType, WriteOptions } from "../../src/api/Requests.js"
import { apiVersionOf, type ResourceType } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import type { ApiError } from "../../src/api/Status.js"
import { unrecognizedObject, versionKindError } from "../../src/api/UnrecognizedObject.js"

/** A body as it arrived: the parsed value and, when it came as text, the text (for duplicate-field checks). */
export interface Body {
  readonly value: unknown
  readonly raw?: string | undefined
}

export const isDryRun = (dryRun: ReadonlyArray<string> | undefined): boolean => dryRun !== undefined && dryRun.length > 0

/** `All`, or the bare parameter (upstream "Dry-run"); anything else is unsupported. */
const dryRunErrors = (dryRun: ReadonlyArray<string> | undefined): ReadonlyArray<FieldError> =>
  dryRun && dryRun.some((v) => v !== "All" && v !== "") ? [notSupported("dryRun", dryRun, ["All"])] : noFieldErrors

const fieldValidationLevels = ["", "Ignore", "Strict", "Warn"]

/** `ValidatePatchOptions`: `force` only for apply, which needs a `fieldManager`. */
const patchErrors = (patchType: PatchType | undefined, opts: WriteOptions): ReadonlyArray<FieldError> => {
  if (patchType === undefined) return noFieldErrors
  if (patchType === "apply") return opts.fieldManager ? noFieldErrors : [required("fieldManager", "is required for apply patch")]
  return opts.force !== undefined ? [forbidden("force", "may not be specified for non-apply patch")] : noFieldErrors
}

/** CreateOptions / UpdateOptions / PatchOptions: force, dryRun, fieldValidation, fieldManager (422 naming each). */
export const checkWriteOptions = (optionsKind: string, opts: WriteOptions, patchType?: PatchType): ApiError | undefined => {
  const patchProblems = patchErrors(patchType, opts)
  if (patchProblems.length === 0 && opts.dryRun === undefined && opts.fieldValidation === undefined && opts.fieldManager === undefined) return undefined
  const errors = [...patchProblems, ...dryRunErrors(opts.dryRun)]
  if (opts.fieldValidation !== undefined && !fieldValidationLevels.includes(opts.fieldValidation))
    errors.push(notSupported("fieldValidation", opts.fieldValidation, fieldValidationLevels))
  if (opts.fieldManager !== undefined && Buffer.byteLength(opts.fieldManager) > 128)
    errors.push({ type: "TooLong", field: "fieldManager", detail: "must have at most 128 bytes" })
  return errors.length > 0 ? Status.invalidOptions(optionsKind, errors) : undefined
}

const propagationPolicies = ["Foreground", "Background", "Orphan"]

export const checkDeleteOptions = (opts: DeleteOptions): ApiError | undefined => {
  const dry = dryRunErrors(opts.dryRun)
  if (dry.length > 0) return Status.invalidOptions("DeleteOptions", dry)
  const errors: FieldError[] = []
  if (opts.propagationPolicy !== undefined && opts.orphanDependents !== undefined)
    errors.push(invalidField("propagationPolicy", opts.propagationPolicy, "orphanDependents and deletionPropagation cannot be both set"))
  if (opts.propagationPolicy !== undefined && !propagationPolicies.includes(opts.propagationPolicy))
    errors.push(notSupported("propagationPolicy", opts.propagationPolicy, [...propagationPolicies, "nil"]))
  return errors.length > 0 ? Status.invalidOptions("DeleteOptions", errors) : undefined
}

/** `meta/v1.DeleteOptions` as 1.26 decodes it. */
const deleteOptionsSchema: FieldSchema = FieldSchema.object("v1.DeleteOptions", {
  apiVersion: FieldSchema.string(),
  kind: FieldSchema.string(),
  gracePeriodSeconds: FieldSchema.int64(),
  preconditions: FieldSchema.object("v1.Preconditions", { uid: FieldSchema.string("types.UID"), resourceVersion: FieldSchema.string() }),
  orphanDependents: FieldSchema.boolean(),
  propagationPolicy: FieldSchema.string("v1.DeletionPropagation"),
  dryRun: FieldSchema.array(FieldSchema.string())
})

/**
 * A DELETE body decoded as a `DeleteOptions` (JSON, or a protobuf envelope of any content type): another kind, or a
 * field of the wrong type, is a 400 with the decoder's text (upstream `handlers/delete.go` wraps both in
 * `NewBadRequest`) — never a delete with the field silently dropped.
 */
export const checkDeleteOptionsBody = (value: unknown): ApiError | undefined => {
  if (!isRecord(value)) return Status.badRequest(`json: cannot unmarshal ${jsonTypeName(value)} into Go value of type v1.DeleteOptions`)
  if (value.kind !== undefined && value.kind !== null && value.kind !== "" && value.kind !== "DeleteOptions")
    return Status.badRequest("decoded object cannot be converted to DeleteOptions")
  const problem = typeError(deleteOptionsSchema, value, "DeleteOptions", "v1")
  return problem === undefined ? undefined : Status.badRequest(problem.replace(deleteOptionsPrefix, ""))
}

/** `typeError`'s create-handler prefix, which the delete handler does not add. */
const deleteOptionsPrefix = 'DeleteOptions in version "v1" cannot be handled as a DeleteOptions: '

const noWarnings: ReadonlyArray<string> = Object.freeze([])

/** A body nesting deeper than the server stores (docs/limits.md). */
export const tooDeep = (resource: ResourceType): ApiError =>
  Status.badRequest(`${resource.kind} in version "${resource.version}" cannot be handled as a ${resource.kind}: exceeded max depth of ${maxBodyNestingDepth}`)

const jsonTypeName = (v: unknown): string => (Array.isArray(v) ? "array" : v === null ? "null" : typeof v === "object" ? "object" : typeof v === "boolean" ? "bool" : typeof v)

/**
 * Decodes a write body: type errors → 400, unknown/duplicate fields per fieldValidation. `decoded` is the
 * stored object the write starts from: parts of the body identical to its parts are not walked again.
 */
export const decodeBody = (
  resource: ResourceType,
  body: Body,
  fieldValidation: string | undefined,
  patched: boolean,
  decoded?: KObject
): Either.Either<{ object: KObject; warnings: ReadonlyArray<string> }, ApiError> => {
  const { kind, version } = resource
  const value = body.value
  if (!isRecord(value)) {
    const notAnObject = `json: cannot unmarshal ${jsonTypeName(value)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`
    // A body sent as it is fails where its kind is read (transformDecodeError without a kind, handlers/rest.go);
    // a patch's result fails decoding into the type.
    if (!patched) return Either.left(Status.badRequest(unrecognizedObject(kind, versionKindError(notAnObject), body.raw ?? JSON.stringify(value) ?? "")))
    return Either.left(Status.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: ${notAnObject}`))
  }
  // Kinds without a schema of their own still decode the common envelope typed (metadata is ObjectMeta).
  const schema = resource.rules.schema ?? envelopeSchema
  const clean = decodesCleanly(schema, value, decoded)
  if (!clean) {
    const typeProblem = typeError(schema, value, kind, version, undefined, decoded)
    if (typeProblem) return Either.left(Status.badRequest(typeProblem))
  }
  const metadata = value.metadata
  if (metadata !== undefined && !isRecord(metadata))
    return Either.left(Status.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonTypeName(metadata)} into Go struct field ${kind}.metadata of type v1.ObjectMeta`))
  // After type errors, which upstream finds first (docs/limits.md); in-process values are trusted, patch
  // bodies are bounded as they arrive.
  if (body.raw !== undefined && depthOverflowInText(body.raw, maxBodyNestingDepth) !== undefined) return Either.left(tooDeep(resource))
  const level = fieldValidation || "Warn"
  // The common case: a clean body given as a value (no text to look for duplicate fields in).
  if (clean && body.raw === undefined) {
    const object = (isRecord(metadata) ? value : { ...value, metadata: {} }) as KObject
    return Either.right({ object, warnings: noWarnings })
  }
  const problems: string[] = []
  // Unknown fields are dropped at every level; Ignore only stops reporting them.
  const split = !clean ? splitUnknownFields(schema, value, decoded) : { known: value, unknown: noWarnings }
  if (level !== "Ignore") {
    // With the text at hand the decoder's findings come in document order; without it only unknown fields exist.
    if (body.raw !== undefined) problems.push(...strictDecodingErrors(body.raw, schema))
    else problems.push(...split.unknown.map((f) => `unknown field ${goQuote(f)}`))
  }
  const known = split.known as Record<string, unknown>
  const object = (isRecord(known.metadata) ? known : { ...known, metadata: known.metadata ?? {} }) as KObject
  if (level === "Strict" && problems.length > 0) {
    if (patched)
      return Either.left(
        Status.invalid("", "", [invalidField("patch", JSON.stringify(value), `strict decoding error: ${problems.join(", ")}`)], { kind: "", group: "" })
      )
    return Either.left(Status.badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${problems.join(", ")}`))
  }
  return Either.right({ object, warnings: problems.length === 0 ? noWarnings : [...new Set(problems)] })
}

/** kind/apiVersion in a body must be empty or the URL's (400 otherwise). */
export const checkTypeMeta = (resource: ResourceType, obj: KObject): ApiError | undefined => {
  const expected = apiVersionOf(resource)
  if (obj.apiVersion !== undefined && obj.apiVersion !== "" && obj.apiVersion !== expected)
    return Status.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`)
  if (obj.kind !== undefined && obj.kind !== "" && obj.kind !== resource.kind)
    return Status.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${resource.kind})`)
  return undefined
}

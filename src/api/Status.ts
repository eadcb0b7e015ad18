/**
 * The `Status` object every API error (and a plain delete) is answered with, and the error catalogue
 * of apimachinery `pkg/api/errors/errors.go` — key order, reasons and messages upstream-exact.
 */
import { Schema } from "effect"
import { aggregate, type FieldError, toCause } from "./FieldError.js"
import { goQuote } from "./go/Quote.js"

export const StatusCause = Schema.Struct({
  reason: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String),
  field: Schema.optional(Schema.String)
})
export type StatusCause = typeof StatusCause.Type

export const StatusDetails = Schema.Struct({
  name: Schema.optional(Schema.String),
  group: Schema.optional(Schema.String),
  kind: Schema.optional(Schema.String),
  uid: Schema.optional(Schema.String),
  causes: Schema.optional(Schema.Array(StatusCause)),
  retryAfterSeconds: Schema.optional(Schema.Number)
})
export type StatusDetails = typeof StatusDetails.Type

export const Status = Schema.Struct({
  kind: Schema.Literal("Status"),
  apiVersion: Schema.String,
  metadata: Schema.Struct({ continue: Schema.optional(Schema.String), resourceVersion: Schema.optional(Schema.String) }),
  status: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String),
  details: Schema.optional(StatusDetails),
  code: Schema.optional(Schema.Number)
})
export type Status = typeof Status.Type

/** An API error crosses the wire as a Status, so it is a Schema tagged error carrying one. */
export class ApiError extends Schema.TaggedError<ApiError>()("ApiError", { status: Status }) {
  get code(): number {
    return this.status.code ?? 500
  }
  get reason(): string | undefined {
    return this.status.reason
  }
  override get message(): string {
    return this.status.message ?? ""
  }
}

const dropEmpty = (details: StatusDetails | undefined): StatusDetails | undefined => {
  if (!details) return undefined
  const out: Record<string, unknown> = {}
  for (const key of ["name", "group", "kind", "uid", "causes", "retryAfterSeconds"] as const) {
    const v = details[key]
    if (v === undefined || v === "" || v === 0 || (Array.isArray(v) && v.length === 0)) continue
    out[key] = v
  }
  return out as StatusDetails
}

/** A Status in `meta/v1` types.go's key order: kind, apiVersion, metadata, status, message, reason, details, code. */
export const makeStatus = (fields: {
  readonly status?: "Failure" | "Success"
  readonly message?: string
  readonly reason?: string
  readonly details?: StatusDetails
  readonly code?: number
  readonly metadata?: Status["metadata"]
}): Status => {
  const s: Record<string, unknown> = { kind: "Status", apiVersion: "v1", metadata: fields.metadata ?? {} }
  s.status = fields.status ?? "Failure"
  if (fields.message !== undefined) s.message = fields.message
  if (fields.reason !== undefined) s.reason = fields.reason
  if (fields.details !== undefined) s.details = dropEmpty(fields.details)
  if (fields.code !== undefined) s.code = fields.code
  return s as Status
}

const fail = (
  code: number,
  reason: string | undefined,
  message: string,
  details?: StatusDetails,
  metadata?: Status["metadata"]
): ApiError => {
  // An answer, not a bug: the stack trace would cost more than the rest (5,000 agents' first lease GET is a 404).
  const limit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
  try {
    // The Status is built right here, so the constructor's schema validation would only cost time.
    return new ApiError({ status: makeStatus({ code, reason, message, details, metadata }) }, true)
  } finally {
    Error.stackTraceLimit = limit
  }
}

/** `pods` for the core group, `leases.coordination.platform` otherwise. */
export interface GroupResource {
  readonly group: string
  readonly plural: string
}
export const qualifiedResource = (gr: GroupResource): string => (gr.group ? `${gr.plural}.${gr.group}` : gr.plural)

const resourceDetails = (gr: GroupResource, name: string): StatusDetails => ({ name, group: gr.group, kind: gr.plural })

export const notFound = (gr: GroupResource, name: string) =>
  fail(404, "NotFound", `${qualifiedResource(gr)} ${goQuote(name)} not found`, resourceDetails(gr, name))

export const alreadyExists = (gr: GroupResource, name: string, beingDeleted = false) =>
  fail(
    409,
    "AlreadyExists",
    `${beingDeleted ? "object is being deleted: " : ""}${qualifiedResource(gr)} ${goQuote(name)} already exists`,
    resourceDetails(gr, name)
  )

export const generateNameConflict = (gr: GroupResource, name: string) =>
  fail(
    409,
    "AlreadyExists",
    `${qualifiedResource(gr)} ${goQuote(name)} already exists, the server was not able to generate a unique name for the object`,
    { ...resourceDetails(gr, name), retryAfterSeconds: 1 }
  )

/** NamespaceLifecycle's refusal of a create in a namespace being terminated (403, cause `NamespaceTerminating`). */
export const namespaceTerminating = (gr: GroupResource, name: string, namespace: string) =>
  fail(403, "Forbidden", `${name ? `${qualifiedResource(gr)} ${goQuote(name)}` : qualifiedResource(gr)} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`, {
    ...resourceDetails(gr, name),
    causes: [{ reason: "NamespaceTerminating", message: `namespace ${namespace} is being terminated`, field: "metadata.namespace" }]
  })

/** Authentication failed or was required (`endpoints/filters/authentication.go`): no details. */
export const unauthorized = () => fail(401, "Unauthorized", "Unauthorized")

/**
 * Authorization refused (upstream `NewForbidden`): `<gr> "x" is forbidden: <why>`, `<gr> is forbidden: …` without a
 * name, `forbidden: …` for a non-resource path (empty group resource, empty details).
 */
export const forbidden = (gr: GroupResource | undefined, name: string, why: string) =>
  gr === undefined
    ? fail(403, "Forbidden", `forbidden: ${why}`, {})
    : fail(403, "Forbidden", `${name ? `${qualifiedResource(gr)} ${goQuote(name)}` : qualifiedResource(gr)} is forbidden: ${why}`, resourceDetails(gr, name))

export const conflict = (gr: GroupResource, name: string, detail: string) =>
  fail(409, "Conflict", `Operation cannot be fulfilled on ${qualifiedResource(gr)} ${goQuote(name)}: ${detail}`, resourceDetails(gr, name))

export const modifiedConflict = (gr: GroupResource, name: string) =>
  conflict(gr, name, "the object has been modified; please apply your changes to the latest version and try again")

/**
 * 422 Invalid. `qualifiedKind` is `Lease.coordination.platform` (or `Event`, `ListOptions.meta.platform`,
 * `leases.coordination.platform`); `detailsKind` and `group` go to `details`.
 */
export const invalid = (
  qualifiedKind: string,
  name: string,
  errors: ReadonlyArray<FieldError>,
  details: { readonly kind: string; readonly group: string }
) =>
  fail(422, "Invalid", `${qualifiedKind} ${goQuote(name)} is invalid: ${aggregate(errors)}`, {
    name,
    group: details.group,
    kind: details.kind,
    causes: errors.map(toCause)
  })

/** 422 for a bad options object (`ListOptions`, `CreateOptions`, `DeleteOptions`, …), group meta.platform. */
export const invalidOptions = (optionsKind: string, errors: ReadonlyArray<FieldError>) =>
  invalid(`${optionsKind}.meta.platform`, "", errors, { kind: optionsKind, group: "meta.platform" })

export const badRequest = (message: string) => fail(400, "BadRequest", message)

export const expired = (message: string, metadata?: Status["metadata"]) => fail(410, "Expired", message, undefined, metadata)

export const methodNotAllowed = () => fail(405, "MethodNotAllowed", "the server does not allow this method on the requested resource", {})

export const notAcceptable = (message: string) => fail(406, "NotAcceptable", message, {})

export const unsupportedMediaType = (message: string, withDetails = false) =>
  fail(415, "UnsupportedMediaType", message, withDetails ? {} : undefined)

export const requestEntityTooLarge = (message: string) => fail(413, "RequestEntityTooLarge", message)

export const resourceNotFound = () => fail(404, "NotFound", "the server could not find the requested resource", {})

export const tooLargeResourceVersion = (asked: number, current: number, retryAfterSeconds: number) =>
  fail(504, "Timeout", `Timeout: Too large resource version: ${asked}, current: ${current}`, {
    causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }],
    retryAfterSeconds
  })


/** `NewTimeoutError(message, 0)`: 504 Timeout, `Timeout: <message>`, empty details. */
export const timeout = (message: string) => fail(504, "Timeout", `Timeout: ${message}`, {})

export const tooManyRequests = (message: string, retryAfterSeconds: number) =>
  fail(429, "TooManyRequests", message, { retryAfterSeconds })

/** An error that is not a Status error: 500 without a reason, the raw text as message. */
export const internal = (message: string) => fail(500, undefined, message)

/** Upstream's `NewInternalError(err)`: a plain Go error a handler returned, as a 500 naming it. */
export const internalError = (err: string) => fail(500, "InternalError", `Internal error occurred: ${err}`, { causes: [{ message: err }] })

/** The 200 Status of a delete without finalizers: no `code` key (`registry/generic/registry/store.go`). */
export const deleteSuccess = (gr: GroupResource, name: string, uid: string): Status =>
  makeStatus({ status: "Success", details: { name, group: gr.group, kind: gr.plural, uid } })

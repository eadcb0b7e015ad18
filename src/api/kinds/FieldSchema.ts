/**
 * A tiny description of a kind's known fields and JSON types, and the two checks the decoder makes with
 * it: unknown fields (reported under `fieldValidation=Warn|Strict`, `handlers/rest.go`) and type mismatches
 * (always a 400 `… cannot be handled as a …`, spec 000 "Field validation" rule 1).
 *
 * `goType` is the Go type the upstream decoder names in its messages (`int32`, `v1.LeaseSpec`,
 * `[]v1.OwnerReference`, `types.UID`); constructors below fill the obvious default.
 */
import { parseGoTime } from "../go/Time.js"
import { LastCalls } from "../internal/LastCall.js"
import { isRecord } from "../Object.js"
import { tagsOf, type PatchTags } from "./UpstreamTags.js"
import { unrecognizedObject } from "../UnrecognizedObject.js"

export type { PatchTags } from "./UpstreamTags.js"

export type FieldSchema =
  | { readonly type: "string"; readonly goType?: string }
  | { readonly type: "integer"; readonly format?: "int32" | "int64"; readonly goType?: string }
  | { readonly type: "boolean" | "number"; readonly goType?: string }
  /**
   * `interface{}`: anything goes; duplicate keys inside are still reported. `format` names the types with
   * their own JSON form that accept more than one JSON type (`intstr.IntOrString`, `resource.Quantity`,
   * `runtime.RawExtension`).
   */
  | { readonly type: "any"; readonly format?: "int-or-string" | "quantity" | "raw-extension" }
  /** A type with its own JSON decoding that keeps the raw bytes (`FieldsV1`): nothing inside is checked. */
  | { readonly type: "raw" }
  /** `metav1.Time` (RFC3339) and `metav1.MicroTime` (RFC3339 with exactly 6 fractional digits). */
  | { readonly type: "time" | "microtime" }
  /** `rest`, when set, is the schema of every field not in `fields` (none is then unknown). */
  | {
      readonly type: "object"
      readonly fields: Readonly<Record<string, FieldSchema>>
      readonly goType?: string
      readonly rest?: FieldSchema
      readonly patch?: PatchTags
    }
  | { readonly type: "map"; readonly values: FieldSchema; readonly goType?: string; readonly patch?: PatchTags }
  | { readonly type: "array"; readonly items: FieldSchema; readonly goType?: string; readonly patch?: PatchTags }

/** A list as server-side apply sees it: replaced whole, a set of scalars, or a map of objects by key fields. */
export type ListSemantics =
  | { readonly type: "atomic" }
  | { readonly type: "set" }
  | { readonly type: "map"; readonly keys: ReadonlyArray<string>; readonly keyDefaults?: Readonly<Record<string, string>> | undefined }

/**
 * The list semantics of an array schema as upstream's OpenAPI → structured-merge-diff conversion derives
 * them (`kube-openapi: pkg/schemaconv`): an explicit `listType` wins; else `patchStrategy` merge with a merge
 * key is a map keyed by it, merge without a key a set; anything else is atomic.
 */
export const listSemantics = (s: Extract<FieldSchema, { type: "array" }>): ListSemantics => {
  const tags = s.patch
  if (tags?.listType === "map") return { type: "map", keys: tags.listMapKeys ?? (tags.patchMergeKey ? [tags.patchMergeKey] : []), keyDefaults: tags.listMapKeyDefaults }
  if (tags?.listType !== undefined) return { type: tags.listType }
  if (tags?.patchStrategy?.split(",").includes("merge")) return tags.patchMergeKey ? { type: "map", keys: [tags.patchMergeKey] } : { type: "set" }
  return { type: "atomic" }
}

/** Constructors: `FieldSchema.object("v1.LeaseSpec", { holderIdentity: FieldSchema.string() })`. */
export const FieldSchema = {
  string: (goType = "string"): FieldSchema => ({ type: "string", goType }),
  int32: (): FieldSchema => ({ type: "integer", format: "int32", goType: "int32" }),
  int64: (): FieldSchema => ({ type: "integer", format: "int64", goType: "int64" }),
  boolean: (): FieldSchema => ({ type: "boolean", goType: "bool" }),
  number: (): FieldSchema => ({ type: "number", goType: "float64" }),
  any: (): FieldSchema => ({ type: "any" }),
  raw: (): FieldSchema => ({ type: "raw" }),
  time: (): FieldSchema => ({ type: "time" }),
  microtime: (): FieldSchema => ({ type: "microtime" }),
  object: (goType: string, fields: Readonly<Record<string, FieldSchema>>, patch?: PatchTags): FieldSchema =>
    patch === undefined ? { type: "object", goType, fields } : { type: "object", goType, fields, patch },
  map: (values: FieldSchema, patch?: PatchTags): FieldSchema =>
    patch === undefined ? { type: "map", values, goType: `map[string]${goTypeOf(values)}` } : { type: "map", values, goType: `map[string]${goTypeOf(values)}`, patch },
  array: (items: FieldSchema, patch?: PatchTags): FieldSchema =>
    patch === undefined ? { type: "array", items, goType: `[]${goTypeOf(items)}` } : { type: "array", items, goType: `[]${goTypeOf(items)}`, patch }
} as const

/** The Go type name a decoder error prints for a value of this schema. */
export const goTypeOf = (s: FieldSchema): string => {
  switch (s.type) {
    case "any":
      return "interface {}"
    case "raw":
      return "v1.FieldsV1"
    case "time":
      return "v1.Time"
    case "microtime":
      return "v1.MicroTime"
    case "integer":
      return s.goType ?? s.format ?? "int64"
    case "string":
      return s.goType ?? "string"
    case "boolean":
      return s.goType ?? "bool"
    case "number":
      return s.goType ?? "float64"
    case "object":
      return s.goType ?? "struct {}"
    case "map":
      return s.goType ?? `map[string]${goTypeOf(s.values)}`
    case "array":
      return s.goType ?? `[]${goTypeOf(s.items)}`
  }
}

const S = FieldSchema

const ownerReferenceSchema = S.object(
  "v1.OwnerReference",
  {
    apiVersion: S.string(),
    kind: S.string(),
    name: S.string(),
    uid: S.string("types.UID"),
    controller: S.boolean(),
    blockOwnerDeletion: S.boolean()
  },
  tagsOf("meta/v1.OwnerReference", "")
)

const managedFieldsEntrySchema = S.object("v1.ManagedFieldsEntry", {
  manager: S.string(),
  operation: S.string("v1.ManagedFieldsOperationType"),
  apiVersion: S.string(),
  time: S.time(),
  fieldsType: S.string(),
  fieldsV1: S.raw(),
  subresource: S.string()
})

/** `metav1.ObjectMeta` as 1.26 decodes it. */
export const objectMetaSchema: FieldSchema = S.object("v1.ObjectMeta", {
  name: S.string(),
  generateName: S.string(),
  namespace: S.string(),
  selfLink: S.string(),
  uid: S.string("types.UID"),
  resourceVersion: S.string(),
  generation: S.int64(),
  creationTimestamp: S.time(),
  deletionTimestamp: S.time(),
  deletionGracePeriodSeconds: S.int64(),
  labels: S.map(S.string()),
  annotations: S.map(S.string()),
  ownerReferences: S.array(ownerReferenceSchema, tagsOf("meta/v1.ObjectMeta", "ownerReferences")),
  finalizers: S.array(S.string(), tagsOf("meta/v1.ObjectMeta", "finalizers")),
  managedFields: S.array(managedFieldsEntrySchema)
})

/**
 * A kind's top-level schema: `apiVersion`, `kind`, `metadata` plus the kind's own fields. The root's Go
 * struct name is the `kind` passed to {@link typeError}.
 */
export const kindSchema = (fields: Readonly<Record<string, FieldSchema>>, rest?: FieldSchema): FieldSchema => ({
  type: "object",
  fields: { apiVersion: S.string(), kind: S.string(), metadata: objectMetaSchema, ...fields },
  ...(rest === undefined ? {} : { rest })
})

/**
 * The common envelope alone, for kinds whose own fields are not described: `metadata` is typed as for
 * every kind (upstream decodes `ObjectMeta` into its struct whatever the kind), everything else is free.
 */
export const envelopeSchema: FieldSchema = kindSchema({}, S.any())

/** The schema of field `key` of an object schema, or undefined when the field is unknown. */
export const fieldOf = (s: Extract<FieldSchema, { type: "object" }>, key: string): FieldSchema | undefined =>
  Object.hasOwn(s.fields, key) ? s.fields[key] : s.rest

const join = (path: string, key: string): string => (path ? `${path}.${key}` : key)

/**
 * Every field the schema does not know, at any depth, as the strict decoder names them: `spec.foo`,
 * `metadata.ownerReferences[0].foo`, `foo` at top level; in document order. Nothing is reported below an
 * unknown field or below a value of the wrong JSON type (the decoder skips those).
 */
export const unknownFields = (schema: FieldSchema, value: unknown): string[] => splitUnknownFields(schema, value).unknown

/**
 * The value with unknown fields dropped (as the decoder drops them, spec 000 "Field validation") and
 * their paths; containers without unknown fields are returned as they were. Top-level parts identical to
 * those of `decoded` (the stored object a write starts from, never mutated) are known to decode and are
 * not walked.
 */
export const splitUnknownFields = (
  schema: FieldSchema,
  value: unknown,
  decoded?: Readonly<Record<string, unknown>>
): { readonly known: unknown; readonly unknown: string[] } => {
  const out: string[] = []
  const walk = (s: FieldSchema, v: unknown, path: string): unknown => {
    switch (s.type) {
      case "object": {
        if (!isRecord(v)) return v
        let copy: Record<string, unknown> | undefined
        for (const key of Object.keys(v)) {
          if (path === "" && decoded !== undefined && v[key] === decoded[key]) continue
          const child = fieldOf(s, key)
          if (child === undefined) {
            out.push(join(path, key))
            copy ??= { ...v }
            delete copy[key]
            continue
          }
          const known = walk(child, v[key], join(path, key))
          if (known !== v[key]) (copy ??= { ...v })[key] = known
        }
        return copy ?? v
      }
      case "map": {
        if (!isRecord(v)) return v
        let copy: Record<string, unknown> | undefined
        for (const key of Object.keys(v)) {
          const known = walk(s.values, v[key], join(path, key))
          if (known !== v[key]) (copy ??= { ...v })[key] = known
        }
        return copy ?? v
      }
      case "array": {
        if (!Array.isArray(v)) return v
        let copy: unknown[] | undefined
        v.forEach((item, i) => {
          const known = walk(s.items, item, `${path}[${i}]`)
          if (known !== item) (copy ??= [...v])[i] = known
        })
        return copy ?? v
      }
      default:
        return v
    }
  }
  const known = walk(schema, value, "")
  return { known, unknown: out }
}

const canonicalTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/
const canonicalMicroTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
/** Month, day and clock fields in range (the full parser reports which one is not). */
/** Two digits of `v` at `i` (the canonical patterns above have already checked they are digits). */
const twoDigits = (v: string, i: number): number => (v.charCodeAt(i) - 48) * 10 + v.charCodeAt(i + 1) - 48

const plausibleDate = (v: string): boolean => {
  const month = twoDigits(v, 5)
  const day = twoDigits(v, 8)
  return month >= 1 && month <= 12 && day >= 1 && day <= 28 && twoDigits(v, 11) < 24 && twoDigits(v, 14) < 60 && twoDigits(v, 17) < 60
}

/**
 * `canonicalMicroTime.test(v)` by character codes: `YYYY-MM-DDTHH:MM:SS.ffffffZ`. Every lease renewal checks its
 * renewTime (~500 a second in the 5,000-node hour), where the RegExp cost ~1 % of the run (docs/benchmarks.md).
 */
const isCanonicalMicroTime = (v: string): boolean => {
  if (v.length !== 27) return false
  for (let i = 0; i < 26; i++) {
    const c = v.charCodeAt(i)
    const separator = microTimeSeparators[i]!
    if (separator === 0 ? c < 48 || c > 57 : c !== separator) return false
  }
  return v.charCodeAt(26) === 90 // "Z"
}

/** Per position of a canonical MicroTime's first 26 characters: the separator's code, or 0 for a digit. */
const microTimeSeparators = Uint8Array.from("dddd-dd-ddTdd:dd:dd.dddddd", (c) => (c === "d" ? 0 : c.charCodeAt(0)))

/** A `metav1.Time` value that decodes cleanly (the check `decodesCleanly` makes of a time field). */
export const decodesAsTime = (v: unknown): boolean => typeof v === "string" && canonicalTime.test(v) && plausibleDate(v)

/** A `metav1.MicroTime` value that decodes cleanly (the check `decodesCleanly` makes of a microtime field). */
export const decodesAsMicroTime = (v: unknown): boolean => typeof v === "string" && isCanonicalMicroTime(v) && plausibleDate(v)

/** What Go's decoder calls a JSON value in `cannot unmarshal <x> into …`. */
const jsonKind = (v: unknown): string =>
  typeof v === "string" ? "string" : typeof v === "boolean" ? "bool" : typeof v === "number" ? "number" : Array.isArray(v) ? "array" : "object"

const INT32 = 2 ** 31
const INT64 = 2 ** 63

/**
 * Whether `v` decodes against `s` with no type error and no unknown field (the common case, checked without allocating).
 * `known` is what already decoded at the same place (the stored object): values identical to it are not walked again.
 */
const conforms = (s: FieldSchema, v: unknown, known?: unknown): boolean => {
  if (v === null || v === undefined || v === known) return true
  switch (s.type) {
    case "any":
    case "raw":
      return true
    case "string":
      return typeof v === "string"
    case "boolean":
      return typeof v === "boolean"
    case "number":
      return typeof v === "number"
    case "integer": {
      const limit = s.format === "int32" ? INT32 : INT64
      return typeof v === "number" && Number.isInteger(v) && v < limit && v >= -limit
    }
    case "time":
      return decodesAsTime(v)
    case "microtime":
      return decodesAsMicroTime(v)
    case "object": {
      if (!isRecord(v)) return false
      const before = known !== undefined && isRecord(known) ? known : undefined
      for (const key in v) {
        const field = fieldOf(s, key)
        if (field === undefined || !conforms(field, v[key], before?.[key])) return false
      }
      return true
    }
    case "map": {
      if (!isRecord(v)) return false
      for (const key in v) if (!conforms(s.values, v[key])) return false
      return true
    }
    case "array": {
      if (!Array.isArray(v)) return false
      for (const item of v) if (!conforms(s.items, item)) return false
      return true
    }
  }
}

/**
 * Whether `value` decodes cleanly against a kind's schema: no type error, no unknown field, a well-formed
 * `apiVersion`. Parts identical to those at the same place in `decoded` (see {@link splitUnknownFields}) are
 * not walked. When false, {@link typeError} and {@link splitUnknownFields} tell what is wrong.
 */
export const decodesCleanly = (schema: FieldSchema, value: Readonly<Record<string, unknown>>, decoded?: Readonly<Record<string, unknown>>): boolean => {
  if (schema.type !== "object") return conforms(schema, value)
  const apiVersion = value.apiVersion
  if (typeof apiVersion === "string" && apiVersion.indexOf("/") !== apiVersion.lastIndexOf("/")) return false
  for (const key in value) {
    const field = fieldOf(schema, key)
    if (field === undefined || !conformsPart(field, value[key], decoded?.[key])) return false
  }
  return true
}

/**
 * A top-level part checked, or known to conform from the last check of the same objects (`LastCall.ts`): a merge
 * patch the simulation repeats makes the same part again (`Patch.ts` `mergedPart`), onto the same stored part.
 */
const lastConforming = new LastCalls<true>()
const conformsPart = (s: FieldSchema, v: unknown, known: unknown): boolean => {
  // Parts the body shares with the stored object are not walked, nor remembered (they would take the slot).
  if (v === known || !isRecord(v)) return conforms(s, v, known)
  const slot = lastConforming.of(s)
  if (slot.get(s, v, known)) return true
  return conforms(s, v, known) && slot.set(s, v, known, true)
}

/** Thrown inside the walk for an error that stops decoding at once (a time field's own decoder failed). */
class Fatal {
  constructor(readonly message: string) {}
}

/**
 * A number as Go's decoder quotes it (the literal as written): the parsed value in JSON's spelling, which has no
 * `+` in an exponent (`-1e300`, where JavaScript prints `-1e+300`). A literal such as `15.0` reads back as `15`.
 */
const numberLiteral = (v: unknown): string => String(v).replace("e+", "e")

/**
 * The first decode error of `value` against `schema`, as the full 400 message the API server sends, or
 * undefined when the body decodes. Follows the 1.26 decoder (`sigs.k8s.io/json`, a fork of Go's
 * `encoding/json`):
 * - a wrong JSON type is remembered and decoding goes on; the first one is reported:
 *   `json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32`
 *   (the struct holding the field, then the JSON field path without array indices);
 * - a time field fails at once, even after an earlier type error: its own parse error
 *   (`parsing time "…" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"`), or a
 *   non-string JSON value reported as `… of type string`;
 * - `apiVersion`/`kind` are read first by a separate decoder; their errors read
 *   `the object provided is unrecognized (must be of type Lease): couldn't get version/kind; json parse
 *   error: …` followed by the first 30 bytes of `body` (defaults to `JSON.stringify(value)`).
 * `null` is accepted everywhere. Numbers are checked as parsed: `15.0` passes where Go, reading the
 * literal, would reject it. A `value` that is not an object is left to the caller. Top-level parts identical
 * to those of `decoded` are not walked (as in {@link splitUnknownFields}).
 */
export const typeError = (
  schema: FieldSchema,
  value: unknown,
  kind: string,
  version: string,
  body?: string,
  decoded?: Readonly<Record<string, unknown>>
): string | undefined => {
  if (!isRecord(value)) return undefined
  const metaError = interpretError(value)
  if (metaError !== undefined) {
    const text = body ?? JSON.stringify(value)
    return unrecognizedObject(kind, metaError, text)
  }
  let saved: string | undefined
  const stack: string[] = []
  let struct = kind
  const where = (goType: string) => `Go struct field ${struct}.${stack.join(".")} of type ${goType}`
  const save = (v: unknown, goType: string, literal = false): void => {
    if (saved === undefined) saved = `json: cannot unmarshal ${jsonKind(v)}${literal ? ` ${numberLiteral(v)}` : ""} into ${where(goType)}`
  }
  const walk = (s: FieldSchema, v: unknown): void => {
    if (v === null || v === undefined) return
    switch (s.type) {
      case "any":
      case "raw":
        return
      case "string":
        if (typeof v !== "string") save(v, goTypeOf(s))
        return
      case "boolean":
        if (typeof v !== "boolean") save(v, goTypeOf(s))
        return
      case "number":
        if (typeof v !== "number") save(v, goTypeOf(s))
        return
      case "integer": {
        if (typeof v !== "number") return save(v, goTypeOf(s))
        const limit = s.format === "int32" ? INT32 : INT64
        if (!Number.isInteger(v) || v >= limit || v < -limit) save(v, goTypeOf(s), true)
        return
      }
      case "time":
      case "microtime": {
        // metav1.Time/MicroTime decode themselves: a non-string fails their inner decode into a string.
        if (typeof v !== "string") throw new Fatal(`json: cannot unmarshal ${jsonKind(v)} into ${where("string")}`)
        // Almost every value is in the canonical UTC form the server writes; check that cheaply first.
        if ((s.type === "time" ? canonicalTime : canonicalMicroTime).test(v) && plausibleDate(v)) return
        const parsed = parseGoTime(v, s.type === "time" ? "RFC3339" : "RFC3339Micro")
        if ("error" in parsed) throw new Fatal(parsed.error)
        return
      }
      case "object": {
        if (!isRecord(v)) return save(v, goTypeOf(s))
        const outer = struct
        const own = s.goType ? s.goType.slice(s.goType.lastIndexOf(".") + 1) : kind
        const root = stack.length === 0
        for (const key of Object.keys(v)) {
          if (root && decoded !== undefined && v[key] === decoded[key]) continue
          const child = fieldOf(s, key)
          if (child === undefined) continue
          stack.push(key)
          struct = own
          walk(child, v[key])
          stack.pop()
          struct = outer
        }
        return
      }
      case "map":
        if (!isRecord(v)) return save(v, goTypeOf(s))
        for (const key of Object.keys(v)) walk(s.values, v[key])
        return
      case "array":
        if (!Array.isArray(v)) return save(v, goTypeOf(s))
        for (const item of v) walk(s.items, item)
        return
    }
  }
  let failure: string | undefined
  try {
    walk(schema, value)
    failure = saved
  } catch (e) {
    if (!(e instanceof Fatal)) throw e
    failure = e.message
  }
  return failure === undefined ? undefined : `${kind} in version "${version}" cannot be handled as a ${kind}: ${failure}`
}

/**
 * The version/kind sniffing decoder (Go's standard `encoding/json`, keys matched case-insensitively):
 * the first of `apiVersion`/`kind` that is not a string, then a malformed group/version.
 */
const interpretError = (value: Record<string, unknown>): string | undefined => {
  let apiVersion = ""
  let saved: string | undefined
  for (const key of Object.keys(value)) {
    // Lower-casing every key costs; only keys of the right length can match.
    const lower = key === "kind" ? "kind" : key === "apiVersion" ? "apiversion" : key.length === 4 || key.length === 10 ? key.toLowerCase() : ""
    if (lower !== "apiversion" && lower !== "kind") continue
    const v = value[key]
    if (v === null) continue
    if (typeof v !== "string") {
      saved ??= `couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonKind(v)} into Go struct field .${lower === "kind" ? "kind" : "apiVersion"} of type string`
      continue
    }
    if (lower === "apiversion") apiVersion = v
  }
  if (saved !== undefined) return saved
  if (apiVersion !== "/" && apiVersion.split("/").length > 2) return `unexpected GroupVersion string: ${apiVersion}`
  return undefined
}


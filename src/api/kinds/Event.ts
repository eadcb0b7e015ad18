/**
 * `events.platform/v1` Event: fields (spec 002) and validation (upstream `pkg/apis/core/validation/events.go`).
 * Upstream validates the internal (core) Event, so error paths use internal names: `message` for `note`,
 * `involvedObject` for `regarding`, `source` / `firstTimestamp` / `lastTimestamp` / `count` for the `deprecated…`
 * fields.
 */
import { type FieldError, GoTime, type GoValue, invalid, required } from "../FieldError.js"
import { goQuote } from "../go/Quote.js"
import { isRecord, type KObject } from "../Object.js"
import { FieldSchema, kindSchema } from "./FieldSchema.js"
import { type GoInstant, instantToIso, isZeroInstant, parseGoTime } from "../go/Time.js"
import type { KindRules } from "./KindRules.js"
import { isDNS1123Subdomain, isQualifiedName, validateObjectMetaCreate, validateObjectMetaUpdate } from "./Names.js"

const objectReference = FieldSchema.object("v1.ObjectReference", {
  kind: FieldSchema.string(),
  namespace: FieldSchema.string(),
  name: FieldSchema.string(),
  uid: FieldSchema.string("types.UID"),
  apiVersion: FieldSchema.string(),
  resourceVersion: FieldSchema.string(),
  fieldPath: FieldSchema.string()
})

export const eventSchema: FieldSchema = kindSchema({
  eventTime: FieldSchema.microtime(),
  series: FieldSchema.object("v1.EventSeries", {
    count: FieldSchema.int32(),
    lastObservedTime: FieldSchema.microtime()
  }),
  reportingController: FieldSchema.string(),
  reportingInstance: FieldSchema.string(),
  action: FieldSchema.string(),
  reason: FieldSchema.string(),
  regarding: objectReference,
  related: objectReference,
  note: FieldSchema.string(),
  type: FieldSchema.string(),
  deprecatedSource: FieldSchema.object("v1.EventSource", { component: FieldSchema.string(), host: FieldSchema.string() }),
  deprecatedFirstTimestamp: FieldSchema.time(),
  deprecatedLastTimestamp: FieldSchema.time(),
  deprecatedCount: FieldSchema.int32()
})

// Limits of pkg/apis/core/validation/events.go; `len()` counts bytes although the texts say characters.
const REPORTING_INSTANCE_LIMIT = 128
const ACTION_LIMIT = 128
const REASON_LIMIT = 128
const NOTE_LIMIT = 1024

/** Namespaces an Event with an eventTime may report about a cluster-scoped object from. */
const NAMESPACE_DEFAULT = "default"
const NAMESPACE_SYSTEM = "platform-system"

interface Reference {
  readonly kind: string
  readonly namespace: string
  readonly name: string
  readonly uid: string
  readonly apiVersion: string
  readonly resourceVersion: string
  readonly fieldPath: string
}

/** The internal Event the validators see, converted from the v1 object. Times are undefined when zero. */
interface InternalEvent {
  readonly namespace: string
  readonly involvedObject: Reference
  readonly related: Reference | undefined
  readonly message: string
  readonly reason: string
  readonly action: string
  readonly type: string
  readonly reportingController: string
  readonly reportingInstance: string
  readonly eventTime: GoInstant | undefined
  readonly series: { readonly count: number; readonly lastObservedTime: GoInstant | undefined } | undefined
  readonly source: { readonly component: string; readonly host: string }
  readonly firstTimestamp: GoInstant | undefined
  readonly lastTimestamp: GoInstant | undefined
  readonly count: number
}

const str = (v: unknown): string => (typeof v === "string" ? v : "")
const int = (v: unknown): number => (typeof v === "number" ? v : 0)
const record = (v: unknown): Record<string, unknown> => (isRecord(v) ? v : {})

/** A decoded time; the zero time counts as unset, as in Go. */
const instant = (v: unknown, micro: boolean): GoInstant | undefined => {
  if (typeof v !== "string") return undefined
  let t = parseGoTime(v, micro ? "RFC3339Micro" : "RFC3339")
  if ("error" in t) t = parseGoTime(v, "RFC3339")
  return "error" in t || isZeroInstant(t) ? undefined : t
}

const reference = (v: unknown): Reference => {
  const r = record(v)
  return {
    kind: str(r.kind),
    namespace: str(r.namespace),
    name: str(r.name),
    uid: str(r.uid),
    apiVersion: str(r.apiVersion),
    resourceVersion: str(r.resourceVersion),
    fieldPath: str(r.fieldPath)
  }
}

const toInternal = (obj: KObject): InternalEvent => {
  const series = obj.series === null || obj.series === undefined ? undefined : record(obj.series)
  const source = record(obj.deprecatedSource)
  return {
    namespace: str(obj.metadata?.namespace),
    involvedObject: reference(obj.regarding),
    related: obj.related === null || obj.related === undefined ? undefined : reference(obj.related),
    message: str(obj.note),
    reason: str(obj.reason),
    action: str(obj.action),
    type: str(obj.type),
    reportingController: str(obj.reportingController),
    reportingInstance: str(obj.reportingInstance),
    eventTime: instant(obj.eventTime, true),
    series: series && { count: int(series.count), lastObservedTime: instant(series.lastObservedTime, true) },
    source: { component: str(source.component), host: str(source.host) },
    firstTimestamp: instant(obj.deprecatedFirstTimestamp, false),
    lastTimestamp: instant(obj.deprecatedLastTimestamp, false),
    count: int(obj.deprecatedCount)
  }
}

const bytes = (s: string): number => Buffer.byteLength(s, "utf8")

/** `legacyValidateEvent`: the rules every Event passes, whichever API wrote it. */
const legacyValidate = (e: InternalEvent): FieldError[] => {
  const errs: FieldError[] = []
  const involvedNs = e.involvedObject.namespace
  const mismatch = () => invalid("involvedObject.namespace", involvedNs, "does not match event.namespace")
  if (e.eventTime === undefined) {
    // Old-style events: namespaces must agree, an empty involved namespace allows only "" or default.
    if (involvedNs === "") {
      if (e.namespace !== "" && e.namespace !== NAMESPACE_DEFAULT) errs.push(mismatch())
    } else if (e.namespace !== involvedNs) errs.push(mismatch())
  } else {
    if (involvedNs === "" && e.namespace !== NAMESPACE_DEFAULT && e.namespace !== NAMESPACE_SYSTEM) errs.push(mismatch())
    if (e.reportingController === "") errs.push(required("reportingController"))
    errs.push(...isQualifiedName(e.reportingController).map((m) => invalid("reportingController", e.reportingController, m)))
    if (e.reportingInstance === "") errs.push(required("reportingInstance"))
    if (bytes(e.reportingInstance) > REPORTING_INSTANCE_LIMIT) {
      errs.push(invalid("reportingInstance", "", `can have at most ${REPORTING_INSTANCE_LIMIT} characters`))
    }
    if (e.action === "") errs.push(required("action"))
    if (bytes(e.action) > ACTION_LIMIT) errs.push(invalid("action", "", `can have at most ${ACTION_LIMIT} characters`))
    if (e.reason === "") errs.push(required("reason"))
    if (bytes(e.reason) > REASON_LIMIT) errs.push(invalid("reason", "", `can have at most ${REASON_LIMIT} characters`))
    if (bytes(e.message) > NOTE_LIMIT) errs.push(invalid("message", "", `can have at most ${NOTE_LIMIT} characters`))
  }
  errs.push(...isDNS1123Subdomain(e.namespace).map((m) => invalid("namespace", e.namespace, m)))
  return errs
}

const validateSeries = (e: InternalEvent): FieldError[] => {
  if (e.series === undefined) return []
  const errs: FieldError[] = []
  if (e.series.count < 2) errs.push(invalid("series.count", "", "should be at least 2"))
  if (e.series.lastObservedTime === undefined) errs.push(required("series.lastObservedTime"))
  return errs
}

/** events.platform/v1 create: legacy rules, ObjectMeta, series, then the v1-only rules (`ValidateEventCreate`). */
export const validateEventCreate = (obj: KObject): FieldError[] => {
  const e = toInternal(obj)
  const errs = [...legacyValidate(e), ...validateObjectMetaCreate(obj, true), ...validateSeries(e)]
  if (e.eventTime === undefined) errs.push(required("eventTime"))
  if (e.type !== "Normal" && e.type !== "Warning") errs.push(invalid("type", "", `has invalid value: ${e.type}`))
  if (e.firstTimestamp !== undefined) errs.push(invalid("firstTimestamp", "", "needs to be unset"))
  if (e.lastTimestamp !== undefined) errs.push(invalid("lastTimestamp", "", "needs to be unset"))
  if (e.count !== 0) errs.push(invalid("count", "", "needs to be unset"))
  if (e.source.component !== "" || e.source.host !== "") errs.push(invalid("source", "", "needs to be unset"))
  return errs
}

// --- update ---------------------------------------------------------------------------------------

/**
 * Go's `%#v` of a struct, which `field.Invalid` prints for struct values. FieldError has no raw value
 * kind; `GoTime` prints any text that is not an RFC3339 UTC time verbatim, so it carries these.
 */
const goStruct = (type: string, fields: ReadonlyArray<readonly [string, string]>): GoValue =>
  new GoTime(`${type}{${fields.map(([k, v]) => `${k}:${goQuote(v)}`).join(", ")}}`)

const referenceValue = (r: Reference | undefined): GoValue =>
  r === undefined
    ? "null"
    : goStruct("core.ObjectReference", [
        ["Kind", r.kind],
        ["Namespace", r.namespace],
        ["Name", r.name],
        ["UID", r.uid],
        ["APIVersion", r.apiVersion],
        ["ResourceVersion", r.resourceVersion],
        ["FieldPath", r.fieldPath]
      ])

const sameReference = (a: Reference | undefined, b: Reference | undefined): boolean =>
  a === undefined || b === undefined ? a === b : (Object.keys(a) as Array<keyof Reference>).every((k) => a[k] === b[k])

const sameInstant = (a: GoInstant | undefined, b: GoInstant | undefined): boolean =>
  a === undefined || b === undefined ? a === b : a.seconds === b.seconds && a.nanos === b.nanos

/** A `metav1.Time`/`MicroTime` value as `String()` prints it; unset is the zero time. */
const timeValue = (t: GoInstant | undefined): GoValue => new GoTime(t === undefined ? "0001-01-01T00:00:00Z" : instantToIso(t))

const truncatedToMicros = (t: GoInstant | undefined): GoInstant | undefined =>
  t && { seconds: t.seconds, nanos: t.nanos - (t.nanos % 1000) }

const immutable = (field: string, same: boolean, shown: GoValue): FieldError[] =>
  same ? [] : [invalid(field, shown, "field is immutable")]

/**
 * events.platform/v1 update: legacy rules on the new object, ObjectMeta update rules, `series` only if
 * it changed, then every other field immutable — `reason` twice, as upstream — and `eventTime` only if
 * it differs once truncated to microseconds (`ValidateEventUpdate`).
 */
export const validateEventUpdate = (obj: KObject, old: KObject): FieldError[] => {
  const e = toInternal(obj)
  const o = toInternal(old)
  const errs = [...legacyValidate(e), ...validateObjectMetaUpdate(obj, old)]
  const seriesSame =
    e.series === undefined || o.series === undefined
      ? e.series === o.series
      : e.series.count === o.series.count && sameInstant(e.series.lastObservedTime, o.series.lastObservedTime)
  if (!seriesSame) errs.push(...validateSeries(e))
  const sourceValue = goStruct("core.EventSource", [
    ["Component", e.source.component],
    ["Host", e.source.host]
  ])
  errs.push(
    ...immutable("involvedObject", sameReference(e.involvedObject, o.involvedObject), referenceValue(e.involvedObject)),
    ...immutable("reason", e.reason === o.reason, e.reason),
    ...immutable("message", e.message === o.message, e.message),
    ...immutable("source", e.source.component === o.source.component && e.source.host === o.source.host, sourceValue),
    ...immutable("firstTimestamp", sameInstant(e.firstTimestamp, o.firstTimestamp), timeValue(e.firstTimestamp)),
    ...immutable("lastTimestamp", sameInstant(e.lastTimestamp, o.lastTimestamp), timeValue(e.lastTimestamp)),
    ...immutable("count", e.count === o.count, e.count),
    ...immutable("reason", e.reason === o.reason, e.reason),
    ...immutable("type", e.type === o.type, e.type),
    ...immutable(
      "eventTime",
      sameInstant(truncatedToMicros(e.eventTime), truncatedToMicros(o.eventTime)),
      timeValue(e.eventTime)
    ),
    ...immutable("action", e.action === o.action, e.action),
    ...immutable("related", sameReference(e.related, o.related), referenceValue(e.related)),
    ...immutable("reportingController", e.reportingController === o.reportingController, e.reportingController),
    ...immutable("reportingInstance", e.reportingInstance === o.reportingInstance, e.reportingInstance)
  )
  return errs
}

export const eventRules: KindRules = {
  schema: eventSchema,
  validatesMetadata: true,
  validateCreate: validateEventCreate,
  validateUpdate: validateEventUpdate
}

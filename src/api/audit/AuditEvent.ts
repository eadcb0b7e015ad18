/**
 * The `audit.k8s.io/v1` audit event and event list, as upstream writes them: the log backend one `Event` per line,
 * the webhook backend `EventList` batches (staging/src/k8s.io/apiserver/pkg/apis/audit/v1/types.go). Decoded with
 * `effect/Schema` at the edge: what a replay reads (src/replay/) and what an audit writer emits share this one type.
 * Unknown fields are kept out of the type but not refused: newer API servers add fields.
 */
import { Schema } from "effect"

export const AuditApiVersion = "audit.k8s.io/v1"

/** `Level` in types.go: how much of a request an event carries. */
export const Level = Schema.Literal("None", "Metadata", "Request", "RequestResponse")
export type Level = typeof Level.Type

/** `Stage` in types.go: when in the request's life the event was written. */
export const Stage = Schema.Literal("RequestReceived", "ResponseStarted", "ResponseComplete", "Panic")
export type Stage = typeof Stage.Type

/** authentication/v1 `UserInfo`. */
export const UserInfo = Schema.Struct({
  username: Schema.optional(Schema.String),
  uid: Schema.optional(Schema.String),
  groups: Schema.optional(Schema.Array(Schema.String)),
  extra: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }))
})
export type UserInfo = typeof UserInfo.Type

/** `ObjectReference` in types.go: the object a resource request names (no kind: the resource names it). */
export const ObjectReference = Schema.Struct({
  resource: Schema.optional(Schema.String),
  namespace: Schema.optional(Schema.String),
  name: Schema.optional(Schema.String),
  uid: Schema.optional(Schema.String),
  apiGroup: Schema.optional(Schema.String),
  apiVersion: Schema.optional(Schema.String),
  resourceVersion: Schema.optional(Schema.String),
  subresource: Schema.optional(Schema.String)
})
export type ObjectReference = typeof ObjectReference.Type

/** The part of a metav1 `Status` an event's `responseStatus` carries. */
export const ResponseStatus = Schema.Struct({
  code: Schema.optional(Schema.Number),
  status: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String)
})

/** A JSON object of any shape (`runtime.Unknown` in types.go: the request or response body as sent). */
const AnyObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * metav1 `MicroTime`: RFC 3339 with microseconds (`2026-01-01T10:00:00.123456Z`). Kept as text; `microTimeMs`
 * reads it.
 */
export const MicroTime = Schema.String.pipe(
  Schema.filter((s) => (Number.isFinite(microTimeMs(s)) ? undefined : `not an RFC 3339 time: "${s}"`), { identifier: "MicroTime" })
)

export const Event = Schema.Struct({
  kind: Schema.Literal("Event"),
  apiVersion: Schema.Literal(AuditApiVersion),
  level: Level,
  auditID: Schema.String,
  stage: Stage,
  requestURI: Schema.String,
  verb: Schema.String,
  user: UserInfo,
  impersonatedUser: Schema.optional(UserInfo),
  sourceIPs: Schema.optional(Schema.Array(Schema.String)),
  userAgent: Schema.optional(Schema.String),
  objectRef: Schema.optional(ObjectReference),
  responseStatus: Schema.optional(ResponseStatus),
  // a list request's or a delete's object may be of any kind; an absent body is absent, not null
  requestObject: Schema.optional(Schema.Unknown),
  responseObject: Schema.optional(Schema.Unknown),
  requestReceivedTimestamp: MicroTime,
  stageTimestamp: MicroTime,
  annotations: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}).annotations({ identifier: "audit.k8s.io/v1 Event" })
export type Event = typeof Event.Type

export const EventList = Schema.Struct({
  kind: Schema.Literal("EventList"),
  apiVersion: Schema.Literal(AuditApiVersion),
  metadata: Schema.optional(AnyObject),
  items: Schema.Array(Schema.Unknown)
}).annotations({ identifier: "audit.k8s.io/v1 EventList" })
export type EventList = typeof EventList.Type

/**
 * Milliseconds since the epoch, with the microseconds as a fraction (`Date.parse` keeps milliseconds only); NaN
 * when the text is not RFC 3339.
 */
export const microTimeMs = (text: string): number => {
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text)
  if (!m) return Number.NaN
  const whole = Date.parse(`${m[1]}${m[3]}`)
  const fraction = m[2] === undefined ? 0 : Number(`0.${m[2]}`) * 1000
  return whole + fraction
}

/** `MicroTime` as upstream formats it (`2006-01-02T15:04:05.000000Z07:00`, UTC). */
export const formatMicroTime = (ms: number): string => {
  const whole = Math.floor(ms)
  const micros = Math.round((ms - whole) * 1000)
  const iso = new Date(whole).toISOString() // …T10:00:00.123Z
  return `${iso.slice(0, 23)}${String(micros).padStart(3, "0").slice(0, 3)}Z`
}

/** Verbs upstream serves as long-running requests (`server/config.go` LongRunningFunc: watch, proxy; `exec`, `attach`, `portforward`, `log` subresources). */
export const isLongRunning = (e: Pick<Event, "verb" | "objectRef">): boolean =>
  e.verb === "watch" || e.verb === "proxy" || ["exec", "attach", "portforward", "proxy", "log"].includes(e.objectRef?.subresource ?? "")

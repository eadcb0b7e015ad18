/**
 * The `audit.k8s.io/v1` audit event, as kube-apiserver's log backend writes it, one JSON object a line
 * (`staging/src/k8s.io/apiserver/pkg/apis/audit/v1/types.go`), and the `EventList` its webhook backend posts. The
 * fields are declared in upstream's order, which is the order Go's encoder writes them: `clustersim serve
 * --audit-log-path` writes events built in this order, and a replay reads them with this Schema. Unknown fields are
 * not refused (newer servers add some).
 */
import { Schema } from "effect"
import { parseGoTime } from "../go/Time.js"

export const AuditApiVersion = "audit.k8s.io/v1"

/** `Level`: how much of a request an event records. */
export const Level = Schema.Literal("None", "Metadata", "Request", "RequestResponse")
export type Level = typeof Level.Type

/** Upstream's `Level.Less`: the levels in order. */
export const levelOrder: Readonly<Record<Level, number>> = { None: 0, Metadata: 1, Request: 2, RequestResponse: 3 }

/** `Stage`: when in a request's life the event was written. */
export const Stage = Schema.Literal("RequestReceived", "ResponseStarted", "ResponseComplete", "Panic")
export type Stage = typeof Stage.Type

/** authentication/v1 `UserInfo` (every field `omitempty`). */
export const UserInfo = Schema.Struct({
  username: Schema.optional(Schema.String),
  uid: Schema.optional(Schema.String),
  groups: Schema.optional(Schema.Array(Schema.String)),
  extra: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Array(Schema.String) }))
})
export type UserInfo = typeof UserInfo.Type

/** `ObjectReference`: what a resource request names (every field `omitempty`). */
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

/**
 * metav1 `Status` as `responseStatus` holds it: `metadata` always (`{}`), then the bounded fields upstream copies
 * (`AuditContext.LogResponseObject`: status, message, reason, details, code).
 */
export const ResponseStatus = Schema.Struct({
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  status: Schema.optional(Schema.String),
  message: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String),
  details: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  code: Schema.optional(Schema.Number)
})
export type ResponseStatus = typeof ResponseStatus.Type

/**
 * metav1 `MicroTime` text: RFC 3339 with microseconds, UTC (`2026-11-29T11:30:00.123456Z`); any number of fraction
 * digits is read (other exports write RFC 3339 with nanoseconds). A date or time out of range is refused as Go's
 * `time.Parse` refuses it (`parsing time "2026-13-45T10:00:00Z": month out of range`, a 30 February's `day out of
 * range`), not rolled over into another day as `Date.parse` would.
 */
export const MicroTime = Schema.String.pipe(
  Schema.pattern(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/, { message: (issue) => `not an RFC 3339 time: ${JSON.stringify(issue.actual)}` }),
  Schema.filter((t) => {
    const parsed = parseGoTime(t, "RFC3339")
    return "error" in parsed ? parsed.error : undefined
  })
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
  /** The request body (`runtime.Unknown`: the JSON as encoded), at levels Request and RequestResponse. */
  requestObject: Schema.optional(Schema.Unknown),
  /** The response body, at level RequestResponse. */
  responseObject: Schema.optional(Schema.Unknown),
  requestReceivedTimestamp: MicroTime,
  stageTimestamp: MicroTime,
  annotations: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String }))
}).annotations({ identifier: "audit.k8s.io/v1 Event" })
export type Event = typeof Event.Type

export const EventList = Schema.Struct({
  kind: Schema.Literal("EventList"),
  apiVersion: Schema.Literal(AuditApiVersion),
  metadata: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  items: Schema.Array(Event)
}).annotations({ identifier: "audit.k8s.io/v1 EventList" })
export type EventList = typeof EventList.Type

const two = (n: number) => String(n).padStart(2, "0")

/** `MicroTime.MarshalJSON`: `t.UTC().Format("2006-01-02T15:04:05.000000Z07:00")`, from nanoseconds since the epoch. */
export const formatMicroTime = (nanos: bigint): string => {
  const ms = nanos / 1_000_000n
  const d = new Date(Number(ms))
  const micros = String((((nanos / 1000n) % 1_000_000n) + 1_000_000n) % 1_000_000n).padStart(6, "0")
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${micros}Z`
}

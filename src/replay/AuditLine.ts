/**
 * One line of an audit log: an `Event` (the log backend, one per line) or an `EventList` (the webhook backend's
 * batches, one per line when a receiver stores them). Whatever else a line holds is a `BadInput` naming its class,
 * file and line; the reader counts it and goes on (docs/replay.md "Bad input").
 */
import { Either, ParseResult, Schema } from "effect"
import { AuditApiVersion, Event } from "../api/audit/Event.js"
import { microTimeMs } from "../api/audit/EventTime.js"

/** Where a line came from: the file and its 1-based line number. */
export interface LineLocation {
  readonly file: string
  readonly line: number
}

/**
 * The classes of bad input: not JSON (a truncated line is one), JSON of another apiVersion or kind, an
 * `audit.k8s.io/v1` event missing or mistyping a field, a request URI that no longer parses.
 */
export type BadInputClass = "not-json" | "api-version" | "kind" | "invalid-event" | "unparsable-uri"

export interface BadInput extends LineLocation {
  readonly class: BadInputClass
  readonly message: string
}

export interface LocatedEvent extends LineLocation {
  readonly event: Event
}

const decodeEvent = Schema.decodeUnknownEither(Event, { onExcessProperty: "ignore" })
/** An `EventList` as read: its items decoded one by one, so one bad item is counted, not the whole batch. */
const EventBatch = Schema.Struct({ kind: Schema.Literal("EventList"), apiVersion: Schema.Literal(AuditApiVersion), items: Schema.Array(Schema.Unknown) })
const decodeList = Schema.decodeUnknownEither(EventBatch, { onExcessProperty: "ignore" })

const bad = (at: LineLocation, cls: BadInputClass, message: string): BadInput => ({ file: at.file, line: at.line, class: cls, message })

/** The first field that failed, with every alternative it was checked against (`Expected "A" | "B", actual "C"`). */
const firstIssue = (e: ParseResult.ParseError): string => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(e)
  const i = issues[0]
  if (i === undefined) return e.message
  const path = i.path.join(".")
  const same = issues.filter((x) => x.path.join(".") === path).map((x) => /^Expected (.*), actual (.*)$/s.exec(x.message))
  const message = same.length > 1 && same.every((m) => m !== null) ? `Expected ${same.map((m) => m![1]).join(" | ")}, actual ${same[0]![2]}` : i.message
  return `${path !== "" ? `${path}: ` : ""}${message}`
}

// ---------------------------------------------------------------------------------------------
// The common event, checked by hand
// ---------------------------------------------------------------------------------------------
// Decoding each event with the Schema was most of the cost of reading a log (docs/benchmarks.md, "replay"): a
// well-formed event is checked here field by field and built as the Schema builds it (declared fields only, in
// their order, nested objects copied); anything this does not accept goes to the Schema, which accepts it or names
// the field that is wrong. test/replay/AuditLogReading.test.ts holds the two to the same output.

type Obj = Record<string, unknown>
const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v)
const optionalString = (v: unknown): boolean => v === undefined || typeof v === "string"
const isStringArray = (v: unknown): v is Array<string> => {
  if (!Array.isArray(v)) return false
  for (const x of v) if (typeof x !== "string") return false
  return true
}
const levels: ReadonlySet<unknown> = new Set(["None", "Metadata", "Request", "RequestResponse"])
const stages: ReadonlySet<unknown> = new Set(["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"])
/** ./Event.ts `MicroTime`. */
const microTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/
/** A failed check: the Schema decides. */
const No = Symbol("no")

const userInfo = (v: unknown): Obj | typeof No => {
  if (!isObject(v) || !optionalString(v.username) || !optionalString(v.uid)) return No
  const out: Obj = {}
  if (v.username !== undefined) out.username = v.username
  if (v.uid !== undefined) out.uid = v.uid
  if (v.groups !== undefined) {
    if (!isStringArray(v.groups)) return No
    out.groups = v.groups.slice()
  }
  if (v.extra !== undefined) {
    if (!isObject(v.extra)) return No
    const extra: Record<string, Array<string>> = {}
    for (const k of Object.keys(v.extra)) {
      const x = v.extra[k]
      if (!isStringArray(x)) return No
      extra[k] = x.slice()
    }
    out.extra = extra
  }
  return out
}

const objectRefFields = ["resource", "namespace", "name", "uid", "apiGroup", "apiVersion", "resourceVersion", "subresource"] as const

const objectRef = (v: unknown): Obj | typeof No => {
  if (!isObject(v)) return No
  const out: Obj = {}
  for (const f of objectRefFields) {
    const x = v[f]
    if (x === undefined) continue
    if (typeof x !== "string") return No
    out[f] = x
  }
  return out
}

const responseStatus = (v: unknown): Obj | typeof No => {
  if (!isObject(v) || !optionalString(v.status) || !optionalString(v.message) || !optionalString(v.reason)) return No
  if (v.code !== undefined && typeof v.code !== "number") return No
  const out: Obj = {}
  if (v.metadata !== undefined) {
    if (!isObject(v.metadata)) return No
    out.metadata = { ...v.metadata }
  }
  if (v.status !== undefined) out.status = v.status
  if (v.message !== undefined) out.message = v.message
  if (v.reason !== undefined) out.reason = v.reason
  if (v.details !== undefined) {
    if (!isObject(v.details)) return No
    out.details = { ...v.details }
  }
  if (v.code !== undefined) out.code = v.code
  return out
}

/**
 * `value` as the Event Schema decodes it (excess properties ignored), when it is a well-formed event parsed from JSON;
 * `undefined` when any field is not as the common event has it (the Schema then decides).
 */
export const wellFormedEvent = (value: unknown): Event | undefined => {
  if (!isObject(value)) return undefined
  const v = value
  if (v.kind !== "Event" || v.apiVersion !== AuditApiVersion || !levels.has(v.level) || !stages.has(v.stage)) return undefined
  if (typeof v.auditID !== "string" || typeof v.requestURI !== "string" || typeof v.verb !== "string" || !optionalString(v.userAgent)) return undefined
  if (typeof v.requestReceivedTimestamp !== "string" || !microTime.test(v.requestReceivedTimestamp)) return undefined
  if (typeof v.stageTimestamp !== "string" || !microTime.test(v.stageTimestamp)) return undefined
  // a time of the right shape that names no such instant (a month 13, a 30 February): the Schema names it
  if (Number.isNaN(microTimeMs(v.requestReceivedTimestamp)) || Number.isNaN(microTimeMs(v.stageTimestamp))) return undefined
  const user = userInfo(v.user)
  if (user === No) return undefined
  const out: Obj = { kind: v.kind, apiVersion: v.apiVersion, level: v.level, auditID: v.auditID, stage: v.stage, requestURI: v.requestURI, verb: v.verb, user }
  if (v.impersonatedUser !== undefined) {
    const u = userInfo(v.impersonatedUser)
    if (u === No) return undefined
    out.impersonatedUser = u
  }
  if (v.sourceIPs !== undefined) {
    if (!isStringArray(v.sourceIPs)) return undefined
    out.sourceIPs = v.sourceIPs.slice()
  }
  if (v.userAgent !== undefined) out.userAgent = v.userAgent
  if (v.objectRef !== undefined) {
    const r = objectRef(v.objectRef)
    if (r === No) return undefined
    out.objectRef = r
  }
  if (v.responseStatus !== undefined) {
    const r = responseStatus(v.responseStatus)
    if (r === No) return undefined
    out.responseStatus = r
  }
  if (v.requestObject !== undefined) out.requestObject = v.requestObject
  if (v.responseObject !== undefined) out.responseObject = v.responseObject
  out.requestReceivedTimestamp = v.requestReceivedTimestamp
  out.stageTimestamp = v.stageTimestamp
  if (v.annotations !== undefined) {
    if (!isObject(v.annotations)) return undefined
    const a: Record<string, string> = {}
    for (const k of Object.keys(v.annotations)) {
      const x = v.annotations[k]
      if (typeof x !== "string") return undefined
      a[k] = x
    }
    out.annotations = a
  }
  return out as Event
}

/** One object of a line (the line itself, or an item of its `EventList`): an event or the reason it is not one. */
const eventOf = (value: unknown, at: LineLocation, where: string): Either.Either<LocatedEvent, BadInput> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return Either.left(bad(at, "not-json", `${where}not a JSON object`))
  const o = value as { apiVersion?: unknown; kind?: unknown }
  if (o.apiVersion !== AuditApiVersion)
    return Either.left(bad(at, "api-version", `${where}apiVersion ${JSON.stringify(o.apiVersion ?? null)} is not ${AuditApiVersion}`))
  if (o.kind !== "Event") return Either.left(bad(at, "kind", `${where}kind ${JSON.stringify(o.kind ?? null)} is not Event or EventList`))
  const fast = wellFormedEvent(value)
  if (fast !== undefined) return Either.right({ file: at.file, line: at.line, event: fast })
  const decoded = decodeEvent(value)
  return Either.isRight(decoded)
    ? Either.right({ file: at.file, line: at.line, event: decoded.right })
    : Either.left(bad(at, "invalid-event", `${where}${firstIssue(decoded.left)}`))
}

/** The events of one line, and what in it was not an event. An empty line is neither. */
export const decodeAuditLine = (
  text: string,
  at: LineLocation,
  /** Leave the recorded answer unparsed where the line allows it (`withoutResponseObject`). */
  skipAnswer = false
): { readonly events: ReadonlyArray<LocatedEvent>; readonly bad: ReadonlyArray<BadInput> } => {
  const trimmed = text.trim()
  if (trimmed === "") return { events: [], bad: [] }
  let value: unknown
  try {
    const cut = skipAnswer ? withoutResponseObject(trimmed) : trimmed
    try {
      value = JSON.parse(cut)
    } catch (e) {
      if (cut === trimmed) throw e
      value = JSON.parse(trimmed)
    }
  } catch (e) {
    return { events: [], bad: [bad(at, "not-json", `not JSON (${(e as Error).message}); a truncated line?`)] }
  }
  const o = value as { kind?: unknown; apiVersion?: unknown }
  if (typeof o === "object" && o !== null && o.kind === "EventList" && o.apiVersion === AuditApiVersion) {
    const list = decodeList(value)
    if (Either.isLeft(list)) return { events: [], bad: [bad(at, "invalid-event", `EventList: ${firstIssue(list.left)}`)] }
    const events: Array<LocatedEvent> = []
    const problems: Array<BadInput> = []
    list.right.items.forEach((item, i) => {
      const r = eventOf(item, at, `items[${i}]: `)
      if (Either.isRight(r)) events.push(r.right)
      else problems.push(r.left)
    })
    return { events, bad: problems }
  }
  const r = eventOf(value, at, "")
  return Either.isRight(r) ? { events: [r.right], bad: [] } : { events: [], bad: [r.left] }
}

// ---------------------------------------------------------------------------------------------
// A recorded answer left unparsed
// ---------------------------------------------------------------------------------------------

const answerKey = ',"responseObject":'
const afterAnswer = ',"requestReceivedTimestamp":'

/**
 * The line without its `responseObject`, when the replay's second pass does not need it (every verb but `create`,
 * ReplayPlan.ts `sendingView`): a recorded LIST's answer is most of its line, and parsing it only to drop it was most
 * of the decoding's time and garbage. Upstream's log backend writes an event's fields in its Go struct's order
 * (apis/audit/v1/types.go: …, requestObject, responseObject, requestReceivedTimestamp, …); the answer is cut from its
 * key (in the outer object: a request body may have a field of that name) to the next `requestReceivedTimestamp` key.
 * Where that key also occurs inside the answer (not in a string, where its quotes are escaped), the cut leaves more
 * `{` than `}` and the line is no JSON: the caller parses the whole line then. The line unchanged when it has no
 * answer, or its fields come in another order.
 */
export const withoutResponseObject = (text: string): string => {
  const start = text.indexOf(answerKey)
  if (start < 0) return text
  const end = text.indexOf(afterAnswer, start + answerKey.length)
  if (end < 0) return text
  // `"verb":"create"` comes before the answer: a create's answer names what `generateName` made
  const verb = text.lastIndexOf('"verb":"create"', start)
  if (verb >= 0 || !atTopLevel(text, start)) return text
  return text.slice(0, start) + text.slice(end)
}

/** Whether `at` is in the line's outer object, not in a nested one (a request body with a field of the same name). */
const atTopLevel = (text: string, at: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < at; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // a backslash: the next character is escaped
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 123 || c === 91) depth++
    else if (c === 125 || c === 93) depth--
  }
  return depth === 1 && !inString
}

/**
 * One line of an audit log: an `Event` (the log backend, one per line) or an `EventList` (the webhook backend's
 * batches, one per line when a receiver stores them). Whatever else a line holds is a `BadInput` naming its class,
 * file and line; the reader counts it and goes on (docs/replay.md "Bad input").
 */
import { Either, ParseResult, Schema } from "effect"
import { AuditApiVersion, Event } from "../api/audit/Event.js"

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

/** One object of a line (the line itself, or an item of its `EventList`): an event or the reason it is not one. */
const eventOf = (value: unknown, at: LineLocation, where: string): Either.Either<LocatedEvent, BadInput> => {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return Either.left(bad(at, "not-json", `${where}not a JSON object`))
  const o = value as { apiVersion?: unknown; kind?: unknown }
  if (o.apiVersion !== AuditApiVersion)
    return Either.left(bad(at, "api-version", `${where}apiVersion ${JSON.stringify(o.apiVersion ?? null)} is not ${AuditApiVersion}`))
  if (o.kind !== "Event") return Either.left(bad(at, "kind", `${where}kind ${JSON.stringify(o.kind ?? null)} is not Event or EventList`))
  const decoded = decodeEvent(value)
  return Either.isRight(decoded)
    ? Either.right({ file: at.file, line: at.line, event: decoded.right })
    : Either.left(bad(at, "invalid-event", `${where}${firstIssue(decoded.left)}`))
}

/** The events of one line, and what in it was not an event. An empty line is neither. */
export const decodeAuditLine = (text: string, at: LineLocation): { readonly events: ReadonlyArray<LocatedEvent>; readonly bad: ReadonlyArray<BadInput> } => {
  const trimmed = text.trim()
  if (trimmed === "") return { events: [], bad: [] }
  let value: unknown
  try {
    value = JSON.parse(trimmed)
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

/**
 * Event rows (`printEvent`), the same for both Event APIs since both print the internal (core) Event: LAST SEEN
 * from the last timestamp, else the first, else eventTime, or the series' last observation; OBJECT is
 * `kind/name` in lower-case kind; SOURCE falls back to the reporting controller and instance.
 */
import type { KObject } from "../../Object.js"
import { column, nameColumn } from "../Columns.js"
import { timestampSince } from "../HumanDuration.js"
import { num, rec, str, type Printer } from "../Printer.js"

/** The stored (events.platform/v1) event's fields under their internal names. */
const internal = (e: KObject) => ({
  involvedObject: rec(e.regarding ?? e.involvedObject),
  source: rec(e.deprecatedSource ?? e.source),
  firstTimestamp: e.deprecatedFirstTimestamp ?? e.firstTimestamp,
  lastTimestamp: e.deprecatedLastTimestamp ?? e.lastTimestamp,
  count: num(e.deprecatedCount ?? e.count),
  message: str(e.note ?? e.message),
  reportingController: str(e.reportingController ?? e.reportingComponent)
})

const isSet = (t: unknown) => typeof t === "string" && t !== "" && !t.startsWith("0001-01-01")

export const eventPrinter: Printer = {
  columns: [
    column("Last Seen", "string", "The time at which the most recent occurrence of this event was recorded."),
    column("Type", "string", "Type of this event (Normal, Warning), new types could be added in the future"),
    column("Reason", "string", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status."),
    column("Object", "string", "The object that this event is about."),
    column("Subobject", "string", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.", { priority: 1 }),
    column("Source", "string", "The component reporting this event. Should be a short machine understandable string.", { priority: 1 }),
    column("Message", "string", "A human-readable description of the status of this operation."),
    column("First Seen", "string", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", { priority: 1 }),
    column("Count", "string", "The number of times this event has occurred.", { priority: 1 }),
    { ...nameColumn, priority: 1 }
  ],
  row: (event: KObject, now: number) => {
    const e = internal(event)
    const firstSeen = isSet(e.firstTimestamp) ? timestampSince(e.firstTimestamp, now) : timestampSince(event.eventTime, now)
    let lastSeen = isSet(e.lastTimestamp) ? timestampSince(e.lastTimestamp, now) : firstSeen
    let count = e.count
    const series = event.series === undefined || event.series === null ? undefined : rec(event.series)
    if (series) {
      lastSeen = timestampSince(series.lastObservedTime, now)
      count = num(series.count)
    } else if (count === 0) count = 1
    const name = str(e.involvedObject.name)
    const kind = str(e.involvedObject.kind).toLowerCase()
    const component = str(e.source.component) || e.reportingController
    const instance = str(e.source.host) || str(event.reportingInstance)
    return {
      cells: [
        lastSeen,
        str(event.type),
        str(event.reason),
        name.length > 0 ? `${kind}/${name}` : kind,
        str(e.involvedObject.fieldPath),
        instance.length === 0 ? component : `${component}, ${instance}`,
        e.message.trim(),
        firstSeen,
        count,
        event.metadata.name ?? ""
      ]
    }
  }
}

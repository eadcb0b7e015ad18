/**
 * What the fields of a kind mean, where the spec says it (spec 002 for `events.platform/v1` Event): the texts
 * `kubectl explain` prints. Documentation only: the decoder never reads them. Keyed as the patch tags are
 * (`UpstreamTags.ts`): `<package>.<Type>`, then the JSON field name; `""` is the type's own text.
 */
const descriptions: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  "events/v1.Event": {
    "":
      "Event is a report of something that happened in the cluster, usually a change of some state. Events are kept for a limited time, and the trigger and message of an event may change over time. Events are informational, best-effort supplementary data.",
    eventTime: "Time the event was first observed.",
    action: "Action taken or failed on the related object; machine-readable; for new events non-empty and at most 128 characters.",
    deprecatedCount: "Kept for compatibility with the older core Event type.",
    deprecatedFirstTimestamp: "Kept for compatibility with the older core Event type.",
    deprecatedLastTimestamp: "Kept for compatibility with the older core Event type.",
    deprecatedSource: "Kept for compatibility with the older core Event type.",
    note: "Human-readable description of the status of the action; at most 1 kB, but readers must accept up to 64 kB.",
    reason: "Human-readable reason for the action; for new events non-empty and at most 128 characters.",
    regarding: "Object the event is about, usually the object implemented by the reporting controller.",
    related: "Optional secondary object for complex actions (for example when the regarding object caused creation or deletion of this one).",
    reportingController: "Name of the controller that emitted the event; for new events non-empty.",
    reportingInstance: "ID of the controller instance; for new events non-empty and at most 128 characters.",
    series: "Data for a series of repeated events; unset for a single event.",
    type: "Normal or Warning; further values may be added; machine-readable; for new events non-empty."
  },
  "events/v1.EventSeries": {
    "": "EventSeries contains information on a series of events. The update rate of a series is decided by the reporter.",
    count: "Number of occurrences in the series up to the last heartbeat.",
    lastObservedTime: "Time the last event was seen before the last heartbeat."
  },
  "events/v1.EventList": {
    "": "EventList is a list of Event objects.",
    items: "The events."
  }
}

/** The text of field `field` of Go type `type` (`events/v1.Event`), or of the type itself for `""`. */
export const descriptionOf = (type: string, field: string): string | undefined => descriptions[type]?.[field]

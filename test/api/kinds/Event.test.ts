import { describe, expect, it } from "@effect/vitest"
import { aggregate, formatFieldError, toCause } from "../../../src/api/FieldError.js"
import type { KObject } from "../../../src/api/Object.js"
import { eventRules } from "../../../src/api/kinds/Event.js"

const QUALIFIED =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

/** A valid new-style event in `default`. */
const event = (fields: Record<string, unknown> = {}, metadata: Record<string, unknown> = {}): KObject => ({
  apiVersion: "events.platform/v1",
  kind: "Event",
  metadata: { name: "pod-x.1", namespace: "default", ...metadata },
  eventTime: "2023-05-01T12:00:00.000001Z",
  reportingController: "platform.io/scheduler",
  reportingInstance: "scheduler-1",
  action: "Binding",
  reason: "Scheduled",
  type: "Normal",
  regarding: { kind: "Pod", namespace: "default", name: "x", apiVersion: "v1" },
  note: "Successfully assigned default/x to node-1",
  ...fields
})
const create = (o: KObject) => eventRules.validateCreate!(o).map(formatFieldError)
const update = (o: KObject, old: KObject) => eventRules.validateUpdate!(o, old).map(formatFieldError)

describe("Event create via events.platform/v1 (upstream events.go)", () => {
  it("accepts a complete event", () => {
    expect(create(event())).toEqual([])
    expect(create(event({ regarding: undefined, related: undefined, type: "Warning" }))).toEqual([])
  })

  it("with eventTime: an empty regarding.namespace only from default or platform-system", () => {
    expect(create(event({ regarding: { kind: "Node", name: "n" } }, { namespace: "team" }))).toEqual([
      'involvedObject.namespace: Invalid value: "": does not match event.namespace'
    ])
    expect(create(event({ regarding: { kind: "Node", name: "n" } }, { namespace: "platform-system" }))).toEqual([])
    expect(create(event({ regarding: { kind: "Node", name: "n" } }))).toEqual([])
    // A different non-empty namespace is not checked.
    expect(create(event({ regarding: { kind: "Pod", name: "n", namespace: "other" } }))).toEqual([])
  })

  it("an empty reportingController is required and fails the qualified-name rule twice", () => {
    expect(create(event({ reportingController: "" }))).toEqual([
      "reportingController: Required value",
      'reportingController: Invalid value: "": name part must be non-empty',
      `reportingController: Invalid value: "": ${QUALIFIED}`
    ])
    expect(create(event({ reportingController: "-bad" }))).toEqual([`reportingController: Invalid value: "-bad": ${QUALIFIED}`])
  })

  it("reportingInstance, action and reason are required", () => {
    expect(create(event({ reportingInstance: "", action: "", reason: undefined }))).toEqual([
      "reportingInstance: Required value",
      "action: Required value",
      "reason: Required value"
    ])
  })

  it("counts bytes against the 128 and 1024 limits", () => {
    const e = "é" // two bytes
    expect(create(event({ reportingInstance: "x".repeat(128), action: "x".repeat(128), reason: "x".repeat(128), note: "x".repeat(1024) }))).toEqual([])
    expect(create(event({ reportingInstance: e.repeat(65), action: e.repeat(65), reason: e.repeat(65), note: e.repeat(513) }))).toEqual([
      'reportingInstance: Invalid value: "": can have at most 128 characters',
      'action: Invalid value: "": can have at most 128 characters',
      'reason: Invalid value: "": can have at most 128 characters',
      'message: Invalid value: "": can have at most 1024 characters'
    ])
  })

  it("without eventTime: the old namespace rule, then the v1 rules", () => {
    const old = event({ eventTime: undefined, regarding: { kind: "Pod", name: "x", namespace: "other" } })
    expect(create(old)).toEqual([
      'involvedObject.namespace: Invalid value: "other": does not match event.namespace',
      "eventTime: Required value"
    ])
    // Legacy fields are not required without an eventTime.
    expect(create(event({ eventTime: null, reportingController: "", regarding: {} }))).toEqual(["eventTime: Required value"])
    expect(create(event({ eventTime: null, regarding: {} }, { namespace: "team" }))).toEqual([
      'involvedObject.namespace: Invalid value: "": does not match event.namespace',
      "eventTime: Required value"
    ])
  })

  it("the namespace must be a DNS subdomain; the name too", () => {
    expect(create(event({ regarding: { kind: "Pod", name: "x", namespace: "Bad_NS" } }, { namespace: "Bad_NS" }))).toEqual([
      expect.stringMatching(/^namespace: Invalid value: "Bad_NS": a lowercase RFC 1123 subdomain/),
      expect.stringMatching(/^metadata\.namespace: Invalid value: "Bad_NS": a lowercase RFC 1123 label/)
    ])
    expect(create(event({}, { name: "x".repeat(254) }))).toEqual([
      `metadata.name: Invalid value: "${"x".repeat(254)}": must be no more than 253 characters`
    ])
  })

  it("series: count at least 2, lastObservedTime required", () => {
    expect(create(event({ series: { count: 1 } }))).toEqual([
      'series.count: Invalid value: "": should be at least 2',
      "series.lastObservedTime: Required value"
    ])
    expect(create(event({ series: { count: 2, lastObservedTime: "2023-05-01T12:00:05.000000Z" } }))).toEqual([])
  })

  it("type must be exactly Normal or Warning", () => {
    expect(create(event({ type: "normal" }))).toEqual(['type: Invalid value: "": has invalid value: normal'])
    expect(create(event({ type: undefined }))).toEqual(['type: Invalid value: "": has invalid value: '])
  })

  it("deprecated fields must be unset, under their internal names", () => {
    expect(
      create(
        event({
          deprecatedFirstTimestamp: "2023-05-01T12:00:00Z",
          deprecatedLastTimestamp: "2023-05-01T12:00:00Z",
          deprecatedCount: 3,
          deprecatedSource: { host: "node-1" }
        })
      )
    ).toEqual([
      'firstTimestamp: Invalid value: "": needs to be unset',
      'lastTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset'
    ])
    expect(create(event({ deprecatedSource: {}, deprecatedCount: 0 }))).toEqual([])
  })

  it("reports everything in upstream's order and aggregates into one message", () => {
    const errs = eventRules.validateCreate!(
      event(
        { reportingInstance: "", type: "Info", series: { count: 0, lastObservedTime: "2023-05-01T12:00:00.000000Z" }, deprecatedCount: 1 },
        { name: "Bad" }
      )
    )
    expect(aggregate(errs)).toBe(
      "[reportingInstance: Required value, " +
        'metadata.name: Invalid value: "Bad": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\'), ' +
        'series.count: Invalid value: "": should be at least 2, ' +
        'type: Invalid value: "": has invalid value: Info, ' +
        'count: Invalid value: "": needs to be unset]'
    )
    expect(toCause(errs[0]!)).toEqual({ reason: "FieldValueRequired", message: "Required value", field: "reportingInstance" })
  })

  it("requires a name", () => {
    expect(create(event({}, { name: undefined }))).toEqual(["metadata.name: Required value: name or generateName is required"])
  })
})

describe("Event update via events.platform/v1 (upstream events.go)", () => {
  const stored = event({ series: { count: 2, lastObservedTime: "2023-05-01T12:00:05.000000Z" } }, { uid: "u1", resourceVersion: "7" })

  it("series and labels may change", () => {
    expect(
      update(
        event({ series: { count: 3, lastObservedTime: "2023-05-01T12:00:10.000000Z" } }, { uid: "u1", resourceVersion: "7", labels: { a: "b" } }),
        stored
      )
    ).toEqual([])
  })

  it("a changed series is re-validated, an unchanged one is not", () => {
    expect(update(event({ series: { count: 1 } }, { uid: "u1" }), stored)).toEqual([
      'series.count: Invalid value: "": should be at least 2',
      "series.lastObservedTime: Required value"
    ])
    const bad = event({ series: { count: 1 } }, { uid: "u1" })
    expect(update(bad, bad)).toEqual([])
  })

  it("every other field is immutable, reason checked twice", () => {
    const changed = event(
      {
        regarding: { kind: "Pod", namespace: "default", name: "y", apiVersion: "v1" },
        reason: "Other",
        note: "changed",
        deprecatedSource: { component: "c" },
        deprecatedFirstTimestamp: "2023-05-01T12:00:00Z",
        deprecatedCount: 4,
        type: "Warning",
        eventTime: "2023-05-01T12:00:01.000000Z",
        action: "Other",
        related: { kind: "Node", name: "n" },
        reportingController: "other",
        reportingInstance: "other-1",
        series: { count: 2, lastObservedTime: "2023-05-01T12:00:05.000000Z" }
      },
      { uid: "u1" }
    )
    const errs = eventRules.validateUpdate!(changed, stored)
    expect(errs.map(formatFieldError)).toEqual([
      'involvedObject: Invalid value: core.ObjectReference{Kind:"Pod", Namespace:"default", Name:"y", UID:"", APIVersion:"v1", ResourceVersion:"", FieldPath:""}: field is immutable',
      'reason: Invalid value: "Other": field is immutable',
      'message: Invalid value: "changed": field is immutable',
      'source: Invalid value: core.EventSource{Component:"c", Host:""}: field is immutable',
      "firstTimestamp: Invalid value: 2023-05-01 12:00:00 +0000 UTC: field is immutable",
      "count: Invalid value: 4: field is immutable",
      'reason: Invalid value: "Other": field is immutable',
      'type: Invalid value: "Warning": field is immutable',
      "eventTime: Invalid value: 2023-05-01 12:00:01 +0000 UTC: field is immutable",
      'action: Invalid value: "Other": field is immutable',
      'related: Invalid value: core.ObjectReference{Kind:"Node", Namespace:"", Name:"n", UID:"", APIVersion:"", ResourceVersion:"", FieldPath:""}: field is immutable',
      'reportingController: Invalid value: "other": field is immutable',
      'reportingInstance: Invalid value: "other-1": field is immutable'
    ])
    // Two causes for reason, one entry in the message.
    expect(errs.filter((e) => e.field === "reason")).toHaveLength(2)
    expect(aggregate(errs).match(/reason: /g)).toHaveLength(1)
  })

  it("removing a value prints its zero form", () => {
    const before = event({ related: { kind: "Node", name: "n" }, deprecatedLastTimestamp: "2023-05-01T12:00:00Z" }, { uid: "u1" })
    expect(update(event({}, { uid: "u1" }), before)).toEqual([
      "lastTimestamp: Invalid value: 0001-01-01 00:00:00 +0000 UTC: field is immutable",
      'related: Invalid value: "null": field is immutable'
    ])
  })

  it("eventTime counts as changed only beyond microseconds", () => {
    const at = (t: string) => ({ ...event({}, { uid: "u1" }), eventTime: t })
    expect(update(at("2023-05-01T14:00:00.000001+02:00"), at("2023-05-01T12:00:00.000001Z"))).toEqual([])
    // A stored time with nanoseconds (written through protobuf) equals its µs truncation.
    expect(update(at("2023-05-01T12:00:00.000001Z"), at("2023-05-01T12:00:00.000001999Z"))).toEqual([])
    expect(update(at("2023-05-01T12:00:00.000002Z"), at("2023-05-01T12:00:00.000001Z"))).toEqual([
      "eventTime: Invalid value: 2023-05-01 12:00:00.000002 +0000 UTC: field is immutable"
    ])
  })

  it("runs the legacy rules on the new object and the metadata update rules", () => {
    expect(update(event({ action: "" }, { uid: "u2" }), stored)).toEqual([
      "action: Required value",
      'metadata.uid: Invalid value: "u2": field is immutable',
      'action: Invalid value: "": field is immutable'
    ])
  })
})

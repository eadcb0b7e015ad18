/**
 * The core `v1` Event as a view of the stored `events.platform/v1` Event (upstream
 * stores one object, visible through both APIs). Field names follow upstream's conversion
 * (`pkg/apis/events/v1/conversion.go`); the JSON shape follows core v1's tags: `involvedObject` and `source`
 * always written, unset times as `null`, `reportingComponent`/`reportingInstance` always written.
 */
import { isRecord, type KObject } from "../Object.js"
import { extendable } from "../internal/V8Shapes.js"

const definedOr = <T>(v: unknown, fallback: T): unknown => (v === undefined ? fallback : v)

/** events.platform/v1 → core v1. */
export const toCoreEvent = (obj: KObject): KObject => {
  const out: Record<string, unknown> = { ...extendable, kind: "Event", apiVersion: "v1", metadata: obj.metadata }
  out.involvedObject = isRecord(obj.regarding) ? obj.regarding : {}
  if (obj.reason) out.reason = obj.reason
  if (obj.note) out.message = obj.note
  out.source = isRecord(obj.deprecatedSource) ? obj.deprecatedSource : {}
  out.firstTimestamp = definedOr(obj.deprecatedFirstTimestamp, null)
  out.lastTimestamp = definedOr(obj.deprecatedLastTimestamp, null)
  if (obj.deprecatedCount) out.count = obj.deprecatedCount
  if (obj.type) out.type = obj.type
  out.eventTime = definedOr(obj.eventTime, null)
  if (obj.series) out.series = obj.series
  if (obj.action) out.action = obj.action
  if (obj.related) out.related = obj.related
  out.reportingComponent = typeof obj.reportingController === "string" ? obj.reportingController : ""
  out.reportingInstance = typeof obj.reportingInstance === "string" ? obj.reportingInstance : ""
  return out as KObject
}

/** Core v1 field selector labels in the events.platform/v1 spelling (both convert to the same internal label). */
export const coreEventFieldLabel = (label: string): string =>
  label.startsWith("involvedObject.") ? `regarding.${label.slice("involvedObject.".length)}` : label === "reportingComponent" ? "reportingController" : label

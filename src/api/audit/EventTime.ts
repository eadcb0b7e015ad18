/**
 * Reading an audit event's times and kind of request, for a replay (src/replay/): `MicroTime` text as milliseconds
 * with the microseconds kept, and which requests upstream serves as long-running. The event type is ./Event.ts.
 */
import type { Event } from "./Event.js"
import { formatMicroTime } from "./Event.js"

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

/** `MicroTime` of an instant given in milliseconds (fractions are microseconds), as ./Event.ts formats it. */
export const microTimeOfMs = (ms: number): string => formatMicroTime(BigInt(Math.round(ms * 1000)) * 1000n)

/** Verbs upstream serves as long-running requests (`server/config.go` LongRunningFunc: watch, proxy; `exec`, `attach`, `portforward`, `log` subresources). */
export const isLongRunning = (e: Pick<Event, "verb" | "objectRef">): boolean =>
  e.verb === "watch" || e.verb === "proxy" || ["exec", "attach", "portforward", "proxy", "log"].includes(e.objectRef?.subresource ?? "")

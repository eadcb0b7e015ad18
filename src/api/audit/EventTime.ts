/**
 * Reading an audit event's times and kind of request, for a replay (src/replay/): `MicroTime` text as milliseconds
 * with the microseconds kept, and which requests upstream serves as long-running. The event type is ./Event.ts.
 */
import type { Event } from "./Event.js"
import { formatMicroTime } from "./Event.js"
import { parseGoTime } from "../go/Time.js"

/**
 * Milliseconds since the epoch, with the microseconds as a fraction (`Date.parse` keeps milliseconds only); NaN
 * when the text is not RFC 3339 or names no such time (a month 13, a 30 February: ./Event.ts `MicroTime`).
 */
export const microTimeMs = (text: string): number => {
  const fast = utcMicroTimeMs(text)
  if (fast !== undefined) return fast
  const m = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(text)
  if (!m) return Number.NaN
  const whole = parseGoTime(`${m[1]}${m[3]}`, "RFC3339")
  if ("error" in whole) return Number.NaN
  const fraction = m[2] === undefined ? 0 : Number(`0.${m[2]}`) * 1000
  return whole.seconds * 1000 + fraction
}

/** The last hour `utcMicroTimeMs` looked up: a log's times share it for an hour of lines. */
let hourText = ""
let hourMs = Number.NaN

const digitAt = (s: string, i: number): number => {
  const d = s.charCodeAt(i) - 48
  return d >= 0 && d <= 9 ? d : -1
}

/**
 * `microTimeMs` of the form the log backend writes (`2006-01-02T15:04:05.000000Z`, UTC, 1–9 fraction digits),
 * without a regular expression or a date parse per line; `undefined` for any other form, which the general path
 * reads. The value is the general path's to the bit: `n / 10^k` and `Number("0.…")` are both the double nearest
 * the fraction.
 */
const utcMicroTimeMs = (text: string): number | undefined => {
  const n = text.length
  if (n < 22 || n > 30 || text.charCodeAt(n - 1) !== 90 /* Z */ || text.charCodeAt(19) !== 46 /* . */) return undefined
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined
  const m1 = digitAt(text, 14)
  const m2 = digitAt(text, 15)
  const s1 = digitAt(text, 17)
  const s2 = digitAt(text, 18)
  if (m1 < 0 || m2 < 0 || s1 < 0 || s2 < 0 || m1 > 5 || s1 > 5) return undefined
  // 24:00 is midnight to Date.parse, and only with :00:00
  if (digitAt(text, 11) * 10 + digitAt(text, 12) > 23) return undefined
  let fraction = 0
  for (let i = 20; i < n - 1; i++) {
    const d = digitAt(text, i)
    if (d < 0) return undefined
    fraction = fraction * 10 + d
  }
  const hour = text.slice(0, 13)
  if (hour !== hourText) {
    // the regular expression's date part, then Go's range checks (a month 13, a 30 February: the general path's NaN)
    const parsed = /^\d{4}-\d{2}-\d{2}T\d{2}$/.test(hour) ? parseGoTime(`${hour}:00:00Z`, "RFC3339") : undefined
    if (parsed === undefined || "error" in parsed) return undefined
    const ms = parsed.seconds * 1000
    hourText = hour
    hourMs = ms
  }
  return hourMs + (m1 * 10 + m2) * 60_000 + (s1 * 10 + s2) * 1000 + (fraction / 10 ** (n - 21)) * 1000
}

/** `MicroTime` of an instant given in milliseconds (fractions are microseconds), as ./Event.ts formats it. */
export const microTimeOfMs = (ms: number): string => formatMicroTime(BigInt(Math.round(ms * 1000)) * 1000n)

/** Verbs upstream serves as long-running requests (`server/config.go` LongRunningFunc: watch, proxy; `exec`, `attach`, `portforward`, `log` subresources). */
export const isLongRunning = (e: Pick<Event, "verb" | "objectRef">): boolean =>
  e.verb === "watch" || e.verb === "proxy" || ["exec", "attach", "portforward", "proxy", "log"].includes(e.objectRef?.subresource ?? "")

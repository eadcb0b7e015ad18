/**
 * Ages as kubectl prints them: apimachinery `pkg/util/duration.HumanDuration` and the printers'
 * `translateTimestampSince` (`<unknown>` for a zero time, `<invalid>` for one more than a second ahead).
 */

/** `duration.HumanDuration` of `ms` milliseconds. */
export const humanDuration = (ms: number): string => {
  const seconds = Math.trunc(ms / 1000)
  if (seconds < -1) return "<invalid>"
  if (seconds < 0) return "0s"
  if (seconds < 60 * 2) return `${seconds}s`
  const minutes = Math.trunc(ms / 60_000)
  if (minutes < 10) {
    const s = seconds % 60
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`
  }
  if (minutes < 60 * 3) return `${minutes}m`
  const hours = Math.trunc(ms / 3_600_000)
  if (hours < 8) {
    const m = minutes % 60
    return m === 0 ? `${hours}h` : `${hours}h${m}m`
  }
  if (hours < 48) return `${hours}h`
  if (hours < 24 * 8) {
    const h = hours % 24
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365
    const years = Math.trunc(hours / 24 / 365)
    return days === 0 ? `${years}y` : `${years}y${days}d`
  }
  return `${Math.trunc(hours / 24 / 365)}y`
}

/** `translateTimestampSince`: the age of an RFC 3339 time at `now` (ms); absent or unparsable is `<unknown>`. */
export const timestampSince = (timestamp: unknown, now: number): string => {
  if (typeof timestamp !== "string" || timestamp === "") return "<unknown>"
  const t = Date.parse(timestamp)
  return Number.isNaN(t) || t <= Date.parse("0001-01-01T00:00:00Z") ? "<unknown>" : humanDuration(now - t)
}

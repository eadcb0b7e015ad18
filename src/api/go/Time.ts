/**
 * Go's `time.Parse` for the two layouts metav1 uses (`time.RFC3339` for `Time`, `RFC3339Micro` for `MicroTime`), with
 * its error texts, and the instants it yields.
 */
import { goTimeQuote } from "./Quote.js"

export type GoTimeLayout = "RFC3339" | "RFC3339Micro"

/** An instant: whole seconds since the Unix epoch plus nanoseconds. */
export interface GoInstant {
  readonly seconds: number
  readonly nanos: number
}

const layoutText: Record<GoTimeLayout, string> = {
  RFC3339: "2006-01-02T15:04:05Z07:00",
  RFC3339Micro: "2006-01-02T15:04:05.000000Z07:00"
}

type Std = "2006" | "01" | "02" | "15" | "04" | "05" | ".000000" | "Z07:00" | ""
const layoutChunks: Record<GoTimeLayout, ReadonlyArray<readonly [string, Std]>> = {
  RFC3339: [["", "2006"], ["-", "01"], ["-", "02"], ["T", "15"], [":", "04"], [":", "05"], ["", "Z07:00"], ["", ""]],
  RFC3339Micro: [
    ["", "2006"], ["-", "01"], ["-", "02"], ["T", "15"], [":", "04"], [":", "05"], ["", ".000000"], ["", "Z07:00"], ["", ""]
  ]
}

const isDigitAt = (s: string, i: number): boolean => i < s.length && s.charCodeAt(i) >= 48 && s.charCodeAt(i) <= 57

/** `getnum`: one or two digits; `fixed` demands two. */
const getnum = (s: string, fixed: boolean): [number, string] | undefined => {
  if (!isDigitAt(s, 0)) return undefined
  if (!isDigitAt(s, 1)) return fixed ? undefined : [s.charCodeAt(0) - 48, s.slice(1)]
  return [(s.charCodeAt(0) - 48) * 10 + (s.charCodeAt(1) - 48), s.slice(2)]
}

/** `atoi`: optional sign, then digits only. */
const atoi = (s: string): number | undefined => {
  let neg = false
  if (s.length > 0 && (s[0] === "-" || s[0] === "+")) {
    neg = s[0] === "-"
    s = s.slice(1)
  }
  if (!/^[0-9]*$/.test(s)) return undefined
  const x = s === "" ? 0 : Number(s)
  return neg ? -x : x
}

const isLeap = (y: number) => y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0)
const daysIn = (month: number, year: number) =>
  month === 2 ? (isLeap(year) ? 29 : 28) : [4, 6, 9, 11].includes(month) ? 30 : 31

/** `parseNanoseconds(value, nbytes)`: value starts with `.` or `,`. */
const parseNanos = (value: string, nbytes: number): { ns: number } | { range: string } | undefined => {
  if (value[0] !== "." && value[0] !== ",") return undefined
  if (nbytes > 10) nbytes = 10
  const ns = atoi(value.slice(1, nbytes))
  if (ns === undefined) return undefined
  if (ns < 0) return { range: "fractional second" }
  return { ns: ns * 10 ** (10 - nbytes) }
}

/**
 * Go's `time.Parse(layout, s)` for `time.RFC3339` (metav1.Time) and `RFC3339Micro` (metav1.MicroTime),
 * with its error texts, e.g. `parsing time "2023-05-01T12:00:00Z" as "2006-01-02T15:04:05.000000Z07:00":
 * cannot parse "Z" as ".000000"` or `parsing time "2023-02-30T00:00:00Z": day out of range`.
 */
export const parseGoTime = (value: string, layout: GoTimeLayout): GoInstant | { readonly error: string } => {
  const alayout = layoutText[layout]
  const cannot = (elem: string, std: string) => ({
    error: `parsing time ${goTimeQuote(value)} as ${goTimeQuote(alayout)}: cannot parse ${goTimeQuote(elem)} as ${goTimeQuote(std)}`
  })
  const message = (msg: string) => ({ error: `parsing time ${goTimeQuote(value)}${msg}` })
  let v = value
  let year = 0
  let month = 0
  let day = 0
  let hour = 0
  let min = 0
  let sec = 0
  let nsec = 0
  let offset = 0
  for (const [prefix, std] of layoutChunks[layout]) {
    for (const ch of prefix) {
      if (v.length === 0 || v[0] !== ch) return cannot(v, prefix)
      v = v.slice(1)
    }
    if (std === "") {
      if (v.length !== 0) return message(`: extra text: ${goTimeQuote(v)}`)
      break
    }
    const hold = v
    let bad = false
    let range = ""
    switch (std) {
      case "2006": {
        const y = v.length >= 4 && isDigitAt(v, 0) ? atoi(v.slice(0, 4)) : undefined
        if (y === undefined) bad = true
        else [year, v] = [y, v.slice(4)]
        break
      }
      case "01":
      case "02":
      case "15":
      case "04":
      case "05": {
        const got = getnum(v, std !== "15")
        if (!got) {
          bad = true
          break
        }
        const [n, rest] = got
        v = rest
        if (std === "01") {
          month = n
          if (n <= 0 || n > 12) range = "month"
        } else if (std === "02") day = n
        else if (std === "15") {
          hour = n
          if (n >= 24) range = "hour"
        } else if (std === "04") {
          min = n
          if (n >= 60) range = "minute"
        } else {
          sec = n
          if (n >= 60) {
            range = "second"
            break
          }
          // A fraction the layout does not mention is consumed here, any number of digits.
          if (layout === "RFC3339" && v.length >= 2 && (v[0] === "." || v[0] === ",") && isDigitAt(v, 1)) {
            let k = 2
            while (k < v.length && isDigitAt(v, k)) k++
            const r = parseNanos(v, k)
            if (r === undefined) bad = true
            else if ("range" in r) range = r.range
            else nsec = r.ns
            v = v.slice(k)
          }
        }
        break
      }
      case ".000000": {
        if (v.length < 7) {
          bad = true
          break
        }
        const r = parseNanos(v, 7)
        if (r === undefined) bad = true
        else if ("range" in r) range = r.range
        else nsec = r.ns
        v = v.slice(7)
        break
      }
      case "Z07:00": {
        if (v.length >= 1 && v[0] === "Z") {
          v = v.slice(1)
          break
        }
        if (v.length < 6 || v[3] !== ":") {
          bad = true
          break
        }
        const [sign, hh, mm] = [v[0], v.slice(1, 3), v.slice(4, 6)]
        v = v.slice(6)
        const h = getnum(hh, true)
        const m = h ? getnum(mm, true) : undefined
        if (!h || !m) bad = true
        const hr = h ? h[0] : 0
        const mi = m ? m[0] : 0
        if (hr > 24) range = "time zone offset hour"
        if (mi > 60) range = "time zone offset minute"
        offset = (hr * 60 + mi) * 60
        if (sign === "-") offset = -offset
        else if (sign !== "+") bad = true
        break
      }
    }
    if (range) return message(`: ${range} out of range`)
    if (bad) return cannot(hold, std)
  }
  if (day < 1 || day > daysIn(month, year)) return message(": day out of range")
  const d = new Date(0)
  d.setUTCFullYear(year, month - 1, day)
  d.setUTCHours(hour, min, sec, 0)
  return { seconds: d.getTime() / 1000 - offset, nanos: nsec }
}

/** Go's zero `time.Time` (`0001-01-01T00:00:00Z`), which the validators treat as "unset". */
export const isZeroInstant = (t: GoInstant): boolean => t.seconds === -62135596800 && t.nanos === 0

/** The instant in UTC as `2023-05-01T12:00:00.123456789Z` (the form `GoTime` prints Go-style). */
export const instantToIso = (t: GoInstant): string => {
  const d = new Date(t.seconds * 1000)
  const pad = (n: number, w = 2) => String(n).padStart(w, "0")
  return (
    `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(t.nanos, 9)}Z`
  )
}

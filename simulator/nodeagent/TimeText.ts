/**
 * The agents' time stamps as text (`MicroTime` for lease renewals, RFC 3339 seconds for conditions), with the date
 * part cached per second: most calls of a shard fall in the same second as the last. Same text as
 * `microTime` / `rfc3339` of `simulator/apiserver/SystemMeta.ts`.
 *
 * A renewal's `renewTime` (one per renewal, ~500 a second at 5,000 nodes, 6,500 at 65,000) is made flat — each stored
 * lease keeps it — straight from character codes (`String.fromCharCode` of its 27: one string, where a joined array was
 * ~2.6 % of the steady state, docs/benchmarks.md "Where a lease renewal's CPU goes"), and the text of a whole
 * millisecond is made once per second and shared by the renewals that fall on it.
 */
import { knownMicroTime } from "../apiserver/CompactMicroTime.js"
import { microTime, rfc3339 } from "../apiserver/SystemMeta.js"

const fractionOf = (micros: number): string => `.${String(micros).padStart(6, "0")}Z`

const fromCodes = String.fromCharCode
/** Character codes. */
const zero = 48
const dot = 46
const zed = 90

export class TimeText {
  private second = NaN
  private prefix = ""
  private whole = ""
  /** The codes of `prefix` (`YYYY-MM-DDTHH:MM:SS`) when it has those 19 characters (years 0 to 9999); else empty. */
  private codes: Array<number> = []
  /** The texts of the second's whole milliseconds made so far, by millisecond (`microsOfMs`). */
  private readonly texts: Array<string | undefined> = new Array(1000).fill(undefined)

  private refresh(ms: number): void {
    const second = Math.floor(ms / 1000)
    if (second === this.second) return
    this.second = second
    this.whole = rfc3339(second * 1000)
    this.prefix = this.whole.slice(0, -1) // without "Z"
    this.codes = this.prefix.length === 19 ? Array.from(this.prefix, (c) => c.charCodeAt(0)) : []
    this.texts.fill(undefined)
  }

  /** `microTime(ms)`. */
  micro(ms: number): string {
    this.refresh(ms)
    const micros = Math.round((ms - this.second * 1000) * 1000)
    if (micros >= 1_000_000) return microTime(ms)
    const whole = micros % 1000 === 0
    const text = (whole ? this.texts[micros / 1000] : undefined) ?? this.made(micros, whole)
    // the server reads the second of a renewal's renewTime (CompactMicroTime.ts): known here
    knownMicroTime(text, this.second)
    return text
  }

  /** The text of `micros` into the second, made (and kept when a whole millisecond). */
  private made(micros: number, whole: boolean): string {
    const c = this.codes
    let text: string
    if (c.length === 19) {
      // the µs as six digits, most significant first
      const d0 = Math.floor(micros / 100_000)
      const d1 = Math.floor(micros / 10_000) % 10
      const d2 = Math.floor(micros / 1_000) % 10
      const d3 = Math.floor(micros / 100) % 10
      const d4 = Math.floor(micros / 10) % 10
      const d5 = micros % 10
      text = fromCodes(
        c[0]!, c[1]!, c[2]!, c[3]!, c[4]!, c[5]!, c[6]!, c[7]!, c[8]!, c[9]!, c[10]!, c[11]!, c[12]!, c[13]!, c[14]!, c[15]!, c[16]!, c[17]!, c[18]!,
        dot, zero + d0, zero + d1, zero + d2, zero + d3, zero + d4, zero + d5, zed
      )
    } else {
      // another width of year (before 0 or after 9999): joined, flat (its whole milliseconds kept below as well)
      text = [this.prefix, fractionOf(micros)].join("")
    }
    if (whole) this.texts[micros / 1000] = text
    return text
  }

  /** `rfc3339(ms)`: whole seconds. */
  seconds(ms: number): string {
    this.refresh(ms)
    return this.whole
  }
}

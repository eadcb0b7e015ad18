/**
 * The agents' time stamps as text (`MicroTime` for lease renewals, RFC 3339 seconds for conditions), with the date
 * part cached per second: most calls of a shard fall in the same second as the last. Same text as
 * `microTime` / `rfc3339` of `simulator/apiserver/SystemMeta.ts`.
 */
import { knownMicroTime } from "../apiserver/CompactMicroTime.js"
import { microTime, rfc3339 } from "../apiserver/SystemMeta.js"

const fractionOf = (micros: number): string => `.${String(micros).padStart(6, "0")}Z`

export class TimeText {
  private second = NaN
  private prefix = ""
  private whole = ""
  /** `.mmm000Z` by whole millisecond of the second. */
  private readonly fractions: Array<string | undefined> = []

  private refresh(ms: number): void {
    const second = Math.floor(ms / 1000)
    if (second === this.second) return
    this.second = second
    this.whole = rfc3339(second * 1000)
    this.prefix = this.whole.slice(0, -1) // without "Z"
  }

  /** `microTime(ms)`. */
  micro(ms: number): string {
    this.refresh(ms)
    const micros = Math.round((ms - this.second * 1000) * 1000)
    if (micros >= 1_000_000) return microTime(ms)
    const fraction = micros % 1000 === 0 ? (this.fractions[micros / 1000] ??= fractionOf(micros)) : fractionOf(micros)
    // Flat: each of the ~150,000 lease versions in the history window keeps its renewTime. Joined from an array kept
    // for it (`flatString`'s own array is one more object a renewal allocates).
    const parts = this.parts
    parts[0] = this.prefix
    parts[1] = fraction
    const text = parts.join("")
    // the server reads the second of a renewal's renewTime (CompactMicroTime.ts): known here
    knownMicroTime(text, this.second)
    return text
  }

  private readonly parts: [string, string] = ["", ""]

  /** `rfc3339(ms)`: whole seconds. */
  seconds(ms: number): string {
    this.refresh(ms)
    return this.whole
  }
}

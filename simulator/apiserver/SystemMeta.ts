/** System-set metadata (`storage/names/generate.go`, `registry/rest/meta.go`): uid, timestamps, generated names. */

const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

/** The last second formatted: every write stamps a time, and a busy second stamps thousands. */
let lastSecond = Number.NaN
let lastText = ""

/** RFC3339 with whole seconds, UTC: `2023-05-01T12:00:00Z`. */
export const rfc3339 = (ms: number): string => {
  const second = Math.floor(ms / 1000)
  if (second !== lastSecond) {
    lastSecond = second
    lastText = new Date(second * 1000).toISOString().replace(".000Z", "Z")
  }
  return lastText
}


/** MicroTime: `2006-01-02T15:04:05.000000Z`. */
export const microTime = (ms: number): string => {
  const iso = new Date(Math.floor(ms)).toISOString() // …:05.123Z
  const micros = Math.round((ms - Math.floor(ms)) * 1000)
  return `${iso.slice(0, 23)}${String(micros).padStart(3, "0")}Z`
}

/** Character codes of the hex digits 0–f. */
const hexCodes = Array.from("0123456789abcdef", (c) => c.charCodeAt(0))
/** The uid being written, as character codes (`-` where the hyphens go); writes are synchronous, one at a time. */
const uidCodes: number[] = Array.from("00000000-0000-0000-0000-000000000000", (c) => c.charCodeAt(0))

/**
 * Lowercase hyphenated UUID v4 from a source of uniform floats: one draw per hex digit (32, the version digit's
 * drawn and replaced), written straight into one flat string — every create makes one, and an array of digit
 * strings, its join and five slices cost a node registration more than its draws (docs/benchmarks.md).
 */
export const uuidV4 = (random: () => number): string => {
  let at = 0
  for (let i = 0; i < 32; i++) {
    if (i === 8 || i === 12 || i === 16 || i === 20) at++
    const digit = Math.floor(random() * 16)
    uidCodes[at++] = hexCodes[i === 12 ? 4 : i === 16 ? (digit & 0x3) | 0x8 : digit]!
  }
  return String.fromCharCode.apply(null, uidCodes)
}

/** First 58 characters of `generateName` plus 5 random characters. */
export const generatedName = (generateName: string, random: () => number): string => {
  let suffix = ""
  for (let i = 0; i < 5; i++) suffix += nameAlphabet[Math.floor(random() * nameAlphabet.length)]
  return generateName.slice(0, 58) + suffix
}

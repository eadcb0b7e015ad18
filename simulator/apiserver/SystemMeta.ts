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

/** Lowercase hyphenated UUID v4 from a source of uniform floats. */
export const uuidV4 = (random: () => number): string => {
  const hex: string[] = []
  for (let i = 0; i < 32; i++) hex.push(Math.floor(random() * 16).toString(16))
  hex[12] = "4"
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)
  const h = hex.join("")
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/** First 58 characters of `generateName` plus 5 random characters. */
export const generatedName = (generateName: string, random: () => number): string => {
  let suffix = ""
  for (let i = 0; i < 5; i++) suffix += nameAlphabet[Math.floor(random() * nameAlphabet.length)]
  return generateName.slice(0, 58) + suffix
}

/**
 * The series a scenario can produce, as patterns, and whether a threshold's selector can reach any of them
 * (docs/scenarios.md "Thresholds"). A threshold that can never see a sample would only ever report "no data"
 * (k6 #1526: thresholds must not silently pass), so `validate` rejects it and names the closest value.
 * Conservative: a tag a pattern leaves out may take any value, so only a certain miss is reported.
 */
import type { AnyTag, Threshold } from "./Thresholds.js"

/** Possible values per tag (as the series spell them); a missing tag may take any value. */
export type SeriesPattern = Readonly<Partial<Record<AnyTag | "metric", ReadonlyArray<string>>>>

type Selector = Threshold["selector"]

const tagReaches = (allowed: ReadonlyArray<string>, possible: ReadonlyArray<string> | undefined): boolean =>
  possible === undefined || possible.some((v) => allowed.includes(v.toLowerCase()))

/** Whether some series of `pattern` can match `selector` (lower-cased allowed values, as `parseThreshold` gives). */
export const reaches = (selector: Selector, pattern: SeriesPattern): boolean =>
  Object.entries(selector).every(([tag, allowed]) => allowed === undefined || tagReaches(allowed, pattern[tag as AnyTag]))

/** Levenshtein distance, case-insensitive. */
export const editDistance = (a: string, b: string): number => {
  const s = a.toLowerCase()
  const t = b.toLowerCase()
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j)
  for (let i = 1; i <= s.length; i++) {
    const row = [i]
    for (let j = 1; j <= t.length; j++) row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1)))
    prev = row
  }
  return prev[t.length]!
}

/** The candidate nearest `value`, when near enough to be a typo (at most a third of its letters, at least 2, differ). */
export const closestMatch = (value: string, candidates: ReadonlyArray<string>): string | undefined => {
  let best: string | undefined
  let bestDistance = Infinity
  for (const c of [...candidates].sort()) {
    const d = editDistance(value, c)
    if (d < bestDistance) [best, bestDistance] = [c, d]
  }
  return bestDistance <= Math.max(2, Math.floor(value.length / 3)) ? best : undefined
}

/** The values of `tag` as written in the threshold name (`operation:GET|List` → GET, List), for messages. */
const writtenValues = (name: string, tag: AnyTag, lowered: ReadonlyArray<string>): ReadonlyArray<string> => {
  const body = /\{(.*)\}/s.exec(name)?.[1] ?? ""
  for (const part of body.split(",")) {
    const kv = /^\s*([^:\s]+)\s*:\s*(.*?)\s*$/.exec(part)
    if (kv?.[1] === tag) return kv[2]!.split("|").map((v) => v.trim())
  }
  return lowered
}

const quoted = (values: ReadonlyArray<string>): string => values.map((v) => `"${v}"`).join(" or ")

/**
 * Why no series of `patterns` can match the threshold, or undefined when one can. Tags are narrowed in the
 * order written: `latency{metric:api_call,operation:WATC}` → `no series with metric "api_call" has operation
 * "WATC"; did you mean "WATCH"?`.
 */
export const unreachableReason = (t: Pick<Threshold, "name" | "selector">, patterns: ReadonlyArray<SeriesPattern>): string | undefined => {
  if (patterns.some((p) => reaches(t.selector, p))) return undefined
  let left = patterns
  const before: Array<string> = []
  for (const [key, allowed] of Object.entries(t.selector)) {
    if (allowed === undefined) continue
    const tag = key as AnyTag
    const written = writtenValues(t.name, tag, allowed)
    const next = left.filter((p) => tagReaches(allowed, p[tag]))
    if (next.length === 0) {
      const candidates = [...new Set(left.flatMap((p) => p[tag] ?? []))]
      const subject = before.length === 0 ? "no series has" : `no series with ${before.join(", ")} has`
      const near = closestMatch(written[0]!, candidates)
      const hint =
        near !== undefined
          ? `; did you mean "${near}"?`
          : candidates.length === 0
            ? ""
            : ` (${tag} ${candidates.length > 1 ? "is one of" : "is"} ${candidates.sort().slice(0, 12).map((c) => `"${c}"`).join(", ")}${candidates.length > 12 ? ", …" : ""})`
      return `${subject} ${tag} ${quoted(written)}${hint}`
    }
    left = next
    before.push(`${tag} ${quoted(written)}`)
  }
  return "the scenario produces no series"
}

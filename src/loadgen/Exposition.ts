/**
 * A strict reader of the Prometheus text exposition format 0.0.4 (what a kube-apiserver's `/metrics` answers, and
 * `clustersim serve`'s; prometheus `model/textparse/promparse.go` is the reference): every line must be blank, a
 * `# HELP`/`# TYPE`/other comment, or `name{label="value",…} value [timestamp]`; the first line that is none of
 * these is an error naming its line, so a garbage answer is refused rather than read as no data. OpenMetrics' `# EOF`
 * ends the input. Only the samples of the families asked for are kept (an apiserver's exposition runs to megabytes).
 * Its own module because the npm parser for this format (parse-prometheus-text-format) is unmaintained since 2019 and
 * mis-reads labelled histograms (its open issues #13, #14), which are all this program reads.
 */
import { Data, Either } from "effect"

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export class ExpositionError extends Data.TaggedError("ExpositionError")<{ readonly line: number; readonly reason: string }> {
  override get message(): string {
    return `malformed exposition at line ${this.line}: ${this.reason}`
  }
}

const NAME_START = /[a-zA-Z_:]/
const NAME_CHAR = /[a-zA-Z0-9_:]/
const LABEL_START = /[a-zA-Z_]/
const LABEL_CHAR = /[a-zA-Z0-9_]/
/** Go's strconv.ParseFloat as Prometheus reads values: decimal or exponent form, `NaN`, `±Inf` in any case (prom-client writes `Nan`). */
const FLOAT = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?|inf(?:inity)?|nan)$/i
const TIMESTAMP = /^-?\d+$/

const floatOf = (text: string): number | undefined => {
  if (!FLOAT.test(text)) return undefined
  if (/inf/i.test(text)) return text.startsWith("-") ? -Infinity : Infinity
  if (/nan/i.test(text)) return Number.NaN
  return Number(text)
}

/** One sample line; a string is the reason it is not one. */
const sampleLine = (line: string, keep: (name: string) => boolean): Sample | undefined | string => {
  let i = 0
  if (!NAME_START.test(line[0] ?? "")) return `expected a metric name, got ${JSON.stringify(line.slice(0, 20))}`
  while (i < line.length && NAME_CHAR.test(line[i]!)) i++
  const name = line.slice(0, i)
  const labels: Record<string, string> = {}
  if (line[i] === "{") {
    i++
    for (;;) {
      while (line[i] === " " || line[i] === "\t") i++
      if (line[i] === "}") break
      const start = i
      if (!LABEL_START.test(line[i] ?? "")) return `expected a label name in ${name}, got ${JSON.stringify(line.slice(i, i + 20))}`
      while (i < line.length && LABEL_CHAR.test(line[i]!)) i++
      const label = line.slice(start, i)
      while (line[i] === " " || line[i] === "\t") i++
      if (line[i] !== "=") return `expected "=" after label ${label} of ${name}`
      i++
      while (line[i] === " " || line[i] === "\t") i++
      if (line[i] !== '"') return `expected a quoted value for label ${label} of ${name}`
      i++
      let value = ""
      for (;;) {
        const c = line[i]
        if (c === undefined) return `unterminated value of label ${label} of ${name}`
        i++
        if (c === '"') break
        if (c === "\\") {
          const e = line[i++]
          if (e === "n") value += "\n"
          else if (e === "\\" || e === '"') value += e
          else return `invalid escape "\\${e ?? ""}" in label ${label} of ${name}`
        } else value += c
      }
      if (Object.prototype.hasOwnProperty.call(labels, label)) return `label ${label} given twice in ${name}`
      labels[label] = value
      while (line[i] === " " || line[i] === "\t") i++
      if (line[i] === ",") i++
      else if (line[i] !== "}") return `expected "," or "}" after label ${label} of ${name}`
    }
    i++
  }
  const rest = line.slice(i)
  if (!/^[ \t]/.test(rest)) return `expected a value after ${name}`
  const fields = rest.trim().split(/[ \t]+/)
  if (fields.length > 2) return `unexpected text after the value of ${name}: ${JSON.stringify(fields.slice(2).join(" ").slice(0, 20))}`
  const value = floatOf(fields[0]!)
  if (value === undefined) return `invalid value of ${name}: ${JSON.stringify(fields[0]!.slice(0, 20))}`
  if (fields[1] !== undefined && !TIMESTAMP.test(fields[1])) return `invalid timestamp of ${name}: ${JSON.stringify(fields[1].slice(0, 20))}`
  return keep(name) ? { name, labels, value } : undefined
}

const TYPES = new Set(["counter", "gauge", "histogram", "summary", "untyped", "unknown", "gaugehistogram", "stateset", "info"])

/** The samples of the families `keep` accepts, or the first malformed line. */
export const parseExposition = (text: string, keep: (name: string) => boolean): Either.Either<ReadonlyArray<Sample>, ExpositionError> => {
  const samples: Array<Sample> = []
  let at = 0
  let lineNo = 0
  while (at < text.length) {
    const nl = text.indexOf("\n", at)
    const end = nl === -1 ? text.length : nl
    const line = text.slice(at, end).replace(/\r$/, "")
    at = end + 1
    lineNo++
    if (line.trim() === "") continue
    if (line.startsWith("#")) {
      const m = /^#[ \t]+(HELP|TYPE)[ \t]+(\S+)(?:[ \t]+(.*))?$/.exec(line)
      if (line.trim() === "# EOF") break
      if (m === null) continue
      const [, kind, name, rest] = m as unknown as [string, string, string, string | undefined]
      if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(name)) return Either.left(new ExpositionError({ line: lineNo, reason: `invalid metric name in # ${kind}: ${JSON.stringify(name.slice(0, 20))}` }))
      if (kind === "TYPE" && !TYPES.has((rest ?? "").trim())) {
        return Either.left(new ExpositionError({ line: lineNo, reason: `unknown metric type of ${name}: ${JSON.stringify((rest ?? "").trim().slice(0, 20))}` }))
      }
      continue
    }
    const s = sampleLine(line, keep)
    if (typeof s === "string") return Either.left(new ExpositionError({ line: lineNo, reason: s }))
    if (s !== undefined) samples.push(s)
  }
  return Either.right(samples)
}

/** The terminal rendering of a comparison (`clustersim compare`), from the `Comparison` alone. */
import { type Comparison, formatRatioInterval, type SeriesSide, type SideInfo } from "../src/compare/Compare.js"
import type { RuleHit } from "../src/compare/FailIf.js"
import { clusterLines, differenceLines, sideScenarioText } from "./compareWhatIf.js"
import { formatMs, table } from "./summary.js"
import type { ServerPairComparison } from "../src/compare/ServerComparison.js"
import { bucketNote, bucketText } from "./serverSide.js"

const percent = (x: number): string => (x === 0 ? "0%" : x < 0.001 ? "<0.1%" : `${(x * 100).toFixed(1)}%`)

/** A side's error rate for one series: `0%`, `100.0% (12 no answer)`. */
export const errorRateText = (s: SeriesSide): string => (s.connectionErrors > 0 ? `${percent(s.errorRate)} (${s.connectionErrors} no answer)` : percent(s.errorRate))

/** `1 did not pass` (of the side's rounds: its outcome was not `pass`); undefined when every round passed. */
export const failedRoundsText = (s: SideInfo): string | undefined => (s.failedRounds === 0 ? undefined : `${s.failedRounds} did not pass`)

const sideRow = (label: string, s: SeriesSide): Array<string> => [
  `  ${label}`,
  String(s.count),
  `${s.throughput.toFixed(1)}/s`,
  errorRateText(s),
  String(s.dropped),
  formatMs(s.p50),
  formatMs(s.p90),
  formatMs(s.p99),
  formatMs(s.max)
]

const methodNote: Record<string, string> = {
  "rounds-paired": "intervals over paired rounds (Student t on per-round log ratios)",
  "rounds-welch": "intervals over rounds (Welch t on per-round log quantiles)",
  requests:
    "one run per side: the intervals cover request-level noise only, not run-to-run noise — use --rounds N (≥ 3) before trusting a verdict"
}

/** One line for a side's saturated rounds (compare.json lists each): how many, and the first round's reason. */
export const saturationText = (s: SideInfo): string | undefined => {
  if (s.saturated.length === 0) return undefined
  const which = s.saturated.length === 1 ? s.saturated[0]! : `${s.saturated.length} of ${s.rounds} rounds (${s.saturated[0]}; …)`
  return `SATURATED generator, ${which}: this side's figures may reflect the generator, not the target`
}

const quantileText = (q: { readonly ms: number } | undefined): string => (q === undefined ? "-" : formatMs(q.ms))

/** The targets' own figures side by side (src/compare/ServerComparison.ts), or why a side has none. */
export const serverLines = (baseline: string, other: string, s: ServerPairComparison): ReadonlyArray<string> => {
  const out = [`  server side${s.metric ? ` (${s.metric})` : ""}:`]
  if (s.baselineAbsent !== undefined) out.push(`    ${baseline}: server-side figures absent — ${s.baselineAbsent}`)
  if (s.otherAbsent !== undefined) out.push(`    ${other}: server-side figures absent — ${s.otherAbsent}`)
  // a heading alone says nothing: say that neither side measured a call (as the summary does, ./serverSide.ts)
  if (s.calls.length === 0) return out.length > 1 ? out : [`${out[0]} no API calls measured`]
  const rows: Array<Array<string>> = [["    phase / call / side", "count", "p50", "p90", "p99", "p99 bucket"]]
  for (const c of s.calls) {
    const ratio = c.p99Ratio === undefined ? "" : `  p99 ×${c.p99Ratio.toFixed(2)}${c.sameBucket ? " (same bucket)" : ""}`
    rows.push([`    ${c.phase} ${c.call}${ratio}`, "", "", "", "", ""])
    for (const [label, f] of [[baseline, c.baseline], [other, c.other]] as const) {
      rows.push(f === undefined ? [`      ${label}`, "0", "-", "-", "-", "-"] : [`      ${label}`, String(f.count), quantileText(f.p50), quantileText(f.p90), quantileText(f.p99), bucketText(f.p99)])
    }
  }
  out.push(...table(rows, 1).split("\n"), `    ${bucketNote}; two p99s in the same bucket are no difference the histogram can show`)
  return out
}

export const renderComparison = (c: Comparison, hits: ReadonlyArray<RuleHit> = [], rules: ReadonlyArray<string> = []): string => {
  const out: Array<string> = []
  if (c.differentScenarios) out.push(`clustersim compare: different scenarios (a what-if), ${Math.round(c.level * 100)}% intervals`)
  else out.push(`clustersim compare ${c.scenario.name} (scenario sha256 ${c.scenario.sha256.slice(0, 12)}…), ${Math.round(c.level * 100)}% intervals`)
  for (const s of c.sides) {
    const failed = failedRoundsText(s)
    out.push(`  ${s.label}: ${s.target}, ${s.rounds} round${s.rounds === 1 ? "" : "s"}${failed !== undefined ? `, ${failed}` : ""}`)
    if (c.differentScenarios || (s.sets?.length ?? 0) > 0) out.push(`     ${sideScenarioText(s)}`)
    const saturated = saturationText(s)
    if (saturated) out.push(`     ${saturated}`)
  }
  for (const p of c.pairs) {
    out.push("")
    out.push(`${p.other} vs ${p.baseline}`)
    out.push(...differenceLines(p))
    const methods = new Set(p.series.map((s) => s.method).filter((m) => m !== "none"))
    for (const m of methods) out.push(`  (${methodNote[m]})`)
    const fewest = Math.min(...c.sides.filter((s) => s.label === p.baseline || s.label === p.other).map((s) => s.rounds))
    if ((methods.has("rounds-paired") || methods.has("rounds-welch")) && fewest < 3)
      out.push(`  (${fewest} rounds: a t interval on ${fewest - 1} degree of freedom is very wide; --rounds 5 or more gives usable intervals)`)
    const rows: Array<Array<string>> = [["series / side", "count", "ops/s", "errors", "dropped", "p50", "p90", "p99", "max"]]
    const verdictAfter = new Map<number, string>()
    for (const s of p.series) {
      rows.push([s.label, "", "", "", "", "", "", "", ""])
      rows.push(sideRow(p.baseline, s.baseline))
      rows.push(sideRow(p.other, s.other))
      verdictAfter.set(rows.length - 1, `  → ${s.verdict}`)
    }
    if (p.series.length === 0) out.push("  no series on both sides")
    else
      table(rows, 1)
        .split("\n")
        .forEach((line, i) => {
          out.push(line)
          const v = verdictAfter.get(i)
          if (v) out.push(v)
        })
    if (p.onlyBaseline.length > 0) out.push(`  only in ${p.baseline}: ${p.onlyBaseline.join("; ")}`)
    if (p.onlyOther.length > 0) out.push(`  only in ${p.other}: ${p.onlyOther.join("; ")}`)
    if (p.cluster !== undefined) out.push(...clusterLines(p, p.cluster))
    if (p.server !== undefined) out.push(...serverLines(p.baseline, p.other, p.server))
  }
  if (rules.length > 0) {
    out.push("")
    for (const rule of rules) {
      const mine = hits.filter((h) => h.rule === rule)
      // a gate over nothing must not pass silently: a pair without a common series is not judged
      const unjudged = c.pairs.filter((p) => p.series.length === 0).map((p) => `${p.other} vs ${p.baseline}`)
      if (unjudged.length > 0) out.push(`✗ --fail-if ${rule}: no series on both sides to judge (${unjudged.join(", ")})`)
      else if (mine.length === 0) out.push(`✓ --fail-if ${rule}: holds for no series`)
      for (const h of mine) out.push(`✗ --fail-if ${rule}: ${h.pair}, ${h.series}: ${formatRatioInterval(h)}`)
    }
  }
  return out.join("\n")
}

/**
 * `--fail-if 'p99 ratio > 1.2'`: a regression rule for CI. It holds for a series when the ratio
 * (other / baseline) is significant at the comparison's level *and* its estimate passes the comparison —
 * a ratio of 1.25 whose interval includes 1 is noise and does not fail the build (docs/compare.md).
 */
import { Either } from "effect"
import type { Comparison, Quantile } from "./Compare.js"

export interface FailRule {
  readonly source: string
  readonly quantile: Quantile
  readonly comparator: ">" | ">=" | "<" | "<="
  readonly value: number
}

export class FailRuleError extends Error {}

export const parseFailRule = (source: string): Either.Either<FailRule, FailRuleError> => {
  const m = /^\s*(p50|p90|p99)\s+ratio\s*(>=|<=|>|<)\s*([0-9]*\.?[0-9]+)\s*$/.exec(source)
  if (!m) return Either.left(new FailRuleError(`--fail-if: expected "p50|p90|p99 ratio >|>=|<|<= NUMBER" (e.g. "p99 ratio > 1.2"), got "${source}"`))
  const value = Number(m[3])
  if (!(value > 0)) return Either.left(new FailRuleError(`--fail-if: the ratio must be positive, got "${m[3]}"`))
  return Either.right({ source, quantile: m[1] as Quantile, comparator: m[2] as FailRule["comparator"], value })
}

export interface RuleHit {
  readonly rule: string
  readonly pair: string
  readonly series: string
  readonly estimate: number
  readonly low: number
  readonly high: number
}

const holds = (c: FailRule["comparator"], x: number, v: number): boolean =>
  c === ">" ? x > v : c === ">=" ? x >= v : c === "<" ? x < v : x <= v

/** Every series (of every pair) for which a rule holds; empty means the gate passes. */
export const evaluateFailRules = (rules: ReadonlyArray<FailRule>, comparison: Comparison): ReadonlyArray<RuleHit> =>
  rules.flatMap((rule) =>
    comparison.pairs.flatMap((pair) =>
      pair.series.flatMap((s) => {
        const r = s.ratios.find((x) => x.quantile === rule.quantile)
        if (!r || !r.significant || !holds(rule.comparator, r.estimate, rule.value)) return []
        return [{ rule: rule.source, pair: `${pair.other} vs ${pair.baseline}`, series: s.label, estimate: r.estimate, low: r.low, high: r.high }]
      })
    )
  )

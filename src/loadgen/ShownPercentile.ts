/**
 * A latency percentile as the reports show it (the summary, report.html, latency.svg, compare): at most the largest
 * value recorded. An HDR percentile is the highest value its bucket stands for (HdrHistogram's
 * `getValueAtPercentile` answers the bucket's `highestEquivalentValue`), up to 0.1 % above every value recorded in
 * it, while hdr-histogram-js keeps `maxValue` as recorded; a p99 of 49ms beside a max of 48.9ms is that bucket's
 * bound, not a sample. (HdrHistogram's Java `getMaxValue` answers the max's bucket bound too, so there its
 * percentiles never pass the max.) The max to hold to is the stored summary's: a histogram decoded from run.json has
 * lost it (the interchange format keeps counts only, so its `maxValue` is the bucket's bound again). The figures
 * stored in run.json and what thresholds judge stay as computed.
 */
import type { Summary } from "./LatencyRecorder.js"

export const shownPercentile = (value: number, max: number): number => Math.min(value, max)

/** A stored summary with each percentile at most its max. */
export const shownSummary = (s: Summary): Summary =>
  s.count === 0
    ? s
    : { ...s, p50: shownPercentile(s.p50, s.max), p90: shownPercentile(s.p90, s.max), p95: shownPercentile(s.p95, s.max), p99: shownPercentile(s.p99, s.max), p99_9: shownPercentile(s.p99_9, s.max) }

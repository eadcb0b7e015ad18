/**
 * Execution segments (k6 `execution-segment`): how one run's load is split between generator workers so that the
 * shares add up to the plan exactly. Workers here have equal shares, segment `index` of `count`:
 * - an open-model plan is striped: iteration *i* belongs to segment `i mod count`, so at every moment each worker
 *   runs 1/count of the rate and the iterations keep their run-wide numbers (object names stay unique);
 * - a whole number (closed-loop workers, iterations, informers, watchers, `maxInFlight`) is divided with the
 *   remainder going to the first segments, so the shares sum to the total.
 * Pure; tested in test/loadgen/ExecutionSegment.test.ts.
 */

export interface ExecutionSegment {
  /** 0-based. */
  readonly index: number
  readonly count: number
}

/** One worker running everything. */
export const wholeRun: ExecutionSegment = { index: 0, count: 1 }

export const segments = (count: number): ReadonlyArray<ExecutionSegment> => Array.from({ length: count }, (_, index) => ({ index, count }))

/** Whether run-wide iteration `i` is this segment's. */
export const ownsIteration = (segment: ExecutionSegment, i: number): boolean => i % segment.count === segment.index

/** This segment's iterations of a plan of offsets, each with its run-wide number. */
export function* stripe(plan: Iterable<number>, segment: ExecutionSegment): Generator<{ readonly offset: number; readonly iteration: number }> {
  let i = 0
  for (const offset of plan) {
    if (ownsIteration(segment, i)) yield { offset, iteration: i }
    i++
  }
}

/** This segment's share of a whole number: ⌊total / count⌋, plus one for the first `total mod count` segments. */
export const shareOf = (total: number, segment: ExecutionSegment): number =>
  Math.floor(total / segment.count) + (segment.index < total % segment.count ? 1 : 0)

/** The run-wide number of this segment's `local`-th iteration of a closed loop (unique across segments). */
export const runWideIteration = (local: number, segment: ExecutionSegment): number => local * segment.count + segment.index

/** Steps that happen once per run (failure steps, slow pagers) are the first segment's. */
export const runsOnce = (segment: ExecutionSegment): boolean => segment.index === 0

/** `i/n` as a person names a part ("2/3": the second of three); what `--segment` shows and `segmentText` prints. */
export const segmentText = (s: ExecutionSegment): string => `${s.index + 1}/${s.count}`

const fraction = (text: string): number | undefined => {
  const m = /^(\d+)(?:\/(\d+))?$/.exec(text.trim())
  if (m === null) return undefined
  const [num, den] = [Number(m[1]), m[2] === undefined ? 1 : Number(m[2])]
  return den === 0 ? undefined : num / den
}

/**
 * A segment from `--segment`: `i/n` (1-based: `1/3` is the first third, which is also what k6's shorthand `1/3`
 * means), `job/n` (an Indexed Job's pod: segment `$JOB_COMPLETION_INDEX` + 1, passed as `jobIndex`), or k6's
 * `from:to` fractions (`1/3:2/3`). Shares here are equal, so `from:to` must be one n-th of the run starting at a
 * multiple of it; other splits are refused rather than rounded.
 */
export const parseSegment = (text: string, jobIndex?: string): { readonly segment: ExecutionSegment } | { readonly error: string } => {
  const job = /^\s*job\s*\/\s*(\d+)\s*$/.exec(text)
  if (job !== null) {
    if (jobIndex === undefined || !/^\d+$/.test(jobIndex)) {
      return { error: `${JSON.stringify(text)}: JOB_COMPLETION_INDEX is ${jobIndex === undefined ? "not set" : JSON.stringify(jobIndex)} (an Indexed Job's pods have it; elsewhere give i/n)` }
    }
    return parseSegment(`${Number(jobIndex) + 1}/${job[1]}`)
  }
  const plain = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text)
  if (plain !== null && !text.includes(":")) {
    const [i, n] = [Number(plain[1]), Number(plain[2])]
    if (n < 1) return { error: `${JSON.stringify(text)}: the segment count must be at least 1` }
    if (i < 1 || i > n) return { error: `${JSON.stringify(text)}: the segment number must be from 1 to ${n}` }
    return { segment: { index: i - 1, count: n } }
  }
  const parts = text.split(":")
  const [from, to] = parts.length === 2 ? [fraction(parts[0]!), fraction(parts[1]!)] : [undefined, undefined]
  if (from === undefined || to === undefined) return { error: `${JSON.stringify(text)}: expected i/n (the i-th of n segments) or k6's from:to fractions (1/3:2/3)` }
  if (!(from >= 0 && to <= 1 && from < to)) return { error: `${JSON.stringify(text)}: from:to must satisfy 0 ≤ from < to ≤ 1` }
  const count = Math.round(1 / (to - from))
  const index = Math.round(from * count)
  const near = (a: number, b: number) => Math.abs(a - b) < 1e-9
  if (!near(to - from, 1 / count) || !near(from, index / count)) {
    return { error: `${JSON.stringify(text)}: segments are equal shares here: from:to must be k/n:(k+1)/n` }
  }
  return { segment: { index, count } }
}

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

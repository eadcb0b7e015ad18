/**
 * The work one patch request may do, counted in steps and never in time, so that a run stays deterministic
 * (docs/limits.md "Patch work"). The patch mechanisms hold the event loop while they merge; beyond the work
 * that is linear in the object and the body (decoding them costs as much), they take steps from one budget per
 * request, priced in `stepCost`. Upstream has no such bound (a slow patch there ends in the 60 s request
 * timeout's 504 while its goroutine runs on); ours refuses the request as unprocessable once the budget is
 * spent, and nothing is written.
 */

/**
 * Steps per unit of work, about a nanosecond of CPU each (bench/patch.ts): an array item shifted by an insert or
 * a removal (a memory move), a byte of JSON cloned or compared, a list item handled by one pass of a strategic
 * merge (map lookups, a copy of the item; a list merge makes about five passes).
 */
export const stepCost = { shift: 1, byte: 16, item: 512 } as const

/**
 * Steps one patch may take: 10,000 JSON patch moves over a 10,000-item array (at most 200 M shifts) fit, and so
 * does a strategic merge of two lists of ~50,000 items; the worst patch within it holds the event loop for
 * about 100–250 CPU ms (bench/patch.ts).
 */
export const patchWorkSteps = 256_000_000

export interface WorkBudget {
  /** The budget's size, for the refusal's text. */
  readonly steps: number
  /** Takes `steps`; `false` once more than the budget has been taken (the caller refuses the request). */
  readonly take: (steps: number) => boolean
  /** Steps still left (0 when spent). */
  readonly left: () => number
}

export const makeWorkBudget = (steps: number = patchWorkSteps): WorkBudget => {
  let left = steps
  return {
    steps,
    take: (n) => (left -= n) >= 0,
    left: () => Math.max(0, left)
  }
}

/** The `UnexpectedServerResponse` cause's text when a patch's budget is spent. */
export const workBudgetSpent = (steps: number): string =>
  `the patch takes more than ${steps} steps of work to apply (clustersim's bound on one request's CPU time, docs/limits.md)`

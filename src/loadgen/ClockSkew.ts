/**
 * This machine's clock against a target's, from the `Date` headers of its answers (RFC 7231: whole seconds). An
 * answer sent by the target at some instant between our send and receive times, stamped `D`, says the target's clock
 * then read somewhere in [D, D + 1 s): so (our clock − theirs) lies in (sent − D − 1000, received − D]. Samples taken
 * at different phases of the second narrow the bound; the estimate is its midpoint. Pure; tested in
 * test/loadgen/ClockSkew.test.ts.
 */

/** One answer: our clock when the request left and when the answer came (epoch ms), and its `Date` header. */
export interface DateSample {
  readonly sentMs: number
  readonly receivedMs: number
  readonly date: string
}

export interface ClockSkew {
  /** Our clock minus the target's (ms), the middle of the bound. */
  readonly skewMs: number
  /** Half the width of the bound: the skew is within ±this. */
  readonly uncertaintyMs: number
}

/** The skew the samples agree on; undefined without a usable `Date` or when they contradict each other. */
export const estimateSkew = (samples: ReadonlyArray<DateSample>): ClockSkew | undefined => {
  let low = -Infinity
  let high = Infinity
  for (const s of samples) {
    const d = Date.parse(s.date)
    if (Number.isNaN(d)) continue
    low = Math.max(low, s.sentMs - d - 1000)
    high = Math.min(high, s.receivedMs - d)
  }
  if (!Number.isFinite(low) || !Number.isFinite(high) || low > high) return undefined
  return { skewMs: Math.round((low + high) / 2), uncertaintyMs: Math.round((high - low) / 2) }
}

/**
 * The correction to apply to this machine's clock: none while the bound holds 0 — the clocks agree as far as the
 * `Date` headers can tell, and processes of one machine then agree exactly — else the estimate.
 */
export const correctionOf = (s: ClockSkew | undefined): number =>
  s === undefined || Math.abs(s.skewMs) <= s.uncertaintyMs ? 0 : s.skewMs

/**
 * The statistics behind `clustersim compare` (docs/compare.md): confidence intervals for the ratio of a
 * latency quantile between two sides, computed on the log scale (a ratio is a difference of logs).
 *
 * - Over rounds (the default with `--rounds N ≥ 2`): one log-quantile per round and side; interleaved
 *   rounds are paired (Student t on the per-round log ratios, so drift of the machine cancels), unequal
 *   round counts use Welch's t. The round is the unit that repeats, so run-to-run noise is in the interval.
 * - Within one round per side (stored files): from the HDR histograms, the distribution-free order-statistic
 *   interval of each side's quantile, combined on the log scale. It knows only request-level noise, so the
 *   report says so and recommends rounds.
 */

// ---------------------------------------------------------------------------------------------
// Student's t
// ---------------------------------------------------------------------------------------------

/** Lanczos approximation of ln Γ(x), x > 0 (Numerical Recipes `gammln`). */
const logGamma = (x: number): number => {
  const c = [76.18009172947146, -86.50532032941677, 24.01409824083091, -1.231739572450155, 0.1208650973866179e-2, -0.5395239384953e-5]
  let y = x
  const tmp = x + 5.5 - (x + 0.5) * Math.log(x + 5.5)
  let ser = 1.000000000190015
  for (const ci of c) ser += ci / ++y
  return -tmp + Math.log((2.5066282746310005 * ser) / x)
}

/** Continued fraction of the incomplete beta function (Numerical Recipes `betacf`). */
const betaContinuedFraction = (a: number, b: number, x: number): number => {
  const tiny = 1e-300
  let c = 1
  let d = 1 - ((a + b) * x) / (a + 1)
  if (Math.abs(d) < tiny) d = tiny
  d = 1 / d
  let h = d
  for (let m = 1; m <= 300; m++) {
    const m2 = 2 * m
    let aa = (m * (b - m) * x) / ((a - 1 + m2) * (a + m2))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    h *= d * c
    aa = (-(a + m) * (a + b + m) * x) / ((a + m2) * (a + 1 + m2))
    d = 1 + aa * d
    if (Math.abs(d) < tiny) d = tiny
    c = 1 + aa / c
    if (Math.abs(c) < tiny) c = tiny
    d = 1 / d
    const del = d * c
    h *= del
    if (Math.abs(del - 1) < 1e-12) break
  }
  return h
}

/** Regularized incomplete beta I_x(a, b). */
export const incompleteBeta = (x: number, a: number, b: number): number => {
  if (x <= 0) return 0
  if (x >= 1) return 1
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log(1 - x))
  return x < (a + 1) / (a + b + 2) ? (front * betaContinuedFraction(a, b, x)) / a : 1 - (front * betaContinuedFraction(b, a, 1 - x)) / b
}

/** P(T ≤ t) for Student's t with `df` degrees of freedom. */
export const studentTCdf = (t: number, df: number): number => {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5)
  return t >= 0 ? 1 - tail : tail
}

/** The p-quantile of Student's t (bisection; p in (0, 1)). */
export const studentTQuantile = (p: number, df: number): number => {
  if (p === 0.5) return 0
  if (p < 0.5) return -studentTQuantile(1 - p, df)
  let lo = 0
  let hi = 1
  while (studentTCdf(hi, df) < p) hi *= 2
  for (let i = 0; i < 100; i++) {
    const mid = (lo + hi) / 2
    if (studentTCdf(mid, df) < p) lo = mid
    else hi = mid
  }
  return (lo + hi) / 2
}

// ---------------------------------------------------------------------------------------------
// Intervals
// ---------------------------------------------------------------------------------------------

/** A point estimate with a two-sided confidence interval. */
export interface Interval {
  readonly estimate: number
  readonly low: number
  readonly high: number
}

const mean = (xs: ReadonlyArray<number>): number => xs.reduce((a, x) => a + x, 0) / xs.length
const variance = (xs: ReadonlyArray<number>): number => {
  const m = mean(xs)
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1)
}

/** The mean of paired differences with a t interval (needs ≥ 2 pairs). */
export const pairedMeanInterval = (differences: ReadonlyArray<number>, level: number): Interval => {
  const n = differences.length
  if (n < 2) throw new Error("a paired interval needs at least 2 pairs")
  const m = mean(differences)
  const half = studentTQuantile(1 - (1 - level) / 2, n - 1) * Math.sqrt(variance(differences) / n)
  return { estimate: m, low: m - half, high: m + half }
}

/** mean(b) − mean(a) with Welch's t interval (needs ≥ 2 values per side). */
export const welchInterval = (a: ReadonlyArray<number>, b: ReadonlyArray<number>, level: number): Interval => {
  if (a.length < 2 || b.length < 2) throw new Error("Welch's interval needs at least 2 values per side")
  const va = variance(a) / a.length
  const vb = variance(b) / b.length
  const se = Math.sqrt(va + vb)
  const df = se === 0 ? a.length + b.length - 2 : (va + vb) ** 2 / (va ** 2 / (a.length - 1) + vb ** 2 / (b.length - 1))
  const d = mean(b) - mean(a)
  const half = studentTQuantile(1 - (1 - level) / 2, df) * se
  return { estimate: d, low: d - half, high: d + half }
}

/** exp of a log-scale interval: a ratio with its interval. */
export const expInterval = (i: Interval): Interval => ({ estimate: Math.exp(i.estimate), low: Math.exp(i.low), high: Math.exp(i.high) })

// ---------------------------------------------------------------------------------------------
// Within one round: order statistics of the recorded requests
// ---------------------------------------------------------------------------------------------

/** An empirical distribution: `quantile(u)` for u in [0, 1], `count` values. */
export interface Empirical {
  readonly count: number
  readonly quantile: (u: number) => number
}

const logFloor = (ms: number): number => Math.log(Math.max(ms, 0.001))

/**
 * A distribution-free interval for the q-quantile's log: the order statistics whose ranks bracket
 * n·q by z·√(n·q·(1−q)) (the binomial count of values below the true quantile). Near the tail it widens to
 * the largest value rather than pretending to know more — a bootstrap is too sure there.
 */
export const quantileLogInterval = (e: Empirical, q: number, z: number): Interval => {
  const n = e.count
  const spread = z * Math.sqrt(n * q * (1 - q))
  const lo = Math.max(1, Math.floor(n * q - spread))
  const hi = Math.min(n, Math.ceil(n * q + spread) + 1)
  return { estimate: logFloor(e.quantile(q)), low: logFloor(e.quantile(lo / n)), high: logFloor(e.quantile(hi / n)) }
}

/** quantile_q(b) / quantile_q(a) from the requests of one round per side (normal on the log scale). */
export const histogramQuantileRatio = (a: Empirical, b: Empirical, q: number, level: number): Interval => {
  const z = studentTQuantile(1 - (1 - level) / 2, 1e7)
  const ia = quantileLogInterval(a, q, z)
  const ib = quantileLogInterval(b, q, z)
  // the half-widths as z·SE; the two sides are independent
  const se = Math.sqrt(((ia.high - ia.low) / (2 * z)) ** 2 + ((ib.high - ib.low) / (2 * z)) ** 2)
  const d = ib.estimate - ia.estimate
  return expInterval({ estimate: d, low: d - z * se, high: d + z * se })
}

/**
 * Execution segments (k6 `--execution-segment` with `--execution-segment-sequence`, k6's lib/execution_segment.go):
 * how one run's load is split between generators so that the shares add up to the plan exactly. A segment is one
 * part `index` of a sequence of `count` parts covering 0..1 — n equal parts (`i/n`) unless `sequence` says otherwise:
 * - the run's iterations are **striped**: of every `lcd` consecutive iterations (the sequence's lowest common
 *   denominator) each part owns its numerator's worth, spread as evenly as k6 spreads them
 *   (`NewExecutionSegmentSequenceWrapper`); with equal parts iteration *i* is part `i mod n`'s. The union of the parts is
 *   the one-process schedule, each iteration keeping its run-wide number (object names stay unique);
 * - a whole number (closed-loop workers, iterations, informers, watchers, `maxInFlight`) is k6's `ScaleInt64`: how
 *   many of the first `total` striped positions the part owns, so the shares sum to the total (equal parts: the
 *   remainder to the first parts);
 * - a named thing (a simulated node) belongs to the part whose `from:to` holds a stable hash of its name
 *   (`ownerOfName`): every name has exactly one owner, whatever the parts.
 * Pure; tested in test/loadgen/ExecutionSegment.test.ts.
 */

export interface ExecutionSegment {
  /** 0-based position in the sequence. */
  readonly index: number
  /** How many parts the sequence has. */
  readonly count: number
  /**
   * The sequence's points as k6 writes them (`0,1/4,3/4,1`: parts 0:1/4, 1/4:3/4, 3/4:1) when its parts are not
   * `count` equal shares; absent for equal shares.
   */
  readonly sequence?: string
}

/** One worker running everything. */
export const wholeRun: ExecutionSegment = { index: 0, count: 1 }

/** The `count` equal parts of a run. */
export const segments = (count: number): ReadonlyArray<ExecutionSegment> => Array.from({ length: count }, (_, index) => ({ index, count }))

/** Every part of the sequence `segment` belongs to. */
export const partsOf = (segment: ExecutionSegment): ReadonlyArray<ExecutionSegment> =>
  Array.from({ length: segment.count }, (_, index) => ({ ...segment, index }))

// ---- rationals (k6 uses big.Rat; the sequences people write fit safe integers, checked where they are parsed)

/** A reduced fraction, `den` > 0. */
export interface Fraction {
  readonly num: number
  readonly den: number
}

const gcd = (a: number, b: number): number => (b === 0 ? Math.abs(a) : gcd(b, a % b))
const reduced = (num: number, den: number): Fraction => {
  const g = gcd(num, den) || 1
  return { num: num / g, den: den / g }
}
const sub = (a: Fraction, b: Fraction): Fraction => reduced(a.num * b.den - b.num * a.den, a.den * b.den)
const compare = (a: Fraction, b: Fraction): number => a.num * b.den - b.num * a.den
/** k6's `RatString`: `1/4`, `1`, `0`. */
export const fractionText = (f: Fraction): string => (f.den === 1 ? String(f.num) : `${f.num}/${f.den}`)

/** k6's `stringToRat`: a percentage (`25%`), a decimal (`0.25`) or a fraction (`1/4`). */
export const parseFraction = (text: string): Fraction | undefined => {
  const t = text.trim()
  const percent = /^(\d+)%$/.exec(t)
  if (percent) return reduced(Number(percent[1]), 100)
  const frac = /^(\d+)(?:\/(\d+))?$/.exec(t)
  if (frac) {
    const den = frac[2] === undefined ? 1 : Number(frac[2])
    return den === 0 ? undefined : reduced(Number(frac[1]), den)
  }
  const dec = /^(\d*)\.(\d+)$/.exec(t)
  if (dec && dec[2]!.length <= 9) {
    const den = 10 ** dec[2]!.length
    return reduced(Number(dec[1] || "0") * den + Number(dec[2]), den)
  }
  return undefined
}

/** A sequence longer than this cycle is refused: its striping table would not be small. */
export const MaxLcd = 1_000_000

/** The sequence's points: `count` equal parts, or the given ones. */
export const pointsOf = (segment: ExecutionSegment): ReadonlyArray<Fraction> =>
  segment.sequence === undefined
    ? Array.from({ length: segment.count + 1 }, (_, i) => reduced(i, segment.count))
    : segment.sequence.split(",").map((p) => parseFraction(p)!)

/** Where the part lies in 0..1. */
export const boundsOf = (segment: ExecutionSegment): { readonly from: Fraction; readonly to: Fraction } => {
  const points = pointsOf(segment)
  return { from: points[segment.index]!, to: points[segment.index + 1]! }
}

/** The striping of one sequence: which part owns each position of the repeating cycle of `lcd` iterations. */
interface Striping {
  readonly lcd: number
  /** `owner[p]`: the part owning every iteration `i` with `i mod lcd = p`. */
  readonly owner: Int32Array
  /** Each part's positions in the cycle, ascending. */
  readonly positions: ReadonlyArray<ReadonlyArray<number>>
}

const stripings = new Map<string, Striping>()

/**
 * k6's striping (`NewExecutionSegmentSequenceWrapper`): the parts sorted by size, largest first (stable); for each
 * position of the cycle, the first part whose taken count × lcd / its numerator has been reached takes it. The result
 * is k6's (`GetStripedOffsets`), so a sequence split here and by k6 stripes the same.
 */
const stripingOf = (segment: ExecutionSegment): Striping => {
  const key = segment.sequence ?? `equal/${segment.count}`
  const known = stripings.get(key)
  if (known !== undefined) return known
  const points = pointsOf(segment)
  const lengths = points.slice(1).map((to, i) => sub(to, points[i]!))
  const lcd = lengths.reduce((acc, l) => (acc % l.den === 0 ? acc : (acc * l.den) / gcd(acc, l.den)), 1)
  const numerators = lengths.map((l) => l.num * (lcd / l.den))
  const order = numerators.map((n, index) => ({ n, index })).sort((a, b) => b.n - a.n)
  const chosen = order.map(() => 0)
  const owner = new Int32Array(lcd)
  const positions: Array<Array<number>> = lengths.map(() => [])
  for (let i = 0; i < lcd; i++) {
    for (let s = 0; s < order.length; s++) {
      const num = chosen[s]! * lcd
      const den = order[s]!.n
      const q = Math.floor(num / den)
      if (i > q || (i === q && num % den === 0)) {
        chosen[s]!++
        owner[i] = order[s]!.index
        positions[order[s]!.index]!.push(i)
        break
      }
    }
  }
  const striping = { lcd, owner, positions }
  stripings.set(key, striping)
  return striping
}

/** k6's `GetStripedOffsets`: the part's first position and the gaps to each next one (summing to `lcd`). */
export const stripedOffsets = (segment: ExecutionSegment): { readonly start: number; readonly offsets: ReadonlyArray<number>; readonly lcd: number } => {
  const { lcd, positions } = stripingOf(segment)
  const own = positions[segment.index]!
  return { start: own[0]!, offsets: own.map((p, k) => (k + 1 < own.length ? own[k + 1]! - p : own[0]! + lcd - p)), lcd }
}

/** Whether run-wide iteration `i` is this segment's. */
export const ownsIteration = (segment: ExecutionSegment, i: number): boolean => {
  if (segment.sequence === undefined) return i % segment.count === segment.index
  const { lcd, owner } = stripingOf(segment)
  return owner[i % lcd] === segment.index
}

/** This segment's iterations of a plan of offsets, each with its run-wide number. */
export function* stripe(plan: Iterable<number>, segment: ExecutionSegment): Generator<{ readonly offset: number; readonly iteration: number }> {
  let i = 0
  for (const offset of plan) {
    if (ownsIteration(segment, i)) yield { offset, iteration: i }
    i++
  }
}

/** This segment's share of a whole number (k6 `ScaleInt64`): how many of the first `total` striped positions it owns. */
export const shareOf = (total: number, segment: ExecutionSegment): number => {
  if (segment.sequence === undefined) return Math.floor(total / segment.count) + (segment.index < total % segment.count ? 1 : 0)
  const { lcd, positions } = stripingOf(segment)
  const own = positions[segment.index]!
  const rest = total % lcd
  return Math.floor(total / lcd) * own.length + own.filter((p) => p < rest).length
}

/**
 * k6's `GetNewExecutionTupleFromValue`: the sequence cut again by how `value` splits over it (`shareOf`) — each part as
 * long as its share of `value`, the parts with none left out — and this segment's part of the new sequence; undefined
 * when its share is none. A count shared by workers follows the workers this way (k6's `shared-iterations` scales its
 * iterations by the tuple its VUs make), so a segment without workers has none of the iterations and the shares of
 * those with workers still sum to the whole.
 */
export const splitBy = (segment: ExecutionSegment, value: number): ExecutionSegment | undefined => {
  if (value < 1) return undefined
  // a value the cycle divides splits as the sequence does: the same parts (k6 returns the same tuple)
  if (value % stripingOf(segment).lcd === 0) return segment
  const shares = partsOf(segment).map((part) => shareOf(value, part))
  if (shares[segment.index] === 0) return undefined
  const points: Array<Fraction> = [{ num: 0, den: 1 }]
  let index = 0
  let sum = 0
  shares.forEach((share, i) => {
    if (share === 0) return
    if (i === segment.index) index = points.length - 1
    sum += share
    points.push(reduced(sum, value))
  })
  return segmentOf(points, index)
}

/** The run-wide number of this segment's `local`-th iteration (k6 `SegmentedIndex`): unique across the segments. */
export const runWideIteration = (local: number, segment: ExecutionSegment): number => {
  if (segment.sequence === undefined) return local * segment.count + segment.index
  const { lcd, positions } = stripingOf(segment)
  const own = positions[segment.index]!
  return Math.floor(local / own.length) * lcd + own[local % own.length]!
}

/** Steps that happen once per run (the setup, failure steps, slow pagers, a cluster's controllers) are the first segment's. */
export const runsOnce = (segment: ExecutionSegment): boolean => segment.index === 0

/**
 * The stable hash of a name in 0..2³² (FNV-1a over its UTF-16 code units, then murmur3's finalizer so that names
 * differing in their last character spread over the whole range).
 */
export const nameHash = (name: string): number => {
  let h = 0x811c9dc5
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/**
 * The part owning a named thing (a simulated node, docs/distributed.md): the one whose `from:to` holds
 * `nameHash(name) / 2³²`. Depends only on the name and the sequence, so every process of a run agrees, and a node keeps
 * its owner while others come and go.
 */
export const ownerOfName = (name: string, segment: ExecutionSegment): number => {
  const h = nameHash(name)
  if (segment.sequence === undefined) return Math.floor((h * segment.count) / 2 ** 32)
  const points = pointsOf(segment)
  // h/2³² ≥ point ⇔ h·den ≥ num·2³² (exact: both sides below 2⁵³ for the denominators parseSequence allows)
  let owner = 0
  for (let k = 1; k < points.length - 1; k++) if (h * points[k]!.den >= points[k]!.num * 2 ** 32) owner = k
  return owner
}

export const ownsName = (segment: ExecutionSegment, name: string): boolean => ownerOfName(name, segment) === segment.index

/** How a person names a part: `2/3` (the second of three equal parts), or k6's `1/4:3/4` in an unequal sequence. */
export const segmentText = (s: ExecutionSegment): string => {
  if (s.sequence === undefined) return `${s.index + 1}/${s.count}`
  const { from, to } = boundsOf(s)
  return `${fractionText(from)}:${fractionText(to)}`
}

/** The sequence as `--segment-sequence` takes it (equal parts too), for messages. */
export const sequenceText = (s: ExecutionSegment): string => pointsOf(s).map(fractionText).join(",")

/** Whether two segments are parts of the same sequence. */
export const samePlan = (a: ExecutionSegment, b: ExecutionSegment): boolean => a.count === b.count && sequenceText(a) === sequenceText(b)

/** Equal parts are written `i/n`; any other sequence is kept as its points. */
const segmentOf = (points: ReadonlyArray<Fraction>, index: number): ExecutionSegment => {
  const count = points.length - 1
  const equal = points.every((p, i) => compare(p, reduced(i, count)) === 0)
  return equal ? { index, count } : { index, count, sequence: points.map(fractionText).join(",") }
}

/**
 * k6's `--execution-segment-sequence`: points `r1,r2,…,rn`, strictly increasing from 0 to 1 (k6 fills a sequence that
 * does not start at 0 or end at 1, `GetFilledExecutionSegmentSequence`; so do we).
 */
export const parseSequence = (text: string): { readonly points: ReadonlyArray<Fraction> } | { readonly error: string } => {
  const parts = text.split(",")
  if (parts.length < 2) return { error: `${JSON.stringify(text)}: at least 2 points are needed for an execution segment sequence, ${parts.length} given` }
  const points: Array<Fraction> = []
  for (const p of parts) {
    const f = parseFraction(p)
    if (f === undefined) return { error: `${JSON.stringify(text)}: '${p}' is not a valid percentage, decimal or fraction` }
    if (compare(f, { num: 1, den: 1 }) > 0) return { error: `${JSON.stringify(text)}: segment end value shouldn't be more than 1 but was ${fractionText(f)}` }
    const prev = points.at(-1)
    if (prev !== undefined && compare(prev, f) >= 0) return { error: `${JSON.stringify(text)}: segment start (${fractionText(prev)}) should be less than its end (${fractionText(f)})` }
    points.push(f)
  }
  if (compare(points[0]!, { num: 0, den: 1 }) > 0) points.unshift({ num: 0, den: 1 })
  if (compare(points.at(-1)!, { num: 1, den: 1 }) < 0) points.push({ num: 1, den: 1 })
  const lengths = points.slice(1).map((to, i) => sub(to, points[i]!))
  const lcd = lengths.reduce((acc, l) => (acc % l.den === 0 ? acc : (acc * l.den) / gcd(acc, l.den)), 1)
  if (lcd > MaxLcd || points.some((p) => p.den > MaxLcd)) return { error: `${JSON.stringify(text)}: the sequence repeats only every ${lcd} iterations (at most ${MaxLcd}): use simpler fractions` }
  return { points }
}

/**
 * A segment from `--segment` (and `--segment-sequence`):
 * - `i/n` (1-based: the i-th of n equal parts) — this tool's short form; the same part as k6's
 *   `--execution-segment (i-1)/n:i/n --execution-segment-sequence 0,1/n,…,1`;
 * - `job/n`: an Indexed Job's pod, part `$JOB_COMPLETION_INDEX` + 1 of n, passed as `jobIndex`;
 * - k6's `from:to` (fractions, decimals or percentages), a part of `sequence` when one is given, else of the sequence
 *   filled around it (k6 `GetFilledExecutionSegmentSequence`: `1/4:3/4` alone is part 2 of `0,1/4,3/4,1`). As in k6,
 *   every segment of a run must be given the same sequence; `merge` refuses segments of different ones.
 */
export const parseSegment = (text: string, jobIndex?: string, sequence?: string): { readonly segment: ExecutionSegment } | { readonly error: string } => {
  const job = /^\s*job\s*\/\s*(\d+)\s*$/.exec(text)
  if (job !== null) {
    if (jobIndex === undefined || !/^\d+$/.test(jobIndex)) {
      return { error: `${JSON.stringify(text)}: JOB_COMPLETION_INDEX is ${jobIndex === undefined ? "not set" : JSON.stringify(jobIndex)} (an Indexed Job's pods have it; elsewhere give i/n)` }
    }
    return parseSegment(`${Number(jobIndex) + 1}/${job[1]}`)
  }
  const plain = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text)
  if (plain !== null && !text.includes(":")) {
    if (sequence !== undefined) return { error: `${JSON.stringify(text)}: with --segment-sequence, name the part as k6 does, from:to (e.g. 1/4:3/4)` }
    const [i, n] = [Number(plain[1]), Number(plain[2])]
    if (n < 1) return { error: `${JSON.stringify(text)}: the segment count must be at least 1` }
    if (i < 1 || i > n) return { error: `${JSON.stringify(text)}: the segment number must be from 1 to ${n}` }
    return { segment: { index: i - 1, count: n } }
  }
  const parts = text.split(":")
  const [from, to] = parts.length === 2 ? [parseFraction(parts[0]!), parseFraction(parts[1]!)] : [undefined, undefined]
  if (from === undefined || to === undefined) return { error: `${JSON.stringify(text)}: expected i/n (the i-th of n segments) or k6's from:to fractions (1/4:3/4)` }
  if (!(compare(from, to) < 0 && compare(to, { num: 1, den: 1 }) <= 0)) return { error: `${JSON.stringify(text)}: from:to must satisfy 0 ≤ from < to ≤ 1` }
  const parsed = parseSequence(sequence ?? `${fractionText(from)},${fractionText(to)}`)
  if ("error" in parsed) return { error: `--segment-sequence ${parsed.error}` }
  const index = parsed.points.findIndex((p, i) => i + 1 < parsed.points.length && compare(p, from) === 0 && compare(parsed.points[i + 1]!, to) === 0)
  if (index < 0) return { error: `${JSON.stringify(text)}: not a segment of the sequence ${parsed.points.map(fractionText).join(",")}` }
  return { segment: segmentOf(parsed.points, index) }
}

/** The segment as an artifact records it (`index`, `count`, and `sequence` for unequal parts). */
export const placeOf = (s: ExecutionSegment): ExecutionSegment => ({ index: s.index, count: s.count, ...(s.sequence !== undefined ? { sequence: s.sequence } : {}) })

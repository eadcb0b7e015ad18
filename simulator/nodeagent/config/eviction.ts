/**
 * Eviction thresholds from the four configuration maps (upstream eviction
 * `ParseThresholdConfig`). Parsing stops at the first error, which the node agent treats as fatal.
 * Go walks the maps in random order; here keys are taken in document order, so the first bad entry
 * in the file is the one reported.
 */
import { parseGoFloat } from "../../../src/api/go/Strconv.js"
import { Either } from "effect"
import { parseDuration } from "../../../src/api/go/Duration.js"
import { parseQuantity, type Quantity } from "../../../src/api/go/Quantity.js"

export type Signal =
  | "memory.available"
  | "allocatableMemory.available"
  | "nodefs.available"
  | "nodefs.inodesFree"
  | "imagefs.available"
  | "imagefs.inodesFree"
  | "pid.available"

export const signals: ReadonlyArray<Signal> = [
  "memory.available",
  "allocatableMemory.available",
  "nodefs.available",
  "nodefs.inodesFree",
  "imagefs.available",
  "imagefs.inodesFree",
  "pid.available"
]

export const isSignal = (s: string): s is Signal => (signals as ReadonlyArray<string>).includes(s)

/** A quantity, or a fraction of capacity (0.1 for `10%`, rounded to float32 as upstream). */
export type ThresholdValue =
  | { readonly _tag: "Quantity"; readonly quantity: Quantity }
  | { readonly _tag: "Percentage"; readonly percentage: number }

export interface Threshold {
  readonly signal: Signal
  /** Always LessThan: met iff the threshold quantity exceeds what is available (eviction `helpers.go`). */
  readonly operator: "LessThan"
  readonly value: ThresholdValue
  /** Milliseconds; 0 for hard thresholds. */
  readonly gracePeriod: number
  readonly minReclaim?: ThresholdValue
}

export interface EvictionConfig {
  readonly evictionHard?: Readonly<Record<string, string>>
  readonly evictionSoft?: Readonly<Record<string, string>>
  readonly evictionSoftGracePeriod?: Readonly<Record<string, string>>
  readonly evictionMinimumReclaim?: Readonly<Record<string, string>>
  /** `enforceNodeAllocatable`: with `pods`, hard memory thresholds also apply to the pods cgroup. */
  readonly enforceNodeAllocatable?: ReadonlyArray<string>
}

const unsupported = (signal: string) => `unsupported eviction signal ${signal}`

/** Go's `strconv.ParseFloat(s, 32)` as a float32 value. */
export const parseGoFloat32 = (s: string): Either.Either<number, string> => Either.map(parseGoFloat(s, 32), Math.fround)

/** `10%` → 0.1 (float32 arithmetic, as upstream's `parsePercentage`); every trailing `%` is dropped. */
const parsePercentage = (val: string): Either.Either<number, string> =>
  Either.map(parseGoFloat32(val.replace(/%+$/, "")), (p) => Math.fround(p / 100))

/** One threshold statement; `undefined` for `0%` and `100%`, which disable the signal. */
const parseThresholdStatement = (signal: string, val: string): Either.Either<ThresholdValue | undefined, string> => {
  if (!isSignal(signal)) return Either.left(unsupported(signal))
  if (val.endsWith("%")) {
    if (val === "0%" || val === "100%") return Either.right(undefined)
    const p = parsePercentage(val)
    if (Either.isLeft(p)) return Either.left(p.left)
    if (p.right < 0) return Either.left(`eviction percentage threshold ${signal} must be >= 0%: ${val}`)
    if (p.right > 1) return Either.left(`eviction percentage threshold ${signal} must be <= 100%: ${val}`)
    return Either.right({ _tag: "Percentage", percentage: p.right })
  }
  const q = parseQuantity(val)
  if (Either.isLeft(q)) return Either.left(q.left)
  if (q.right.sign() <= 0) return Either.left(`eviction threshold ${signal} must be positive: ${q.right}`)
  return Either.right({ _tag: "Quantity", quantity: q.right })
}

const parseThresholdStatements = (
  statements: Readonly<Record<string, string>> | undefined
): Either.Either<Array<{ signal: Signal; value: ThresholdValue }>, string> => {
  const out: Array<{ signal: Signal; value: ThresholdValue }> = []
  for (const [signal, val] of Object.entries(statements ?? {})) {
    const r = parseThresholdStatement(signal, val)
    if (Either.isLeft(r)) return Either.left(r.left)
    if (r.right) out.push({ signal: signal as Signal, value: r.right })
  }
  return Either.right(out)
}

const parseGracePeriods = (
  statements: Readonly<Record<string, string>> | undefined
): Either.Either<Map<Signal, number>, string> => {
  const out = new Map<Signal, number>()
  for (const [signal, val] of Object.entries(statements ?? {})) {
    if (!isSignal(signal)) return Either.left(unsupported(signal))
    const d = parseDuration(val)
    if (Either.isLeft(d)) return Either.left(d.left)
    if (d.right < 0) return Either.left(`invalid eviction grace period specified: ${val}, must be a positive value`)
    out.set(signal, d.right)
  }
  return Either.right(out)
}

const parseMinimumReclaims = (
  statements: Readonly<Record<string, string>> | undefined
): Either.Either<Map<Signal, ThresholdValue>, string> => {
  const out = new Map<Signal, ThresholdValue>()
  for (const [signal, val] of Object.entries(statements ?? {})) {
    if (!isSignal(signal)) return Either.left(unsupported(signal))
    if (val.endsWith("%")) {
      const p = parsePercentage(val)
      if (Either.isLeft(p)) return Either.left(p.left)
      // unlike thresholds, above 100% is accepted and 0% is an error
      if (p.right <= 0) return Either.left(`eviction percentage minimum reclaim ${signal} must be positive: ${val}`)
      out.set(signal, { _tag: "Percentage", percentage: p.right })
      continue
    }
    const q = parseQuantity(val)
    if (Either.isLeft(q)) return Either.left(q.left)
    if (q.right.sign() < 0) return Either.left(`negative eviction minimum reclaim specified for ${signal}`)
    out.set(signal, { _tag: "Quantity", quantity: q.right })
  }
  return Either.right(out)
}

/**
 * Hard thresholds (grace 0), then soft thresholds (each needs a grace period); minimum reclaim applies
 * to both; with `pods` enforced, hard `memory.available` is copied to `allocatableMemory.available`.
 */
export const parseThresholdConfig = (config: EvictionConfig): Either.Either<ReadonlyArray<Threshold>, string> =>
  Either.gen(function* () {
    const hard = yield* parseThresholdStatements(config.evictionHard)
    const soft = yield* parseThresholdStatements(config.evictionSoft)
    const grace = yield* parseGracePeriods(config.evictionSoftGracePeriod)
    const reclaim = yield* parseMinimumReclaims(config.evictionMinimumReclaim)
    const results: Array<Threshold> = hard.map((t) => ({ ...t, operator: "LessThan", gracePeriod: 0 }))
    for (const t of soft) {
      const gracePeriod = grace.get(t.signal)
      if (gracePeriod === undefined) {
        return yield* Either.left(`grace period must be specified for the soft eviction threshold ${t.signal}`)
      }
      results.push({ ...t, operator: "LessThan", gracePeriod })
    }
    const withReclaim = results.map((t): Threshold => {
      const minReclaim = reclaim.get(t.signal)
      return minReclaim ? { ...t, minReclaim } : t
    })
    if (!(config.enforceNodeAllocatable ?? []).includes("pods")) return withReclaim
    const allocatable = withReclaim
      .filter((t) => t.signal === "memory.available" && t.gracePeriod === 0)
      .map((t): Threshold => ({ ...t, signal: "allocatableMemory.available" }))
    return [...withReclaim, ...allocatable]
  })

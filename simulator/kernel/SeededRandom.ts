/**
 * The only source of randomness in the simulator: a seeded PRNG (Effect's PCG32, `effect/Utils` `PCGRandom`, drawn
 * by its faster twin `Pcg32.ts`) behind a service tag. Same seed ⇒ same draws ⇒ same run.
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Hash from "effect/Hash"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import { Pcg32 } from "./Pcg32.js"

export interface SeededRandomService {
  /** The 32-bit seed this generator started from. */
  readonly seed: number
  /** Uniform in [0, 1). */
  next(): number
  /** Uniform in [min, max). */
  between(min: number, max: number): number
  /** Uniform integer in [min, max). */
  intBetween(min: number, max: number): number
  /**
   * client-go `wait.Jitter`: `d + rand * factor * d`; a factor ≤ 0 means 1.0
   * (`k8s.io/apimachinery/pkg/util/wait/jitter.go`).
   */
  jitter(duration: Duration.DurationInput, factor: number): Duration.Duration
  /**
   * An independent generator derived from this one's seed and `label`, e.g. one per component, so adding a
   * component does not shift everyone else's draws.
   */
  split(label: string): SeededRandomService
}

export class SeededRandom extends Context.Tag("clustersim/kernel/SeededRandom")<SeededRandom, SeededRandomService>() {}

/** Folds any number into a 32-bit seed; 32-bit unsigned integers are kept as they are. */
export const toSeed = (seed: number): number =>
  Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff ? seed : Hash.string(String(seed)) >>> 0

/** murmur3 fmix32 over the seed and the label's hash: well-spread child seeds from similar labels. */
export const deriveSeed = (seed: number, label: string): number => {
  let h = (toSeed(seed) ^ Math.imul(Hash.string(label), 0x9e3779b1)) >>> 0
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  return (h ^ (h >>> 16)) >>> 0
}

class SeededRandomImpl implements SeededRandomService {
  private readonly prng: Pcg32
  constructor(readonly seed: number) {
    this.prng = new Pcg32(seed)
  }
  next(): number {
    return this.prng.number()
  }
  between(min: number, max: number): number {
    return min + (max - min) * this.prng.number()
  }
  intBetween(min: number, max: number): number {
    return min + Math.floor((max - min) * this.prng.number())
  }
  jitter(duration: Duration.DurationInput, factor: number): Duration.Duration {
    const millis = Duration.toMillis(duration)
    const f = factor <= 0 ? 1 : factor
    return Duration.millis(millis + this.prng.number() * f * millis)
  }
  split(label: string): SeededRandomService {
    return new SeededRandomImpl(deriveSeed(this.seed, label))
  }
}

export const make = (seed: number): SeededRandomService => new SeededRandomImpl(toSeed(seed))

/** Effect's own `Random` service, seeded from the same root seed (its own stream, label "effect/Random"). */
export const effectRandom = (seed: number): Random.Random => Random.make(deriveSeed(seed, "effect/Random"))

/** Provides `SeededRandom` and replaces Effect's default `Random` (seeded from `Math.random`) with a seeded one. */
export const layer = (seed: number): Layer.Layer<SeededRandom> =>
  // provideMerge, not merge: sequential, so building it never needs an async step.
  Layer.provideMerge(Layer.succeed(SeededRandom, make(seed)), Layer.setRandom(effectRandom(seed)))

/**
 * A uniform [0, 1) source split off the seeded service under `label` (e.g. for a reflector's watch timeouts and
 * backoff jitter), or undefined outside a seeded run (the consumer's default then applies).
 */
export const uniformSource = (label: string): Effect.Effect<(() => number) | undefined> =>
  Effect.map(Effect.serviceOption(SeededRandom), (seeded) => {
    if (Option.isNone(seeded)) return undefined
    const rng = seeded.value.split(label)
    return () => rng.next()
  })

/**
 * Effect's PCG32 (`effect/Utils` `PCGRandom`: O'Neill's pcg32, XSH-RR output, 64-bit LCG state) with the same draws
 * for the same seed, bit for bit, at about half the cost: the state in four plain 32-bit numbers on the object, not
 * an `Int32Array` read back through `>>> 0`, and the LCG's multiplier as constants. The simulator draws several
 * numbers per node-agent event (jitter, service times), ~3 % of a cluster hour in `PCGRandom` (docs/benchmarks.md
 * "Where a lease renewal's CPU goes").
 */

/** The LCG's multiplier 0x5851f42d_4c957f2d: its high word, and its low word in 16-bit halves. */
const mulHi = 0x5851f42d
const mulLo = 0x4c957f2d
const mulLoHigh = 0x4c95
const mulLoLow = 0x7f2d
/** The default stream (`PCGRandom`'s increment when none is given), odd. */
const incHi = 0x14057b7e
const incLo = 0xf767814f

export class Pcg32 {
  private hi = 0
  private lo = 0

  /** As `new PCGRandom(seed)`: a step from state 0, the seed added to the low word, a step. */
  constructor(seed: number) {
    this.step()
    const lo = (this.lo + (seed >>> 0)) >>> 0
    if (lo < this.lo) this.hi = (this.hi + 1) >>> 0
    this.lo = lo
    this.step()
  }

  /** Uniform in [0, 1) with 53 random bits: `PCGRandom.number`. */
  number(): number {
    const hi = this.step() & 0x03ffffff
    const lo = this.step() & 0x07ffffff
    return (hi * 134217728 + lo) / 9007199254740992
  }

  /** The next 32-bit output: the old state's XSH-RR, the state advanced to state × multiplier + increment (mod 2^64). */
  private step(): number {
    const oldHi = this.hi
    const oldLo = this.lo
    // the low words' product exactly, in doubles: 16-bit halves keep every partial product below 2^53
    const a1 = oldLo >>> 16
    const a0 = oldLo & 0xffff
    const cross = a1 * mulLoLow + a0 * mulLoHigh
    const low = a0 * mulLoLow + (cross % 65536) * 65536
    const productLo = low >>> 0
    const productHi = a1 * mulLoHigh + Math.floor(cross / 65536) + (low >= 4294967296 ? 1 : 0) + Math.imul(oldLo, mulHi) + Math.imul(oldHi, mulLo)
    const lo = (productLo + incLo) >>> 0
    this.hi = (productHi + incHi + (lo < productLo ? 1 : 0)) >>> 0
    this.lo = lo
    const xorshiftedHi = ((oldHi >>> 18) ^ oldHi) >>> 0
    const xorshiftedLo = (((oldLo >>> 18) | (oldHi << 14)) ^ oldLo) >>> 0
    const xorshifted = ((xorshiftedLo >>> 27) | (xorshiftedHi << 5)) >>> 0
    const rot = oldHi >>> 27
    return ((xorshifted >>> rot) | (xorshifted << (-rot & 31))) >>> 0
  }
}

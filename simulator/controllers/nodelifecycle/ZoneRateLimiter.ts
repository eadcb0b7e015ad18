/**
 * The per-zone rate limiter of NoExecute tainting: client-go `TokenBucketRateLimiter.TryAccept` with burst 1…n. A
 * fresh bucket is full; qps 0 never accepts (a zone in partial disruption below the large-cluster threshold).
 * Unlike `simulator/events/TokenBucket.ts` (`Reserve`: wait for the token), a refused node stays queued.
 */
export class ZoneRateLimiter {
  private tokens: number
  private last: number | undefined
  constructor(
    readonly qps: number,
    readonly burst: number = 1
  ) {
    this.tokens = burst
  }

  tryAccept(now: number): boolean {
    if (this.qps <= 0) return false
    this.refill(now)
    if (this.tokens >= 1) {
      this.tokens -= 1
      return true
    }
    return false
  }

  /** When the next token will be there (ms); Infinity for qps 0. */
  nextTokenAt(now: number): number {
    if (this.qps <= 0) return Infinity
    this.refill(now)
    return this.tokens >= 1 ? now : now + ((1 - this.tokens) * 1000) / this.qps
  }

  private refill(now: number): void {
    if (this.last !== undefined) this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000)
    this.last = now
  }
}

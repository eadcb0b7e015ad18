/**
 * client-go's token bucket (`flowcontrol.NewTokenBucketRateLimiter`) as a pure value: `reserve(now)` takes a
 * token and says how long the caller must wait for it. It delays, never drops (client-go
 * `tools/record`, eventRecordQPS / eventBurst). QPS ≤ 0 means no limit (spec 001: 0 = no limit).
 */
export interface TokenBucket {
  readonly qps: number
  readonly burst: number
  /** Takes one token at `now` (ms); returns the delay (ms) until it is available, 0 if at once. */
  reserve(now: number): number
  /**
   * Takes a token only if one is there now (client-go `TryAccept`: the node agent's image pulls fail with
   * `pull QPS exceeded` instead of waiting). A time before the last one counts as the last one.
   */
  tryAccept(now: number): boolean
}

export const make = (qps: number, burst: number): TokenBucket => {
  const capacity = Math.max(1, burst)
  let tokens = capacity
  let last = Number.NEGATIVE_INFINITY
  return {
    qps,
    burst,
    reserve(now) {
      if (qps <= 0) return 0
      if (last === Number.NEGATIVE_INFINITY) last = now
      tokens = Math.min(capacity, tokens + ((now - last) * qps) / 1000)
      last = now
      tokens -= 1
      // A negative balance is a reservation: the caller waits until it is paid back.
      return tokens >= 0 ? 0 : (-tokens * 1000) / qps
    },
    tryAccept(now) {
      if (qps <= 0) return true
      if (last === Number.NEGATIVE_INFINITY) last = now
      const t = Math.max(now, last)
      tokens = Math.min(capacity, tokens + ((t - last) * qps) / 1000)
      last = t
      if (tokens < 1) return false
      tokens -= 1
      return true
    }
  }
}

/**
 * The reflector's backoff: client-go's `NewReflectorWithOptions` builds
 * `wait.NewExponentialBackoffManager(800ms, 30s, 2min, 2.0, 1.0, clock)` (`apimachinery: pkg/util/wait/backoff.go`):
 * 800 ms initial, ×2, cap 30 s, jitter 1.0 applied after the cap (so the steady gap is 30–60 s, "0.22 QPS"), and
 * back to the initial step once more than 2 min passed since the previous backoff was taken. Pure: the caller
 * passes the clock time and a uniform random number.
 */
export interface BackoffPolicy {
  readonly initialMs: number
  readonly capMs: number
  readonly factor: number
  readonly jitter: number
  readonly resetAfterMs: number
}

export const reflectorBackoff: BackoffPolicy = { initialMs: 800, capMs: 30_000, factor: 2, jitter: 1, resetAfterMs: 120_000 }

export interface BackoffState {
  /** The next un-jittered step. */
  readonly stepMs: number
  /** Clock time the previous backoff was taken (client-go starts it at construction). */
  readonly lastAtMs: number
}

export const initialBackoff = (policy: BackoffPolicy, nowMs: number): BackoffState => ({ stepMs: policy.initialMs, lastAtMs: nowMs })

/** The wait to take now, and the state after it; `random01` is uniform in [0, 1). */
export const nextBackoff = (
  policy: BackoffPolicy,
  state: BackoffState,
  nowMs: number,
  random01: number
): { readonly waitMs: number; readonly state: BackoffState } => {
  const step = nowMs - state.lastAtMs > policy.resetAfterMs ? policy.initialMs : state.stepMs
  const following = Math.min(step * policy.factor, policy.capMs)
  const waitMs = policy.jitter > 0 ? step + random01 * policy.jitter * step : step
  return { waitMs, state: { stepMs: following, lastAtMs: nowMs } }
}

/**
 * The node agent's image pull back-off (upstream `pkg/kubelet/images/image_manager.go` with
 * `flowcontrol.NewBackOff(10s, 5m)`, `k8s.io/client-go/util/flowcontrol/backoff.go`), keyed `<pod uid>_<image>`.
 *
 * - A failed pull calls `next`: the first failure (or one after a quiet spell) sets 10 s, each later one doubles
 *   it up to 5 min.
 * - An entry is quiet — forgotten — once more than 2 × 5 min passed since its last update.
 * - `inBackOff(now)`: less than the current back-off has passed since the last failure
 *   (`IsInBackOffSinceUpdate`); the pull is then not tried and the pod waits with `ImagePullBackOff`.
 * Times are virtual milliseconds.
 */
export const imagePullBackoff = { initialMs: 10_000, maxMs: 300_000 } as const

interface Entry {
  backoffMs: number
  lastUpdate: number
}

export class PullBackoff {
  private readonly entries = new Map<string, Entry>()

  constructor(
    readonly initialMs: number = imagePullBackoff.initialMs,
    readonly maxMs: number = imagePullBackoff.maxMs
  ) {}

  private expired(entry: Entry, now: number): boolean {
    return now - entry.lastUpdate > 2 * this.maxMs
  }

  /** Records a failure of `id` at `now`; returns the back-off it now has. */
  next(id: string, now: number): number {
    const entry = this.entries.get(id)
    if (entry === undefined || this.expired(entry, now)) {
      this.entries.set(id, { backoffMs: this.initialMs, lastUpdate: now })
      return this.initialMs
    }
    entry.backoffMs = Math.min(2 * entry.backoffMs, this.maxMs)
    entry.lastUpdate = now
    return entry.backoffMs
  }

  inBackOff(id: string, now: number): boolean {
    const entry = this.entries.get(id)
    if (entry === undefined || this.expired(entry, now)) return false
    return now - entry.lastUpdate < entry.backoffMs
  }

  /** When the back-off of `id` ends (undefined: none). */
  until(id: string, now: number): number | undefined {
    const entry = this.entries.get(id)
    if (entry === undefined || this.expired(entry, now)) return undefined
    return entry.lastUpdate + entry.backoffMs
  }

  /** Forgets quiet entries (upstream's `GC` after a successful pull). */
  gc(now: number): void {
    for (const [id, entry] of this.entries) if (this.expired(entry, now)) this.entries.delete(id)
  }

  get size(): number {
    return this.entries.size
  }
}

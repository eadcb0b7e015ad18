/**
 * Ready and not-ready nodes per zone, kept across monitor passes (each node counted as its last visit left it), so a
 * pass that visits few nodes still knows every zone's state (`ComputeZoneState` counts).
 */

export class ZoneTally {
  private readonly counts = new Map<string, { ready: number; notReady: number }>()

  add(zone: string, ready: boolean, delta: 1 | -1): void {
    let c = this.counts.get(zone)
    if (c === undefined) this.counts.set(zone, (c = { ready: 0, notReady: 0 }))
    if (ready) c.ready += delta
    else c.notReady += delta
  }

  size(zone: string): number {
    const c = this.counts.get(zone)
    return c === undefined ? 0 : c.ready + c.notReady
  }

  /** The zones that have nodes. */
  *zones(): Iterable<readonly [zone: string, ready: number, notReady: number]> {
    for (const [zone, c] of this.counts) if (c.ready + c.notReady > 0) yield [zone, c.ready, c.notReady]
  }
}

/**
 * A cluster run's figures over time, from its result alone (so a stored run.json renders them): Ready nodes from the
 * observer's Ready timeline, lease writes and renew latency from the node agents' lease timeline
 * (simulator/nodeagent/LeaseTimeline.ts). The report charts them; the summary quotes their extremes.
 */
import type { LeaseTimelineResult } from "../simulator/nodeagent/LeaseTimeline.js"

export type ReadyTimeline = Readonly<Record<string, ReadonlyArray<readonly [number, string, ...ReadonlyArray<unknown>]>>>

/** Ready nodes as a step function: `[t ms, count]` at each change (a node counts from its first `True`). */
export const readyNodesOverTime = (timeline: ReadyTimeline): ReadonlyArray<readonly [number, number]> => {
  const changes: Array<readonly [number, number]> = []
  for (const entries of Object.values(timeline)) {
    let ready = false
    for (const [t, status] of entries) {
      const now = status === "True"
      if (now !== ready) changes.push([t, now ? 1 : -1])
      ready = now
    }
  }
  changes.sort((x, y) => x[0] - y[0])
  const out: Array<[number, number]> = []
  let n = 0
  for (const [t, d] of changes) {
    n += d
    const last = out[out.length - 1]
    if (last !== undefined && last[0] === t) last[1] = n
    else out.push([t, n])
  }
  return out
}

export interface ReadyNodesFigures {
  /** Ready once every node had registered (the most Ready at once before the first loss). */
  readonly peak: number
  readonly atEnd: number
  /** The fewest Ready after the peak was first reached, and when; undefined when no node left Ready. */
  readonly fewest?: { readonly count: number; readonly atMs: number }
}

export const readyNodesFigures = (timeline: ReadyTimeline): ReadyNodesFigures | undefined => {
  const steps = readyNodesOverTime(timeline)
  if (steps.length === 0) return undefined
  const peak = Math.max(...steps.map(([, n]) => n))
  const peakAt = steps.findIndex(([, n]) => n === peak)
  let fewest: { count: number; atMs: number } | undefined
  for (const [t, n] of steps.slice(peakAt + 1)) if (n < peak && (fewest === undefined || n < fewest.count)) fewest = { count: n, atMs: t }
  return { peak, atEnd: steps[steps.length - 1]![1], ...(fewest ? { fewest } : {}) }
}

/** The lease timeline as chart columns: x in seconds (interval starts), writes and failures per second. */
export const leaseColumns = (l: LeaseTimelineResult) => {
  const s = l.intervalMs / 1000
  return {
    x: l.writes.map((_, i) => i * s),
    writesPerSecond: l.writes.map((n) => n / s),
    failuresPerSecond: l.failures.map((n) => n / s),
    renewP50: l.renewP50,
    renewP99: l.renewP99
  }
}

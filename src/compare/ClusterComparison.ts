/**
 * A cluster run's figures side by side (docs/compare.md "Cluster results"): what decides a capacity question besides
 * request latency — lease-renew latency, lease writes, nodes that were not Ready over time (the most at once and
 * the time-weighted mean), APF's 429s, queue wait and dispatched requests per priority level, the relists' modelled
 * peak server memory, pod start-up.
 *
 * Read from the artifact's `cluster` result (`simulator/cluster/ClusterResult.ts`, recorded as it is) and its
 * `pod_startup` series; a field a result lacks (an older artifact, a real-time run without a server model) is
 * shown as no data. Several rounds of a side are pooled: latency histograms merged, counts averaged per round,
 * the largest not-ready count the largest of any round. A simulated run is deterministic for its seed, so a
 * difference here is the model's answer for that seed, not noise (docs/compare.md).
 */
import type { RunArtifact } from "../loadgen/Artifact.js"
import { empiricalOf } from "./PooledHistogram.js"

/** The parts of a `ClusterResult` read here; every field optional (older artifacts, real-time runs). */
interface ClusterShape {
  readonly durationMs?: number
  readonly heartbeats?: { readonly leaseWrites?: number; readonly failedAttempts?: number; readonly perSecond?: number }
  readonly leaseRenewLatency?: { readonly hdr?: string }
  /** Per node: `[ms since the start, status, reason]`, the first entry the status when first seen. */
  readonly readyTimeline?: Readonly<Record<string, ReadonlyArray<readonly [number, string, ...Array<unknown>]>>>
  readonly serverModel?: {
    readonly parameters?: { readonly apf?: boolean }
    readonly priorityLevels?: Readonly<Record<string, { readonly dispatched?: number; readonly rejected?: number; readonly queueWaitMs?: { readonly p50?: number; readonly p99?: number } }>>
    readonly givenUp?: number
    readonly relistMemory?: { readonly peakBytes?: number; readonly lists?: { readonly count?: number }; readonly watchLists?: { readonly count?: number } }
  }
  readonly podStartup?: { readonly createToObserved?: { readonly hdr?: string } }
}

export type ClusterUnit = "ms" | "count" | "per-second" | "nodes" | "bytes"

export interface ClusterRow {
  /** `lease renew latency p99`, `APF global-default 429s` */
  readonly label: string
  readonly unit: ClusterUnit
  /** Absent: the side has no such figure (no cluster, APF off, no pods started). */
  readonly baseline?: number
  readonly other?: number
}

export interface ClusterPairComparison {
  readonly rows: ReadonlyArray<ClusterRow>
  /** One line per side on how its server modelled admission: `APF on`, `APF off (two inflight pools)`. */
  readonly admission: { readonly baseline?: string; readonly other?: string }
}

/** Nodes not Ready over time, from each node's Ready timeline: counted from the first time it was Ready. */
export const notReadyOverTime = (
  timeline: Readonly<Record<string, ReadonlyArray<readonly [number, string, ...Array<unknown>]>>>,
  durationMs: number
): { readonly max: number; readonly timeWeightedMean: number; readonly leftReady: number } => {
  const steps: Array<readonly [number, number]> = []
  let leftReady = 0
  for (const transitions of Object.values(timeline)) {
    let wasReady = false
    let down = false
    let left = false
    for (const [t, status] of transitions) {
      if (status === "True") {
        if (down) steps.push([t, -1])
        wasReady = true
        down = false
      } else if (wasReady && !down) {
        steps.push([t, +1])
        down = true
        left = true
      }
    }
    if (left) leftReady++
  }
  steps.sort((a, b) => a[0] - b[0] || a[1] - b[1])
  let current = 0
  let max = 0
  let area = 0
  let last = 0
  for (const [t, delta] of steps) {
    const at = Math.min(Math.max(t, 0), durationMs)
    area += current * (at - last)
    last = at
    current += delta
    max = Math.max(max, current)
  }
  area += current * Math.max(0, durationMs - last)
  return { max, timeWeightedMean: durationMs > 0 ? area / durationMs : 0, leftReady }
}

const mean = (xs: ReadonlyArray<number>): number | undefined => (xs.length === 0 ? undefined : xs.reduce((a, x) => a + x, 0) / xs.length)
const defined = <A>(xs: ReadonlyArray<A | undefined>): Array<A> => xs.filter((x): x is A => x !== undefined)

interface SideFigures {
  readonly rows: Map<string, { readonly unit: ClusterUnit; readonly value: number }>
  readonly admission?: string
}

const sideFigures = (rounds: ReadonlyArray<RunArtifact>): SideFigures | undefined => {
  const results = defined(rounds.map((r) => r.cluster as ClusterShape | undefined))
  const startup = rounds.flatMap((r) => r.series.filter((s) => s.key.metric === "pod_startup"))
  if (results.length === 0 && startup.length === 0) return undefined
  const rows = new Map<string, { unit: ClusterUnit; value: number }>()
  const put = (label: string, unit: ClusterUnit, value: number | undefined) => value !== undefined && rows.set(label, { unit, value })
  const renew = empiricalOf(defined(results.map((c) => c.leaseRenewLatency?.hdr)))
  if (renew.count > 0) {
    put("lease renew latency p50", "ms", renew.quantile(0.5))
    put("lease renew latency p99", "ms", renew.quantile(0.99))
    put("lease renew latency max", "ms", renew.max)
  }
  put("lease writes", "per-second", mean(defined(results.map((c) => c.heartbeats?.perSecond))))
  put("lease renew failures", "count", mean(defined(results.map((c) => c.heartbeats?.failedAttempts))))
  const notReady = defined(results.map((c) => (c.readyTimeline && c.durationMs !== undefined ? notReadyOverTime(c.readyTimeline, c.durationMs) : undefined)))
  if (notReady.length > 0) {
    put("not-ready nodes, most at once", "nodes", Math.max(...notReady.map((n) => n.max)))
    put("not-ready nodes, time-weighted mean", "nodes", mean(notReady.map((n) => n.timeWeightedMean)))
    put("nodes that left Ready", "nodes", mean(notReady.map((n) => n.leftReady)))
  }
  const levels = [...new Set(results.flatMap((c) => Object.keys(c.serverModel?.priorityLevels ?? {})))]
  for (const level of levels) {
    const of = defined(results.map((c) => c.serverModel?.priorityLevels?.[level]))
    put(`APF ${level} 429s`, "count", mean(defined(of.map((l) => l.rejected))))
    put(`APF ${level} dispatched`, "count", mean(defined(of.map((l) => l.dispatched))))
    put(`APF ${level} queue wait p50`, "ms", mean(defined(of.map((l) => l.queueWaitMs?.p50))))
    put(`APF ${level} queue wait p99`, "ms", mean(defined(of.map((l) => l.queueWaitMs?.p99))))
  }
  // the relists' modelled server memory (docs/watchlist.md "The cost model"); the largest of any round
  const memory = defined(results.map((c) => c.serverModel?.relistMemory))
  if (memory.length > 0) {
    put("relist server memory peak (modelled)", "bytes", Math.max(...defined(memory.map((m) => m.peakBytes))))
    put("relist LISTs", "count", mean(memory.map((m) => m.lists?.count ?? 0)))
    put("relist WatchLists", "count", mean(memory.map((m) => m.watchLists?.count ?? 0)))
  }
  put("node-agent requests given up", "count", mean(results.map((c) => c.serverModel?.givenUp ?? 0).filter((_, i) => results[i]!.serverModel !== undefined)))
  const byName = new Map<string, Array<string>>()
  for (const s of startup) byName.set(s.key.name ?? "", [...(byName.get(s.key.name ?? "") ?? []), s.latencyHistogram])
  if (byName.size === 0) {
    const observed = defined(results.map((c) => c.podStartup?.createToObserved?.hdr))
    if (observed.length > 0) byName.set("", observed)
  }
  for (const [name, hdrs] of byName) {
    const e = empiricalOf(hdrs)
    if (e.count === 0) continue
    const suffix = name === "" ? "" : ` (${name})`
    put(`pod startup p50${suffix}`, "ms", e.quantile(0.5))
    put(`pod startup p99${suffix}`, "ms", e.quantile(0.99))
    put(`pods started${suffix}`, "count", e.count / rounds.length)
  }
  const apf = results.find((c) => c.serverModel?.parameters !== undefined)?.serverModel?.parameters?.apf
  return { rows, ...(apf === undefined ? {} : { admission: apf ? "APF on" : "APF off (two inflight pools, no 429s)" }) }
}

/** The cluster figures of two sides, in a fixed order (a figure only one side has is still listed); none without a cluster. */
export const compareClusters = (baseline: ReadonlyArray<RunArtifact>, other: ReadonlyArray<RunArtifact>): ClusterPairComparison | undefined => {
  const a = sideFigures(baseline)
  const b = sideFigures(other)
  if (a === undefined && b === undefined) return undefined
  // lease figures, then Ready, then APF, then the rest: the same order whichever side has a figure
  const rank = (l: string) => (l.startsWith("lease") ? 0 : l.includes("Ready") || l.startsWith("not-ready") ? 1 : l.startsWith("APF") ? 2 : 3)
  const labels = [...new Set([...(a?.rows.keys() ?? []), ...(b?.rows.keys() ?? [])])].sort((x, y) => rank(x) - rank(y))
  // a priority level that did nothing on either side (exempt, usually) is noise in the table
  const idle = (label: string) => {
    const level = /^APF (.+) (429s|dispatched|queue wait p50|queue wait p99)$/.exec(label)?.[1]
    if (level === undefined) return false
    return [a, b].every((s) => [`APF ${level} 429s`, `APF ${level} dispatched`].every((l) => (s?.rows.get(l)?.value ?? 0) === 0))
  }
  const rows = labels
    .filter((l) => !idle(l))
    .map((label): ClusterRow => {
      const x = a?.rows.get(label)
      const y = b?.rows.get(label)
      return { label, unit: (x ?? y)!.unit, ...(x ? { baseline: x.value } : {}), ...(y ? { other: y.value } : {}) }
    })
  return { rows, admission: { ...(a?.admission ? { baseline: a.admission } : {}), ...(b?.admission ? { other: b.admission } : {}) } }
}

/** One run's cluster figures (`clustersim sweep`'s columns, docs/sweep.md): the rows a what-if compares, for one side. */
export const clusterFigures = (a: RunArtifact): ReadonlyArray<{ readonly label: string; readonly unit: ClusterUnit; readonly value: number }> =>
  (compareClusters([a], [])?.rows ?? []).flatMap((r) => (r.baseline === undefined ? [] : [{ label: r.label, unit: r.unit, value: r.baseline }]))

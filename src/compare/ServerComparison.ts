/**
 * Two targets' own latency figures side by side (run.json `server`, src/loadgen/ServerLatency.ts): each side's
 * rounds pooled per phase and call — bucket counts added, then the quantiles computed again as `histogram_quantile`
 * does — and the p99 ratio. No interval: the figures are bucket estimates, and two p99s in the same bucket are no
 * evidence of a difference (docs/metrics.md "Server-side figures"); the bucket is shown with each.
 */
import type { RunArtifact } from "../loadgen/Artifact.js"
import { callLabel, poolCalls, type ServerCallFigures } from "../loadgen/ServerLatency.js"

export interface ServerCallSide {
  readonly count: number
  readonly p50?: ServerCallFigures["p50"]
  readonly p90?: ServerCallFigures["p90"]
  readonly p99?: ServerCallFigures["p99"]
}

export interface ServerCallComparison {
  readonly phase: string
  readonly call: string
  readonly baseline?: ServerCallSide
  readonly other?: ServerCallSide
  /** other p99 / baseline p99, when both have one. */
  readonly p99Ratio?: number
  /** Both p99s fall in the same bucket: the histogram cannot tell them apart. */
  readonly sameBucket?: boolean
}

export interface ServerPairComparison {
  readonly metric?: string
  /** Why a side has no server-side figures (its first round's reason), when it has none. */
  readonly baselineAbsent?: string
  readonly otherAbsent?: string
  readonly calls: ReadonlyArray<ServerCallComparison>
}

interface SideFigures {
  readonly absent?: string
  readonly metric?: string
  readonly byCall: ReadonlyMap<string, { readonly phase: string; readonly figures: ServerCallFigures }>
}

const sideFigures = (rounds: ReadonlyArray<RunArtifact>): SideFigures => {
  const read = rounds.filter((r) => r.server !== undefined && r.server.absent === undefined)
  const absent = rounds.find((r) => r.server?.absent !== undefined)?.server?.absent ?? (read.length === 0 ? "the runs read no server-side figures" : undefined)
  const phases = new Map<string, Array<ServerCallFigures>>()
  for (const r of read) for (const p of r.server!.phases) phases.set(p.phase, [...(phases.get(p.phase) ?? []), ...p.calls])
  const byCall = new Map<string, { phase: string; figures: ServerCallFigures }>()
  for (const [phase, calls] of phases) for (const c of poolCalls(calls)) byCall.set(`${phase}\u0000${callLabel(c)}`, { phase, figures: c })
  return { ...(read.length === 0 && absent !== undefined ? { absent } : {}), ...(read[0]?.server?.metric ? { metric: read[0].server.metric } : {}), byCall }
}

const side = (f: ServerCallFigures): ServerCallSide => ({
  count: f.count,
  ...(f.p50 ? { p50: f.p50 } : {}),
  ...(f.p90 ? { p90: f.p90 } : {}),
  ...(f.p99 ? { p99: f.p99 } : {})
})

/** Undefined when neither side's runs read a target's figures (simulated targets). */
export const compareServerSide = (baseline: ReadonlyArray<RunArtifact>, other: ReadonlyArray<RunArtifact>): ServerPairComparison | undefined => {
  if (!baseline.some((r) => r.server !== undefined) && !other.some((r) => r.server !== undefined)) return undefined
  const a = sideFigures(baseline)
  const b = sideFigures(other)
  const ids = [...new Set([...a.byCall.keys(), ...b.byCall.keys()])].sort()
  const calls = ids.map((id): ServerCallComparison => {
    const x = a.byCall.get(id)
    const y = b.byCall.get(id)
    const { phase, figures } = (x ?? y)!
    const px = x?.figures.p99
    const py = y?.figures.p99
    return {
      phase,
      call: callLabel(figures),
      ...(x ? { baseline: side(x.figures) } : {}),
      ...(y ? { other: side(y.figures) } : {}),
      ...(px && py && px.ms > 0 ? { p99Ratio: py.ms / px.ms, sameBucket: px.bucketMs[0] === py.bucketMs[0] && px.bucketMs[1] === py.bucketMs[1] } : {})
    }
  })
  return {
    ...(a.metric ?? b.metric ? { metric: (a.metric ?? b.metric)! } : {}),
    ...(a.absent !== undefined ? { baselineAbsent: a.absent } : {}),
    ...(b.absent !== undefined ? { otherAbsent: b.absent } : {}),
    calls
  }
}

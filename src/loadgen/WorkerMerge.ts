/**
 * One run's figures from what its generator workers recorded: whole-run series and per-interval snapshots merged
 * exactly. Histograms cross the process boundary in the HdrHistogram V2 compressed encoding and are added bucket
 * by bucket, so N workers' merged histogram is the histogram one recorder would have made of the same samples.
 * Pure; tested in test/loadgen/WorkerMerge.test.ts.
 */
import type { ExecutorReport } from "./Arrival.js"
import { type ActionReport, failedReflectorRequests, type InformerReport } from "./Artifact.js"
import {
  decodeHistogram,
  encodeHistogram,
  type EncodedSeries,
  type IntervalSnapshot,
  keyString,
  mergeHistograms,
  type SeriesSnapshot,
  summarize
} from "./LatencyRecorder.js"

/** A series as a worker sent it, back into histograms. */
export const decodeSeries = (e: EncodedSeries): SeriesSnapshot => {
  const latency = decodeHistogram(e.latency)
  const connectionErrors = e.connectionErrors ?? 0
  return {
    key: e.key,
    models: e.models,
    latency,
    serviceTime: decodeHistogram(e.serviceTime),
    count: latency.totalCount + connectionErrors,
    errors: e.errors,
    connectionErrors,
    dropped: e.dropped,
    outOfRange: e.outOfRange
  }
}

/** Whole-run series of every worker, one per key (in the order keys first appear). */
export const mergeSeries = (perWorker: ReadonlyArray<ReadonlyArray<SeriesSnapshot>>): ReadonlyArray<SeriesSnapshot> => {
  const byKey = new Map<string, Array<SeriesSnapshot>>()
  for (const list of perWorker) for (const s of list) byKey.set(keyString(s.key), [...(byKey.get(keyString(s.key)) ?? []), s])
  return Array.from(byKey.values(), (same) => {
    const latency = mergeHistograms(same.map((s) => s.latency))
    const sum = (f: (s: SeriesSnapshot) => number) => same.reduce((a, s) => a + f(s), 0)
    const connectionErrors = sum((s) => s.connectionErrors)
    return {
      key: same[0]!.key,
      models: [...new Set(same.flatMap((s) => s.models))],
      latency,
      serviceTime: mergeHistograms(same.map((s) => s.serviceTime)),
      count: latency.totalCount + connectionErrors,
      errors: sum((s) => s.errors),
      connectionErrors,
      dropped: sum((s) => s.dropped),
      outOfRange: sum((s) => s.outOfRange)
    }
  })
}

/**
 * Interval snapshots of every worker, one per (key, interval index), ordered by index. Workers share the run's
 * start within their start-up skew (the coordinator starts them together), so index *i* is the same second of the
 * run in each.
 */
export const mergeIntervals = (perWorker: ReadonlyArray<ReadonlyArray<IntervalSnapshot>>): ReadonlyArray<IntervalSnapshot> => {
  const byKey = new Map<string, Array<IntervalSnapshot>>()
  for (const list of perWorker) {
    for (const i of list) {
      const id = `${keyString(i.key)}\u0000${i.index}`
      byKey.set(id, [...(byKey.get(id) ?? []), i])
    }
  }
  const merged = Array.from(byKey.values(), (same): IntervalSnapshot => {
    if (same.length === 1) return same[0]!
    const latency = mergeHistograms(same.map((i) => decodeHistogram(i.latencyHistogram)))
    const serviceTime = mergeHistograms(same.map((i) => decodeHistogram(i.serviceTimeHistogram)))
    const first = same[0]!
    return {
      key: first.key,
      index: first.index,
      startMs: first.startMs,
      endMs: first.endMs,
      latency: summarize(latency),
      serviceTime: summarize(serviceTime),
      errors: same.reduce((a, i) => a + i.errors, 0),
      connectionErrors: same.reduce((a, i) => a + (i.connectionErrors ?? 0), 0),
      dropped: same.reduce((a, i) => a + i.dropped, 0),
      latencyHistogram: encodeHistogram(latency),
      serviceTimeHistogram: encodeHistogram(serviceTime)
    }
  })
  // stable: keys keep their first-seen order within an index
  return merged.map((i, n) => [i, n] as const).sort((a, b) => a[0].index - b[0].index || a[1] - b[1]).map(([i]) => i)
}

// ---------------------------------------------------------------------------------------------

const sumRecords = (records: ReadonlyArray<Readonly<Record<string, number>> | undefined>): Record<string, number> => {
  const out: Record<string, number> = {}
  for (const r of records) for (const [k, v] of Object.entries(r ?? {})) out[k] = (out[k] ?? 0) + v
  return out
}

const sumExecutors = (all: ReadonlyArray<ExecutorReport>): ExecutorReport => {
  const sum = (f: (e: ExecutorReport) => number) => all.reduce((a, e) => a + f(e), 0)
  const first = all[0]!
  return {
    ...first,
    planned: all.some((e) => e.planned !== undefined) ? sum((e) => e.planned ?? 0) : undefined,
    started: sum((e) => e.started),
    completed: sum((e) => e.completed),
    errors: sum((e) => e.errors),
    dropped: sum((e) => e.dropped),
    interrupted: sum((e) => e.interrupted),
    lateStarts: sum((e) => e.lateStarts),
    maxLatenessMs: Math.max(...all.map((e) => e.maxLatenessMs)),
    startedAtMs: Math.min(...all.map((e) => e.startedAtMs)),
    endedAtMs: Math.max(...all.map((e) => e.endedAtMs))
  }
}

const sumInformers = (all: ReadonlyArray<InformerReport>): InformerReport => {
  const sum = (f: (r: InformerReport) => number) => all.reduce((a, r) => a + f(r), 0)
  return {
    count: sum((r) => r.count),
    synced: sum((r) => r.synced),
    relists: sum((r) => r.relists),
    expiredContinue: sum((r) => r.expiredContinue),
    expired: { watchHttp: sum((r) => r.expired.watchHttp), watchStream: sum((r) => r.expired.watchStream), list: sum((r) => r.expired.list) },
    rewatches: sum((r) => r.rewatches),
    events: sum((r) => r.events),
    listFailures: sum((r) => r.listFailures),
    triggers: sumRecords(all.map((r) => r.triggers)),
    // a worker whose requests all succeeded has none recorded: the rate over the others' is the higher, never the lower
    ...failedReflectorRequests(sum((r) => r.requests ?? 0), sum((r) => r.failedRequests ?? 0))
  }
}

/** One report per (phase, action), summed over the workers that ran it, in the coordinator's order first. */
export const mergeActions = (perWorker: ReadonlyArray<ReadonlyArray<ActionReport>>): Array<ActionReport> => {
  const byAction = new Map<string, Array<ActionReport>>()
  for (const list of perWorker) for (const a of list) byAction.set(`${a.phase}\u0000${a.action}`, [...(byAction.get(`${a.phase}\u0000${a.action}`) ?? []), a])
  return Array.from(byAction.values(), (same) => {
    const executors = same.flatMap((a) => (a.executor ? [a.executor] : []))
    const informers = same.flatMap((a) => (a.informers ? [a.informers] : []))
    const counts = same.some((a) => a.counts) ? sumRecords(same.map((a) => a.counts)) : undefined
    return {
      phase: same[0]!.phase,
      action: same[0]!.action,
      type: same[0]!.type,
      ...(executors.length > 0 ? { executor: sumExecutors(executors) } : {}),
      ...(counts ? { counts } : {}),
      ...(informers.length > 0 ? { informers: sumInformers(informers) } : {}),
      // token recovery is observed by the coordinator's clients only
      ...(same[0]!.tokens ? { tokens: same[0]!.tokens } : {})
    }
  })
}

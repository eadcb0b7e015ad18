/**
 * The terminal summary of a run, rendered from the artifact alone (so `run.json` files can be
 * re-rendered later): one row per metric key, relists, threshold verdicts, generator health.
 */
import type { ThresholdResult } from "../src/loadgen/Thresholds.js"
import { type ArtifactSeries, processExitCode, type RunArtifact, type SegmentSpread } from "../src/loadgen/Artifact.js"
import { segmentText } from "../src/loadgen/ExecutionSegment.js"
import { shownSummary } from "../src/loadgen/ShownPercentile.js"
import { apfReading, type ApfContext, levelLine, workloadTooManyRequests } from "./apfReading.js"
import { readyNodesFigures, type ReadyTimeline } from "./clusterSeries.js"
import { clockText as clock, formatMs, plural } from "./format.js"
import { renderImagePulls } from "./imagePullsText.js"
import { renderReplays } from "./replayText.js"
import { renderServerSide } from "./serverSide.js"

export { formatMs } from "./format.js"

/** `api_call LIST configmaps namespace`, then the action's tags `steady/list-paged` when it has them. */
export const seriesLabel = (s: Pick<ArtifactSeries, "key">): string => {
  const base = `${s.key.metric} ${s.key.operation} ${s.key.resource} ${s.key.scope}`
  const tags = [s.key.phase, s.key.name].filter((t) => t !== undefined && t !== "").join("/")
  return tags === "" ? base : `${base} ${tags}`
}

/** Metrics whose threshold values are durations in ms (`count` of them is a number). */
const durationMetrics = new Set(["latency", "service_time"])

/** `not_ready_nodes: count == 5 (observed 4`: a threshold, its condition and what was observed (the summary closes it). */
const thresholdRow = (t: ThresholdResult): string => `${t.threshold}${groupText(t.group)}: ${t.condition} (observed ${observedText(t)}`

/** `not_ready_nodes: count == 5 (observed 4)`: one threshold as the summary lists it. */
export const thresholdText = (t: ThresholdResult): string => `${thresholdRow(t)})`

/** The observed value of a threshold result with its unit: `38.975 ms`, `1.204 s`, `0.667`, `12`. */
export const observedText = (t: Pick<ThresholdResult, "threshold" | "condition" | "observed" | "unit">): string => {
  if (t.observed === undefined) return "no data"
  // v1 artifacts carry no unit: judge by the metric name
  const metric = /^\s*([^{\s]+)/.exec(t.threshold)?.[1] ?? ""
  const isDuration = t.unit === "ms" || (durationMetrics.has(metric) && !/^\s*count\b/i.test(t.condition))
  if (isDuration) return t.observed >= 1000 ? `${(t.observed / 1000).toFixed(3)} s` : `${t.observed.toFixed(3)} ms`
  if (t.unit === "/s") return `${t.observed.toFixed(3)}/s`
  return Number.isInteger(t.observed) ? String(t.observed) : t.observed.toFixed(3)
}

/**
 * A segment's thresholds are the run's, judged once on the merged figures (docs/distributed.md "One result"): its own
 * summary and reports show its share's values without a verdict on them, and end as the process does.
 */
export const judgedAtMerge = "judged at merge, on the whole run"
export const segmentThresholdsNote = `${judgedAtMerge}; this segment's share observed`

/** Whether the artifact is a segment's that ran to its end: its thresholds await the merge. */
const segmentDone = (a: RunArtifact): boolean => a.segment !== undefined && (a.outcome === "pass" || a.outcome === "thresholds-breached")

/** The last line's words for how the run ended (without the exit code). */
export const verdictText = (a: RunArtifact): string =>
  segmentDone(a)
    ? `SEGMENT ${segmentText(a.segment!)} DONE: thresholds are ${judgedAtMerge}: clustersim merge`
    : {
        pass: "PASS",
        "thresholds-breached": "FAIL: thresholds breached",
        "run-error": `RUN ERROR${a.runError ? `: ${a.runError}` : ""}`,
        interrupted: "INTERRUPTED: partial results"
      }[a.outcome]

/** The last line: how the run ended and the process's exit code. */
export const verdictLine = (a: RunArtifact): string => `${verdictText(a)} (exit ${processExitCode(a)})`

const pad = (s: string, n: number, right = false): string => (right ? s.padStart(n) : s.padEnd(n))

/** Rows of cells → aligned text; the first row is the header, numbers right-aligned. */
export const table = (rows: ReadonlyArray<ReadonlyArray<string>>, leftColumns = 1): string => {
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)))
  return rows.map((r) => r.map((cell, c) => pad(cell, widths[c]!, c >= leftColumns)).join("  ").trimEnd()).join("\n")
}

/** After an `expire-tokens` step: each client's 401s, time to the first 401 and to recovery, requests lost. */
export const renderTokenRecovery = (actions: RunArtifact["actions"]): Array<string> => {
  const observed = actions.filter((x) => x.tokens !== undefined)
  if (observed.length === 0) return []
  return [
    "expired tokens (times from the expiry):",
    ...observed.map((x) => {
      const t = x.tokens!
      if (t.firstUnauthorizedMs === undefined) return `  ${x.phase}/${x.action}: no 401 (not affected)`
      const recovered = t.recoveredMs !== undefined ? `recovered after ${formatMs(t.recoveredMs)}` : "NOT RECOVERED"
      return `  ${x.phase}/${x.action}: ${t.unauthorized}× 401, first after ${formatMs(t.firstUnauthorizedMs)}, ${recovered}, ${plural(t.lost, "request")} lost`
    })
  ]
}

const groupText = (g: Readonly<Record<string, string | undefined>>): string => {
  const parts = Object.entries(g).filter(([, v]) => v !== undefined).map(([k, v]) => `${k}=${v}`)
  return parts.length === 0 ? "" : ` [${parts.join(",")}]`
}

/** The parts of a simulated-cluster result the summary shows (`ClusterResult`, read from the artifact). */
interface ClusterView {
  readonly nodes: number
  readonly pods: number
  readonly durationMs: number
  readonly heartbeats: { readonly leaseWrites: number; readonly perSecond: number; readonly failedAttempts: number }
  readonly nodeStatus: { readonly checks: number; readonly patches: number }
  readonly leaseRenewLatency: { readonly p50: number; readonly p99: number }
  readonly readyTimeline: ReadyTimeline
  readonly taints: ReadonlyArray<unknown>
  readonly podDeletions: ReadonlyArray<unknown>
  readonly evictions?: ReadonlyArray<unknown>
  readonly events: { readonly byReason: Readonly<Record<string, number>> }
  readonly wall?: { readonly ms: number; readonly virtualPerReal: number }
  readonly serverModel?: {
    readonly parameters: Readonly<Record<string, number | boolean>>
    readonly priorityLevels?: Readonly<Record<string, Parameters<typeof levelLine>[1]>>
    readonly givenUp?: number
    readonly relistMemory?: {
      readonly peakBytes: number
      readonly peakAtMs: number
      readonly atPeak: { readonly lists: number; readonly watchLists: number }
      readonly lists: { readonly count: number }
      readonly watchLists: { readonly count: number }
    }
  }
  /** Pods written Running by the node agents (absent in older artifacts). */
  readonly podStatusWrites?: number
  readonly images?: Parameters<typeof renderImagePulls>[0]
  /** A run on the real clock against a target (simulator/cluster/RealTimeCluster.ts). */
  readonly realTime?: {
    readonly driver: { readonly cpu: { readonly fractionOfCore: number }; readonly cpuMsPer1000Nodes: number; readonly loopLag: { readonly p99: number }; readonly saturated: boolean; readonly reasons: ReadonlyArray<string> }
    readonly statusLatency: { readonly count: number; readonly p50: number; readonly p99: number }
    readonly errorsByCode: Readonly<Record<string, number>>
    readonly adopted: number
    readonly foreignNodes: ReadonlyArray<string>
    readonly podStartup?: { readonly observedRunning: number; readonly createToObserved: { readonly p50: number; readonly p99: number } }
    readonly cleanup: { readonly left: { readonly nodes: number; readonly leases: number; readonly pods: number }; readonly deleted: boolean }
  }
}


/**
 * The pods of a cluster run: those placed on the nodes at the start (`podsPerNode`) and those started Running, which
 * include the pods a scheduler bound during the run.
 */
export const podsText = (seeded: number, started: number | undefined): string => {
  if (started === undefined || started === seeded) return started === undefined || seeded === 0 ? plural(seeded, "pod") : `${plural(seeded, "pod")}, all started`
  if (seeded === 0) return `${plural(started, "pod")} started (none placed at the start: bound during the run)`
  if (started > seeded) return `${plural(started, "pod")} started (${seeded} placed at the start, ${started - seeded} bound during the run)`
  return `${plural(seeded, "pod")}, ${started} started`
}

/** A simulated cluster's run in a few lines: scale, heartbeats, status, Ready nodes and changes, taints, deletions, events, image pulls, APF. */
export const renderCluster = (raw: Readonly<Record<string, unknown>>, context?: Omit<ApfContext, "givenUp">): ReadonlyArray<string> => {
  const c = raw as unknown as ClusterView
  const out: Array<string> = []
  const wall = c.wall ? ` in ${formatMs(c.wall.ms)} (${c.wall.virtualPerReal.toFixed(0)}× real time)` : ""
  const rt = c.realTime
  const scale = `${plural(c.nodes, "node")}, ${podsText(c.pods, c.podStatusWrites)}`
  if (rt === undefined) out.push(`simulated cluster: ${scale}, ${clock(c.durationMs)} of virtual time${wall}`)
  else {
    out.push(`simulated nodes on the real clock: ${scale}, ${clock(c.durationMs)}`)
    const d = rt.driver
    out.push(
      `  driver: ${(d.cpu.fractionOfCore * 100).toFixed(0)} % of a core, ${(d.cpuMsPer1000Nodes / 1000).toFixed(1)} CPU-s per 1,000 nodes, loop lag p99 ${formatMs(d.loopLag.p99)}` +
        (d.saturated ? ` — SATURATED (${d.reasons.join("; ")}): figures measure the driver` : "")
    )
    const errors = Object.entries(rt.errorsByCode)
    const statusLatency = rt.statusLatency.count === 0 ? "no status patches" : `status patch latency p50 ${formatMs(rt.statusLatency.p50)}, p99 ${formatMs(rt.statusLatency.p99)}`
    out.push(`  ${statusLatency}; failed requests: ${errors.length === 0 ? "none" : errors.map(([code, n]) => `${code} ×${n}`).join(", ")}`)
    if (rt.podStartup) out.push(`  pod start-up (create → observed Running): ${plural(rt.podStartup.observedRunning, "pod")}, p50 ${formatMs(rt.podStartup.createToObserved.p50)}, p99 ${formatMs(rt.podStartup.createToObserved.p99)}`)
    if (rt.adopted > 0 || rt.foreignNodes.length > 0) out.push(`  adopted ${plural(rt.adopted, "node")}; left alone (not clustersim's): ${rt.foreignNodes.length === 0 ? "none" : rt.foreignNodes.slice(0, 5).join(", ")}`)
    const left = rt.cleanup.left
    out.push(`  ${rt.cleanup.deleted ? "cleaned up" : "left on the target"}: ${plural(left.nodes, "node")}, ${plural(left.leases, "lease")}, ${plural(left.pods, "pod")}${rt.cleanup.deleted ? " remain" : ""}`)
  }
  // a simulated run's latencies come from the service-time model, not from the host (docs/apf.md)
  const modelled = c.serverModel !== undefined ? " (modelled)" : ""
  out.push(
    `  leases: ${c.heartbeats.leaseWrites} writes (${c.heartbeats.perSecond.toFixed(1)}/s), ${c.heartbeats.failedAttempts} failed attempts; ` +
      `renew latency${modelled} p50 ${formatMs(c.leaseRenewLatency.p50)}, p99 ${formatMs(c.leaseRenewLatency.p99)}`
  )
  out.push(`  node status: ${c.nodeStatus.checks} checks, ${c.nodeStatus.patches} patches`)
  const ready = readyNodesFigures(c.readyTimeline)
  if (ready !== undefined)
    out.push(
      `  Ready nodes: ${ready.atEnd} of ${c.nodes} at the end` +
        (ready.fewest ? `, fewest ${ready.fewest.count} at ${clock(ready.fewest.atMs)}` : ready.peak === c.nodes ? ", no node left Ready" : `, at most ${ready.peak}`)
    )
  const changed = Object.entries(c.readyTimeline).filter(([, t]) => t.length > 1)
  for (const [node, t] of changed.slice(0, 10))
    out.push(`  ${node}: Ready ${t.map(([at, status]) => `${status}@${clock(at)}`).join(" → ")}`)
  if (changed.length > 10) out.push(`  … ${changed.length - 10} more nodes changed Ready`)
  out.push(`  taint changes: ${c.taints.length}   pod deletions: ${c.podDeletions.length}   evictions: ${c.evictions?.length ?? 0}`)
  const reasons = Object.entries(c.events.byReason).sort(([a], [b]) => a.localeCompare(b))
  if (reasons.length > 0) out.push(`  events: ${reasons.map(([r, n]) => `${r} ${n}`).join(", ")}`)
  if (c.images !== undefined) out.push(...renderImagePulls(c.images))
  if (c.serverModel !== undefined) {
    const p = c.serverModel.parameters
    out.push(
      `  server model (latencies are modelled, not measured): read ${p.readBaseMs} ms, write ${p.writeBaseMs} ms, ${p.perObjectMs} ms/object, ${p.perKiBMs} ms/KiB, ` +
        (p.sharedSeats !== undefined ? `${p.sharedSeats} seats shared by reads and writes` : `${p.maxRequestsInflight} + ${p.maxMutatingRequestsInflight} inflight`) +
        `, APF ${p.apf ? "on" : "off"}` +
        (p.readDispersion !== undefined || p.writeDispersion !== undefined ? `, p99 ÷ p50 read ${p.readDispersion ?? 1} write ${p.writeDispersion ?? 1}` : "")
    )
    const levels = c.serverModel.priorityLevels ?? {}
    for (const [name, l] of Object.entries(levels)) {
      if (l.dispatched === 0 && l.rejected === 0) continue
      out.push(`    ${levelLine(name, l)}`)
    }
    const reading = apfReading(levels, { workload429s: context?.workload429s ?? 0, givenUp: c.serverModel.givenUp ?? 0, ...(context?.outcome ? { outcome: context.outcome } : {}) })
    if (reading !== undefined) out.push(`  ${reading}`)
    const m = c.serverModel.relistMemory
    if (m !== undefined) {
      out.push(
        `  relist server memory (modelled): peak ${(m.peakBytes / 1048576).toFixed(1)} MiB at ${formatMs(m.peakAtMs)} ` +
          `(${m.atPeak.lists} LISTs, ${m.atPeak.watchLists} WatchLists in flight); ${m.lists.count} LISTs, ${m.watchLists.count} WatchLists in the run`
      )
    }
  }
  return out
}

interface SectionsView {
  readonly scheduler?: {
    readonly podsCreated: number
    readonly binds: number
    /** Absent in artifacts before they were counted apart: then `binds` counts every pod bound. */
    readonly podsBound?: number
    readonly otherPodsBound?: number
    readonly leaseTransitions: number
    readonly failover?: { readonly killedAtMs: number; readonly beforeAnyLeader?: true; readonly leaderLostToNewLeaderMs?: number; readonly newLeaderToFirstBindMs?: number }
  }
  readonly eviction?: { readonly evictions: ReadonlyArray<{ readonly atMs: number; readonly pod: string; readonly signal: string }> }
}

/** The `scheduler:` and `eviction:` sections' results: binds and failover time, evictions. */
export const renderSections = (raw: Readonly<Record<string, unknown>>): ReadonlyArray<string> => {
  const out: Array<string> = []
  // a section the run stopped before it reported (Ctrl-C, or a failure inside it) is `{ finished: false, error? }`
  const unfinished = Object.entries(raw).filter(([, v]) => (v as { finished?: unknown } | undefined)?.finished === false)
  for (const [name, v] of unfinished) out.push(`${name}: did not finish${(v as { error?: string }).error ? ` (${(v as { error?: string }).error})` : ""}`)
  const s = Object.fromEntries(Object.entries(raw).filter(([name]) => !unfinished.some(([n]) => n === name))) as SectionsView
  if (s.scheduler) {
    const f = s.scheduler.failover
    const sc = s.scheduler
    const own = sc.podsBound ?? Math.min(sc.binds, sc.podsCreated)
    const others = sc.otherPodsBound ?? Math.max(0, sc.binds - sc.podsCreated)
    // the scheduler binds every pod without a node it sees: a user's or the load's pods count apart from the section's
    out.push(
      `scheduler: bound ${own} of the ${plural(sc.podsCreated, "pod")} it created` +
        (others > 0 ? ` and ${plural(others, "pod")} created by others` : "") +
        (typeof sc.leaseTransitions === "number" ? `, ${plural(sc.leaseTransitions, "leader transition")}` : "")
    )
    if (f)
      out.push(
        (f.beforeAnyLeader ? `  failover: a replica killed at ${clock(f.killedAtMs)}, before any replica led (no leader lost), ` : `  failover: leader killed at ${clock(f.killedAtMs)}, `) +
          (f.leaderLostToNewLeaderMs === undefined
            ? f.beforeAnyLeader ? "no leader by the end" : "no new leader by the end"
            : `${f.beforeAnyLeader ? "first leader" : "new leader"} after ${formatMs(f.leaderLostToNewLeaderMs)}, ` +
              (f.newLeaderToFirstBindMs === undefined ? "no bind by it" : f.newLeaderToFirstBindMs === 0 ? "its first bind at once" : `its first bind ${formatMs(f.newLeaderToFirstBindMs)} later`))
      )
  }
  if (s.eviction) {
    out.push(`eviction: ${plural(s.eviction.evictions.length, "pod")} evicted`)
    for (const e of s.eviction.evictions) out.push(`  ${clock(e.atMs)} ${e.pod} (${e.signal})`)
  }
  return out
}

export const renderSummary = (a: RunArtifact): string => {
  const out: Array<string> = []
  const target = a.target.url ? `${a.target.kind} ${a.target.url}` : a.target.kind
  out.push(`clustersim run ${a.scenario.name} — target ${target}${a.target.version ? ` (${a.target.version})` : ""}, seed ${a.seed}, ${formatMs(a.durationMs)}${a.partial ? " (PARTIAL)" : ""}`)
  out.push("")
  const rows: Array<Array<string>> = [["metric", "model", "count", "p50", "p90", "p99", "max", "errors", "dropped"]]
  const sorted = [...a.series].sort((x, y) => seriesLabel(x).localeCompare(seriesLabel(y)))
  for (const s of sorted) {
    const latency = shownSummary(s.latency)
    rows.push([
      seriesLabel(s),
      s.models.join("+") || "-",
      String(s.count),
      formatMs(latency.p50),
      formatMs(latency.p90),
      formatMs(latency.p99),
      formatMs(latency.max),
      s.connectionErrors ? `${s.errors} (${s.connectionErrors} no answer)` : String(s.errors),
      String(s.dropped)
    ])
  }
  if (a.cluster) out.push(...renderCluster(a.cluster, { workload429s: workloadTooManyRequests(a), outcome: a.outcome }), "")
  if (a.sections) out.push(...renderSections(a.sections), "")
  if (rows.length > 1 || (!a.cluster && !a.sections)) {
    out.push(rows.length > 1 ? table(rows, 2) : "(no samples)")
    out.push("")
    out.push(`latency is measured from the intended start (open model); closed-model series under-sample stalls`)
  }
  const server = renderServerSide(a)
  if (server.length > 0) out.push(...server, "")
  out.push(`relists: ${a.relists}   errors: ${a.errors.total}`)
  out.push(...renderTokenRecovery(a.actions))
  out.push(...renderReplays(a.actions))
  for (const e of a.errors.messages.slice(0, 5)) out.push(`  ${e.count}× ${e.message}`)
  if (a.health) {
    const h = a.health
    out.push(
      `generator${h.workers ? ` (${h.workers.length} workers, the busiest shown)` : ""}: loop lag p99 ${formatMs(h.loopLag.p99)}, CPU ${(h.cpu.fractionOfCore * 100).toFixed(0)}% of a core` +
        (h.saturated
          ? ` — SATURATED (${h.reasons.join("; ")}): results may reflect the generator, not the target`
          : " — within its limits: the latencies are the target's")
    )
  }
  if (a.segments) out.push(...renderSegments(a.segments))
  if (a.segment) {
    // a segment that failed before the common start (startAtMs 0) has no start to name
    const began = a.segment.startAtMs > 0 ? ` of a run that began at ${new Date(a.segment.startAtMs).toISOString()} (${formatMs(a.segment.startLagMs)} late)` : ""
    out.push(`segment ${segmentText(a.segment)}${began}: merge the segments with clustersim merge`)
  }
  if (a.thresholds.length > 0) {
    out.push("")
    out.push(a.segment !== undefined ? `thresholds (${segmentThresholdsNote}):` : "thresholds:")
    for (const t of a.thresholds) {
      const row = thresholdRow(t)
      // a pass on no data is the scenario's `allowNoData: true` (docs/scenarios.md): say so beside the ✓
      const allowed = t.noData && t.passed ? ", allowed" : ""
      out.push(a.segment !== undefined ? `  - ${row})` : `  ${t.passed ? "✓" : "✗"} ${row}${allowed})`)
    }
  }
  out.push("")
  out.push(verdictLine(a))
  return out.join("\n")
}

/** A merged run's segments side by side: one slow or saturated generator shows in its row. */
const renderSegments = (segments: ReadonlyArray<SegmentSpread>): Array<string> => {
  const rows = [["segment", "outcome", "requests", "errors", "p50", "p99", "start lag", "generator"]]
  for (const s of segments) {
    rows.push([
      segmentText(s),
      // how the segment ended: its share's thresholds are no verdict, the merged run's below is
      s.outcome === "pass" || s.outcome === "thresholds-breached" ? "completed" : s.outcome,
      String(s.requests),
      String(s.errors),
      s.p50Ms !== undefined ? formatMs(s.p50Ms) : "-",
      s.p99Ms !== undefined ? formatMs(s.p99Ms) : "-",
      s.startLagMs !== undefined ? formatMs(s.startLagMs) : "-",
      s.saturated === undefined ? "-" : s.saturated ? "SATURATED" : "ok"
    ])
  }
  return ["", `segments (${segments.length}, merged):`, table(rows, 2)]
}

/** The run's last lines: where its files are (`report:` first, the file a person opens). */
export const renderOutputFiles = (files: { readonly runJson?: string; readonly html?: string; readonly junit?: string }): string =>
  [
    ...(files.html !== undefined ? [`report: ${files.html}`] : []),
    ...(files.runJson !== undefined ? [`artifact: ${files.runJson}`] : []),
    ...(files.junit !== undefined ? [`junit: ${files.junit}`] : [])
  ]
    .map((l) => l + "\n")
    .join("")

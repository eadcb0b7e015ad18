/**
 * The HTML report: one self-contained file per run (`report.html`) and per comparison (`compare.html`), on the page
 * of ./htmlPage.ts (uPlot inlined, so it opens with no network). Plots: latency over time per series
 * (p99, gaps left open) with phase and fault markers; throughput, errors and dropped iterations; the HDR
 * percentile spectrum on a log axis of 1/(1−p) like HdrHistogram's plotter; for simulated clusters a
 * timeline of Ready changes, taints, deletions, evictions, leader changes and faults. Comparisons overlay
 * the sides' spectra per series. Rendered from the artifact alone, so `report run.json --html` re-renders.
 */
import * as hdr from "hdr-histogram-js"
import { parse as parseYaml } from "yaml"
import type { Comparison, Side } from "../src/compare/Compare.js"
import { formatRatioInterval, keyLabel } from "../src/compare/Compare.js"
import { keyString } from "../src/loadgen/LatencyRecorder.js"
import { processExitCode, type RunArtifact } from "../src/loadgen/Artifact.js"
import { shownPercentile, shownSummary } from "../src/loadgen/ShownPercentile.js"
import { errorRateText, failedRoundsText, renderComparison, saturationText } from "./compareText.js"
import { whatIfHtml } from "./compareWhatIfHtml.js"
import { modelledNote, serverModelOf, serverModelSection } from "./serverModelHtml.js"
import { formatMs, observedText, renderSummary, segmentThresholdsNote, seriesLabel, verdictText } from "./summary.js"
import { leaseColumns, readyNodesOverTime, type ReadyTimeline } from "./clusterSeries.js"
import { seriesStyle, type SeriesStyle } from "./palette.js"
import { workloadTooManyRequests } from "./apfReading.js"
import { pullEventReasons, pullOutcomes } from "./imagePullsText.js"
import { clockText } from "./format.js"
import type { ImagePullsResult } from "../simulator/nodeagent/images/ImagePulls.js"
import type { LeaseTimelineResult } from "../simulator/nodeagent/LeaseTimeline.js"
import { bucketNote, bucketText, serverRows, serverSourceText, unreadPhases } from "./serverSide.js"
import { callLabel } from "../src/loadgen/ServerLatency.js"
import { escapeHtml, page } from "./htmlPage.js"

// ---------------------------------------------------------------------------------------------
// Data for the plots (pure)
// ---------------------------------------------------------------------------------------------

/** Percentiles of the spectrum: x = 1/(1−p) from 1 (p0) to 10^5 (p99.999), 8 steps a decade. */
const spectrumX = Array.from({ length: 41 }, (_, k) => Math.pow(10, k / 8))

interface Histo {
  readonly totalCount: number
  readonly maxValue: number
  getValueAtPercentile(p: number): number
}
const decode = (base64s: ReadonlyArray<string>): Histo => {
  const hs = base64s.map((b) => hdr.decodeFromCompressedBase64(b, 64, false))
  const [first, ...rest] = hs
  if (!first) return { totalCount: 0, maxValue: 0, getValueAtPercentile: () => 0 }
  for (const h of rest) if (h.totalCount > 0) first.add(h)
  return first
}

/**
 * The spectrum of a histogram on `spectrumX` (ms); null past the resolution its count allows. `maxMs`: the recorded
 * max of the series it was decoded from (the stored summary's), which no point passes (src/loadgen/ShownPercentile.ts).
 */
export const spectrum = (base64s: ReadonlyArray<string>, maxMs = Infinity): Array<number | null> => {
  const h = decode(base64s)
  return spectrumX.map((x, k) => {
    if (h.totalCount === 0 || (k > 0 && x > h.totalCount)) return null
    const p = 100 * (1 - 1 / x)
    return shownPercentile(h.getValueAtPercentile(p) / 1000, maxMs)
  })
}

export interface Marker {
  readonly t: number
  readonly label: string
  readonly kind: "phase" | "fault"
}

/** Phase spans from the tagged intervals; failure steps at their phase start + `at` (from the scenario text). */
export const markersOf = (a: RunArtifact): ReadonlyArray<Marker> => {
  const starts = new Map<string, number>()
  for (const iv of a.intervals) {
    const p = iv.key.phase
    if (p === undefined) continue
    starts.set(p, Math.min(starts.get(p) ?? Infinity, iv.startMs / 1000))
  }
  const out: Array<Marker> = [...starts].map(([phase, t]) => ({ t, label: phase, kind: "phase" as const }))
  try {
    const doc = parseYaml(a.scenario.text) as { phases?: Array<{ name?: string; actions?: Array<{ type?: string; at?: string; name?: string }> }> } | null
    for (const phase of doc?.phases ?? []) {
      const start = starts.get(String(phase.name))
      if (start === undefined) continue
      for (const action of phase.actions ?? []) {
        if (!["compact", "drop-watches", "pause", "expire-continue-token"].includes(String(action.type))) continue
        const at = parseSeconds(action.at)
        out.push({ t: start + at, label: String(action.name ?? action.type), kind: "fault" })
      }
    }
  } catch {
    // the scenario text is informative here; a run.json without it still renders
  }
  return out.sort((x, y) => x.t - y.t)
}

const parseSeconds = (d: string | undefined): number => {
  if (!d) return 0
  let total = 0
  for (const m of d.matchAll(/([0-9.]+)(ms|h|m|s)/g)) total += Number(m[1]) * ({ ms: 0.001, s: 1, m: 60, h: 3600 } as Record<string, number>)[m[2]!]!
  return total
}

export interface TimeSeries {
  readonly x: ReadonlyArray<number>
  readonly series: ReadonlyArray<{
    readonly label: string
    readonly p99: ReadonlyArray<number | null>
    readonly p50: ReadonlyArray<number | null>
    /** Operations answered without an error, per second: a failure (an error answer, no answer) is not throughput. */
    readonly succeeded: ReadonlyArray<number | null>
    readonly errors: ReadonlyArray<number | null>
    readonly dropped: ReadonlyArray<number | null>
  }>
}

/** Every series on one grid of intervals; an interval without samples is null (a gap, not a line). */
export const timeSeriesOf = (a: RunArtifact): TimeSeries => {
  const step = a.intervalMs / 1000
  const maxIndex = a.intervals.reduce((m, iv) => Math.max(m, iv.index), -1)
  // the intervals' starts, then the last one's end (no samples there): the x axis spans the run, where uPlot would
  // give a single interval an axis of 0–100 s and end a run's axis at its last interval's start
  const starts = Array.from({ length: maxIndex + 1 }, (_, i) => i * step)
  const end = a.intervals.reduce((m, iv) => Math.max(m, iv.endMs / 1000), (maxIndex + 1) * step)
  const x = maxIndex < 0 ? starts : [...starts, end]
  const byKey = new Map<string, { label: string; rows: Map<number, (typeof a.intervals)[number]> }>()
  for (const iv of a.intervals) {
    const id = keyString(iv.key)
    const entry = byKey.get(id) ?? { label: seriesLabel(iv), rows: new Map() }
    entry.rows.set(iv.index, iv)
    byKey.set(id, entry)
  }
  const series = [...byKey.values()]
    .sort((p, q) => p.label.localeCompare(q.label))
    .map(({ label, rows }) => {
      const col = (f: (iv: (typeof a.intervals)[number]) => number | null) => x.map((_, i) => (rows.has(i) ? f(rows.get(i)!) : null))
      return {
        label,
        p99: col((iv) => (iv.latency.count > 0 ? shownSummary(iv.latency).p99 : null)),
        p50: col((iv) => (iv.latency.count > 0 ? shownSummary(iv.latency).p50 : null)),
        // ended (answered, or given up without an answer) less failed; the failures are the errors chart's
        succeeded: col((iv) => Math.max(0, iv.latency.count + (iv.connectionErrors ?? 0) - iv.errors) / step),
        errors: col((iv) => iv.errors),
        dropped: col((iv) => iv.dropped)
      }
    })
  return { x, series }
}

export interface Timeline {
  /** The run's span (s): the x axis covers it whole, not only the events' span. */
  readonly end: number
  readonly lanes: ReadonlyArray<string>
  readonly events: ReadonlyArray<{ readonly t: number; readonly lane: number; readonly label: string }>
}

/** A simulated cluster's changes as points on lanes (seconds of virtual time). */
export const timelineOf = (a: RunArtifact): Timeline | undefined => {
  const c = a.cluster as
    | {
        readyTimeline?: Record<string, ReadonlyArray<readonly [number, string, string]>>
        taints?: ReadonlyArray<{ t: number; node: string; op: string; key: string; effect: string }>
        podDeletions?: ReadonlyArray<{ t: number; pod: string; node: string }>
        evictions?: ReadonlyArray<{ atMs?: number; t?: number; pod: string; signal?: string }>
        events?: { list?: ReadonlyArray<{ t: number; reason: string; object: string; note: string }> }
        faults?: ReadonlyArray<{ type: string; at: number; for?: number; nodes?: ReadonlyArray<string> }>
      }
    | undefined
  const s = a.sections as { scheduler?: { failover?: { killedAtMs: number; leaderLostToNewLeaderMs?: number } } } | undefined
  if (!c && !s?.scheduler?.failover) return undefined
  const lanes = ["Ready changes", "taints", "pod deletions", "evictions", "leader changes", "faults"]
  const events: Array<{ t: number; lane: number; label: string }> = []
  for (const [node, changes] of Object.entries(c?.readyTimeline ?? {}))
    changes.forEach(([t, status, reason], i) => {
      if (i > 0) events.push({ t: t / 1000, lane: 0, label: `${node} Ready=${status} (${reason})` })
    })
  for (const t of c?.taints ?? []) events.push({ t: t.t / 1000, lane: 1, label: `${t.op} ${t.key}:${t.effect} on ${t.node}` })
  for (const d of c?.podDeletions ?? []) events.push({ t: d.t / 1000, lane: 2, label: `delete ${d.pod} (${d.node})` })
  for (const e of c?.evictions ?? []) events.push({ t: (e.atMs ?? e.t ?? 0) / 1000, lane: 3, label: `evict ${e.pod}${e.signal ? ` (${e.signal})` : ""}` })
  for (const e of c?.events?.list ?? []) if (/leader/i.test(e.reason)) events.push({ t: e.t / 1000, lane: 4, label: `${e.reason} ${e.object}: ${e.note}` })
  const f = s?.scheduler?.failover
  if (f) {
    events.push({ t: f.killedAtMs / 1000, lane: 5, label: "scheduler leader killed" })
    if (f.leaderLostToNewLeaderMs !== undefined) events.push({ t: (f.killedAtMs + f.leaderLostToNewLeaderMs) / 1000, lane: 4, label: "new scheduler leader" })
  }
  for (const fault of c?.faults ?? [])
    events.push({ t: fault.at / 1000, lane: 5, label: `${fault.type}${fault.for ? ` for ${fault.for / 1000}s` : ""}${fault.nodes ? ` (${fault.nodes.length} nodes)` : ""}` })
  const end = Math.max((c as { durationMs?: number } | undefined)?.durationMs ?? 0, a.durationMs) / 1000
  return { end, lanes, events: events.sort((p, q) => p.t - q.t) }
}

export interface ClusterCharts {
  /** Node lease writes and renew latency per interval (seconds from the start). */
  readonly lease?: ReturnType<typeof leaseColumns>
  /** Ready nodes as steps: x (s) and count from then on. */
  readonly ready?: { readonly x: ReadonlyArray<number>; readonly y: ReadonlyArray<number> }
  /** Faults, marked on these charts. */
  readonly markers: ReadonlyArray<Marker>
  readonly modelled: boolean
}

/** A cluster run's charts over time: what its thresholds judge (lease renew latency, lease writes, Ready nodes). */
export const clusterChartsOf = (a: RunArtifact): ClusterCharts | undefined => {
  const c = a.cluster as
    | {
        durationMs?: number
        leaseTimeline?: LeaseTimelineResult
        readyTimeline?: ReadyTimeline
        faults?: ReadonlyArray<{ type: string; at: number }>
        serverModel?: unknown
      }
    | undefined
  if (c === undefined) return undefined
  const steps = readyNodesOverTime(c.readyTimeline ?? {})
  const end = (c.durationMs ?? 0) / 1000
  let ready: ClusterCharts["ready"]
  if (steps.length > 0) {
    const x = steps.map(([t]) => t / 1000)
    const y = steps.map(([, n]) => n)
    // from the start (none Ready yet) to the end (the last count held)
    if (x[0]! > 0) x.unshift(0), y.unshift(0)
    if (end > x[x.length - 1]!) x.push(end), y.push(y[y.length - 1]!)
    ready = { x, y }
  }
  const lease = c.leaseTimeline !== undefined && c.leaseTimeline.writes.length > 0 ? leaseColumns(c.leaseTimeline) : undefined
  if (lease === undefined && ready === undefined) return undefined
  return {
    ...(lease ? { lease } : {}),
    ...(ready ? { ready } : {}),
    markers: (c.faults ?? []).map((f) => ({ t: f.at / 1000, label: f.type, kind: "fault" as const })),
    modelled: c.serverModel !== undefined
  }
}

/** Each series' style by label: the same colour and dash in every chart and in the legend (./palette.ts). */
export const seriesStylesOf = (labels: ReadonlyArray<string>): Record<string, SeriesStyle> => {
  const out: Record<string, SeriesStyle> = {}
  for (const label of labels) if (out[label] === undefined) out[label] = seriesStyle(Object.keys(out).length)
  return out
}

// ---------------------------------------------------------------------------------------------
// Page
// ---------------------------------------------------------------------------------------------

const verdictLine = (a: RunArtifact): string => {
  // a segment that ran to its end awaits the merge's verdict (./summary.ts verdictText)
  const cls = a.segment !== undefined && a.outcome === "thresholds-breached" ? "muted" : a.outcome === "pass" ? "pass" : "fail"
  return `<p class="${cls}"><b>${escapeHtml(verdictText(a))}</b> (exit ${processExitCode(a)})</p>`
}

const seriesTable = (a: RunArtifact, modelled: boolean): string => {
  if (a.series.length === 0) return ""
  const rows = [...a.series]
    .sort((x, y) => seriesLabel(x).localeCompare(seriesLabel(y)))
    .map((s) => [s, shownSummary(s.latency)] as const)
    .map(
      ([s, latency]) =>
        `<tr><td>${escapeHtml(seriesLabel(s))}</td><td>${s.count}</td><td>${formatMs(latency.p50)}</td><td>${formatMs(latency.p90)}</td><td>${formatMs(latency.p99)}</td><td>${formatMs(latency.max)}</td><td>${s.errors}${s.connectionErrors ? ` (${s.connectionErrors} no answer)` : ""}</td><td>${s.dropped}</td></tr>`
    )
  const caption = modelled ? ` <span class="modelled">(latencies ${modelledNote})</span>` : ""
  return `<h2>Series${caption}</h2><table id="series"><tr><th>series</th><th>count</th><th>p50</th><th>p90</th><th>p99</th><th>max</th><th>errors</th><th>dropped</th></tr>${rows.join("")}</table>`
}

const thresholdList = (a: RunArtifact): string =>
  a.thresholds.length === 0
    ? ""
    : `<h2>Thresholds${a.segment !== undefined ? ` <span class="muted">(${segmentThresholdsNote})</span>` : ""}</h2><ul>${a.thresholds
        .map((t) => {
          const g = Object.entries(t.group).map(([k, v]) => `${k}=${v}`).join(",")
          const row = escapeHtml(`${t.threshold}${g ? ` [${g}]` : ""}: ${t.condition} (observed ${observedText(t)})`)
          // a segment's share: its values, the verdict is the merged run's
          return a.segment !== undefined ? `<li>${row}</li>` : `<li class="${t.passed ? "pass" : "fail"}">${t.passed ? "✓" : "✗"} ${row}</li>`
        })
        .join("")}</ul>`

/** A real target's own latency figures beside the client's (./serverSide.ts), or why there are none. */
const serverSideSection = (a: RunArtifact): string => {
  const s = a.server
  if (s === undefined) return ""
  if (s.absent !== undefined) return `<section id="server-side"><h2>Server side</h2><p class="fail">Server-side figures absent: ${escapeHtml(s.absent)}. The client-side figures above are measured as usual.</p></section>`
  const rows = serverRows(a).map(
    (r) =>
      `<tr><td>${escapeHtml(r.phase)}</td><td>${escapeHtml(callLabel(r.call))}</td><td>${r.call.count}</td>` +
      [r.call.p50, r.call.p90, r.call.p99].map((v) => `<td>${v === undefined ? "-" : formatMs(v.ms)}</td>`).join("") +
      `<td>${escapeHtml(bucketText(r.call.p99))}</td><td>${r.clientP99 === undefined ? "-" : formatMs(r.clientP99)}</td></tr>`
  )
  const source = `<section id="server-side"><h2>Server side</h2><p>${escapeHtml(s.metric ?? "no histogram")} from ${escapeHtml(serverSourceText(s))}.</p>`
  // as the summary says it (./serverSide.ts): a table of headings alone says nothing
  if (rows.length === 0) return `${source}<p>No API calls measured.</p></section>`
  return (
    source +
    `<table id="server"><tr><th>phase</th><th>call</th><th>count</th><th>server p50</th><th>server p90</th><th>server p99</th><th>p99 bucket</th><th>client p99</th></tr>${rows.join("")}</table>` +
    unreadPhases(s).map((p) => `<p class="fail">Phase ${escapeHtml(p.phase)} not read: ${escapeHtml(p.unread)}.</p>`).join("") +
    `<p class="muted">${escapeHtml(bucketNote)}.</p></section>`
  )
}

/** A cluster's image pulls (`cluster.images`): each registry's answers by outcome, the pull events, the credential plugin. */
const imagePullsSection = (a: RunArtifact): string => {
  const images = (a.cluster as { images?: ImagePullsResult } | undefined)?.images
  if (images === undefined) return ""
  const registries = Object.entries(images.registries).sort(([x], [y]) => x.localeCompare(y))
  const head = `<tr><th>registry</th>${pullOutcomes.map(([, label]) => `<th>${escapeHtml(label)}</th>`).join("")}</tr>`
  const rows = registries.map(([host, c]) => `<tr data-registry="${escapeHtml(host)}"><td>${escapeHtml(host)}</td>${pullOutcomes.map(([k]) => `<td>${c[k] ?? 0}</td>`).join("")}</tr>`).join("")
  const byReason = images.events.byReason as Record<string, number>
  const events = pullEventReasons(byReason).map((r) => `${escapeHtml(r)} ${byReason[r]}`).join(", ")
  const p = images.credentialPlugin
  return (
    `<section id="image-pulls"><h2>Image pulls</h2><p>${images.podsStarted} pods started, ${images.podsWithPulls} of them after pulling` +
    `${images.lastFailureAt !== null ? `; last pull failure at ${clockText(images.lastFailureAt)}` : ""}.</p>` +
    `<table id="registries">${head}${rows}</table>` +
    `<p>Pull events: ${events || "none"}. Credential plugin: ${p.execs} execs, ${p.failures} failures, ${p.cacheHits} cache hits.</p></section>`
  )
}

/** The report of one run. */
export const renderRunHtml = (a: RunArtifact): string => {
  const ts = timeSeriesOf(a)
  const spectrumSeries = [...a.series]
    .filter((s) => s.latency.count > 0)
    .sort((x, y) => seriesLabel(x).localeCompare(seriesLabel(y)))
    .map((s) => ({ label: seriesLabel(s), y: spectrum([s.latencyHistogram], s.latency.max) }))
  const timeline = timelineOf(a)
  const clusterCharts = clusterChartsOf(a)
  // one legend per chart, never the same series' legend twice: the throughput chart, and the spectrum when its series
  // are the latency chart's, use the latency chart's legend (its live values, and a click hides a series in all three)
  const latencyLabels = new Set(ts.series.map((s) => s.label))
  // ("partial": its legend lists only the series the latency chart has not)
  const sharedInSpectrum = spectrumSeries.filter((s) => latencyLabels.has(s.label)).length
  const legends: Record<string, "own" | "latency" | "partial"> = {
    ...(ts.series.length > 0 ? { throughput: "latency" } : {}),
    ...(sharedInSpectrum > 0 ? { spectrum: sharedInSpectrum === spectrumSeries.length ? "latency" : "partial" } : {})
  }
  const chartDiv = (id: string) => `<div id="${id}" class="plot" data-legend="${legends[id] ?? "own"}"></div>`
  const target = a.target.url ? `${a.target.kind} ${a.target.url}` : a.target.kind
  const model = serverModelOf(a)
  const body = [
    `<h1>clustersim run ${escapeHtml(a.scenario.name)}</h1>`,
    `<p class="muted">target ${escapeHtml(target)}${a.target.version ? ` (${escapeHtml(a.target.version)})` : ""} · seed ${a.seed} · ${escapeHtml(a.startedAt)} · ${formatMs(a.durationMs)}${a.partial ? " · PARTIAL" : ""}${model ? ` · <span class="modelled">latencies modelled (see Server model)</span>` : ""} · scenario sha256 ${a.scenario.sha256.slice(0, 12)}…</p>`,
    verdictLine(a),
    a.health?.saturated ? `<p class="fail">Generator SATURATED (${escapeHtml(a.health.reasons.join("; "))}): results may reflect the generator, not the target.</p>` : "",
    ts.series.length > 0 ? [chartDiv("latency"), chartDiv("throughput"), chartDiv("errors")].join("") : "",
    spectrumSeries.length > 0 ? chartDiv("spectrum") : "",
    clusterCharts?.lease ? chartDiv("lease-latency") + chartDiv("lease-writes") : "",
    clusterCharts?.ready ? chartDiv("ready-nodes") : "",
    timeline ? chartDiv("timeline") : "",
    seriesTable(a, model !== undefined),
    serverSideSection(a),
    imagePullsSection(a),
    model ? serverModelSection(model, { workload429s: workloadTooManyRequests(a), outcome: a.outcome }) : "",
    thresholdList(a),
    `<h2>Summary</h2><pre>${escapeHtml(renderSummary(a))}</pre>`
  ].join("\n")
  return page(`clustersim run ${a.scenario.name}`, body, {
    timeSeries: ts,
    markers: markersOf(a),
    spectrum: { x: spectrumX, series: spectrumSeries },
    legends,
    styles: seriesStylesOf([...ts.series.map((s) => s.label), ...spectrumSeries.map((s) => s.label)]),
    ...(clusterCharts ? { clusterCharts } : {}),
    ...(timeline ? { timeline } : {}),
    ...(model ? { modelled: modelledNote } : {})
  })
}

interface RoundsPlot {
  readonly title: string
  readonly x: ReadonlyArray<number>
  readonly series: ReadonlyArray<{ readonly label: string; readonly side: number; readonly y: ReadonlyArray<number | null>; readonly dash?: ReadonlyArray<number> }>
}

/** Each side's p50 and p99 per round: the values the intervals are computed from, so noise and outlying rounds show. */
export const roundsOf = (label: string, sides: ReadonlyArray<Side>): RoundsPlot => {
  const n = Math.max(...sides.map((s) => s.rounds.length))
  const per = (side: Side, q: "p50" | "p99") =>
    Array.from({ length: n }, (_, r) => {
      const s = side.rounds[r]?.series.find((x) => keyLabel(x.key) === label)
      return s && s.latency.count > 0 ? s.latency[q] : null
    })
  return {
    title: `${label}: p50 (solid) and p99 (dashed) of each round, the values the intervals come from`,
    x: Array.from({ length: n }, (_, r) => r + 1),
    series: sides.flatMap((side, i) => [
      { label: `${side.label} p50`, side: i, y: per(side, "p50") },
      { label: `${side.label} p99`, side: i, y: per(side, "p99"), dash: [6, 3] }
    ])
  }
}

/** The report of a comparison: the verdict table and, per compared series, the sides' spectra overlaid and their rounds. */
export const renderComparisonHtml = (c: Comparison, sides: ReadonlyArray<Side>): string => {
  const spectra: Array<{ title: string; x: ReadonlyArray<number>; series: Array<{ label: string; y: Array<number | null>; dash?: ReadonlyArray<number> }> }> = []
  const rounds: Array<RoundsPlot> = []
  const labels = new Set(c.pairs.flatMap((p) => p.series.map((s) => s.label)))
  for (const label of [...labels].sort()) {
    const series = sides.map((side, i) => {
      const same = side.rounds.flatMap((r) => r.series.filter((s) => keyLabel(s.key) === label))
      const y = spectrum(same.map((s) => s.latencyHistogram), Math.max(0, ...same.map((s) => s.latency.max)))
      return { label: `${side.label} (${side.rounds.length} round${side.rounds.length === 1 ? "" : "s"})`, y, ...(i > 0 ? { dash: [6, 3] } : {}) }
    })
    spectra.push({ title: `${label}: latency by percentile, sides overlaid`, x: spectrumX, series })
    rounds.push(roundsOf(label, sides))
  }
  // each side's error rate beside the verdict: a series failing on both sides has "no significant difference" in the
  // latencies of its failures, which says nothing good
  const errorCell = (p: Comparison["pairs"][number], s: Comparison["pairs"][number]["series"][number]) => {
    const failing = s.baseline.errorRate > 0 || s.other.errorRate > 0 || s.baseline.connectionErrors > 0 || s.other.connectionErrors > 0
    const text = `${p.baseline} ${errorRateText(s.baseline)} · ${p.other} ${errorRateText(s.other)}`
    return `<td class="${failing ? "fail" : ""}">${escapeHtml(text)}</td>`
  }
  const rows = c.pairs.flatMap((p) =>
    p.series.map(
      (s) =>
        `<tr><td>${escapeHtml(s.label)}</td><td>${escapeHtml(`${p.other} vs ${p.baseline}`)}</td>${s.ratios
          .map((r) => `<td class="ratio">${formatRatioInterval(r)}</td>`)
          .join("")}${"<td></td>".repeat(3 - s.ratios.length)}${errorCell(p, s)}<td class="${s.verdict.startsWith("no significant") ? "" : "fail"}">${escapeHtml(s.verdict)}</td></tr>`
    )
  )
  const sideText = (s: Comparison["sides"][number]) => {
    const failed = failedRoundsText(s)
    return `${escapeHtml(s.label)}: ${escapeHtml(s.target)}, ${s.rounds} round(s)${failed !== undefined ? `, <span class="fail">${escapeHtml(failed)}</span>` : ""}`
  }
  const body = [
    `<h1>clustersim compare ${escapeHtml(c.differentScenarios ? `${[...new Set(c.sides.map((x) => x.scenario ?? x.label))].join(" vs ")}: a what-if` : c.scenario.name)}</h1>`,
    `<p class="muted">${c.sides.map(sideText).join(" · ")} · ${Math.round(c.level * 100)}% intervals</p>`,
    ...c.sides.flatMap((s) => {
      const text = saturationText(s)
      return text ? [`<p class="fail">${escapeHtml(s.label)}: ${escapeHtml(text)}</p>`] : []
    }),
    ...whatIfHtml(c),
    `<h2>Verdicts</h2><table id="verdicts"><tr><th>series</th><th>pair</th><th>p50 ratio</th><th>p90 ratio</th><th>p99 ratio</th><th>errors</th><th>verdict</th></tr>${rows.join("")}</table>`,
    spectra.map((_, i) => `<div id="spectrum-${i}" class="plot"></div><div id="rounds-${i}" class="plot"></div>`).join("\n"),
    `<h2>Details</h2><pre>${escapeHtml(renderComparison(c))}</pre>`
  ].join("\n")
  return page(`clustersim compare ${c.scenario.name}`, body, { spectra, rounds })
}

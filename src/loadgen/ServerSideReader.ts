/**
 * Reads a real target's latency histograms around each phase of a run (docs/metrics.md "Server-side figures"):
 * either its `/metrics` before and after the phase, with the run's credentials, or — for a managed cluster whose
 * `/metrics` is out of reach — an existing Prometheus, asked for the histogram's `increase` over the phase's window
 * (ClusterLoader2's `APIResponsivenessPrometheus` asks its Prometheus the same way). The first failure (a 403, a
 * timeout, malformed exposition, no such metric) is said once and ends the reading: the report says the figures
 * are absent and why, and the run goes on measuring its client side. A phase Prometheus has too few samples of
 * (shorter than two scrape intervals, or before a new server's series were scraped) goes unread on its own, saying why.
 */
import { Clock, Effect, Either } from "effect"
import { type Answer, boundedGet, type BoundedGetError } from "../client/BoundedGet.js"
import type { ProbeTarget } from "../client/Probe.js"
import { parseExposition, type Sample } from "./Exposition.js"
import {
  DurationMetric,
  familyFor,
  phaseCalls,
  QuantileMethod,
  type Reading,
  readingOf,
  type ServerMetric,
  type ServerPhase,
  type ServerSideReport,
  SliMetric,
  wantedSample
} from "./ServerLatency.js"

export type ServerSideSource =
  | {
      readonly _tag: "metrics"
      /** The target's base URL, for the report. */
      readonly url: string
      /** The target's address with the credential the client holds now (a token may have been renewed). */
      readonly target: Effect.Effect<ProbeTarget>
    }
  | { readonly _tag: "prometheus"; readonly url: string }

export interface ServerSideOptions {
  /** Bound on one reading (`--server-metrics-timeout`). */
  readonly timeoutMs: number
  /** Bound on one answer's size; an apiserver's exposition runs to tens of MiB on a large cluster. */
  readonly maxBytes?: number
}

export interface ServerSideReader {
  readonly phaseStarted: (phase: string) => Effect.Effect<void>
  readonly phaseEnded: (phase: string) => Effect.Effect<void>
  readonly report: Effect.Effect<ServerSideReport>
}

export const DefaultMaxBytes = 64 * 1024 * 1024
/** `text/plain; version=0.0.4`: the format ./Exposition.ts reads, whatever else the server offers. */
const TextFormat = "text/plain;version=0.0.4;q=1,*/*;q=0.1"

const statusReason = (a: Answer): string => {
  let message = ""
  try {
    const body = JSON.parse(a.text) as { kind?: unknown; message?: unknown }
    if (body.kind === "Status" && typeof body.message === "string") message = `: ${body.message}`
  } catch {
    message = a.text.trim() === "" ? "" : `: ${a.text.trim().split("\n")[0]!.slice(0, 120)}`
  }
  return `answered ${a.statusCode}${message}`
}

class Absent {
  constructor(readonly reason: string) {}
}

const bodyOf = (url: string, a: Answer): Effect.Effect<string, Absent> =>
  a.statusCode === 200 ? Effect.succeed(a.text) : Effect.fail(new Absent(`GET ${url} ${statusReason(a)}`))

const fromGet = (e: BoundedGetError) => new Absent(e.message)

/** The target's `/metrics` as one reading. */
const scrape = (target: ProbeTarget, o: ServerSideOptions): Effect.Effect<Reading, Absent> =>
  Effect.gen(function* () {
    const url = `${target.baseUrl.replace(/\/$/, "")}/metrics`
    const answer = yield* Effect.mapError(boundedGet(target, "/metrics", { timeoutMs: o.timeoutMs, maxBytes: o.maxBytes ?? DefaultMaxBytes, accept: TextFormat }), fromGet)
    const text = yield* bodyOf(url, answer)
    const parsed = parseExposition(text, wantedSample)
    if (Either.isLeft(parsed)) return yield* Effect.fail(new Absent(`GET ${url}: ${parsed.left.message}`))
    return readingOf(parsed.right)
  })

interface PromVector {
  readonly status?: string
  readonly error?: string
  readonly data?: { readonly resultType?: string; readonly result?: ReadonlyArray<{ readonly metric?: Record<string, string>; readonly value?: readonly [number, string] }> }
}

/** One instant query's vector at `atMs`. */
const promQuery = (url: string, query: string, atMs: number, o: ServerSideOptions): Effect.Effect<ReadonlyArray<{ readonly metric: Record<string, string>; readonly value: number }>, Absent> =>
  Effect.gen(function* () {
    const path = `/api/v1/query?query=${encodeURIComponent(query)}&time=${(atMs / 1000).toFixed(3)}`
    const answer = yield* Effect.mapError(boundedGet({ baseUrl: url }, path, { timeoutMs: o.timeoutMs, maxBytes: o.maxBytes ?? DefaultMaxBytes }), fromGet)
    let body: PromVector
    try {
      body = JSON.parse(answer.text) as PromVector
    } catch {
      return yield* Effect.fail(new Absent(`Prometheus ${url} answered ${answer.statusCode} with no JSON to the query ${query}`))
    }
    if (answer.statusCode !== 200 || body.status !== "success") {
      return yield* Effect.fail(new Absent(`Prometheus ${url} answered ${answer.statusCode} to the query ${query}: ${body.error ?? body.status ?? "no status"}`))
    }
    const out: Array<{ metric: Record<string, string>; value: number }> = []
    for (const r of body.data?.result ?? []) {
      const value = Number(r.value?.[1])
      if (r.metric !== undefined && Number.isFinite(value)) out.push({ metric: r.metric, value })
    }
    return out
  })

/** A phase's window in PromQL: whole seconds, at least one (PromQL durations have no fractions). */
const windowSeconds = (startMs: number, endMs: number): number => Math.max(1, Math.round((endMs - startMs) / 1000))

/** One family's bucket and sum increases over `[end − window, end]`, as samples of that family. */
const promIncrease = (url: string, family: ServerMetric, startMs: number, endMs: number, o: ServerSideOptions): Effect.Effect<ReadonlyArray<Sample>, Absent> =>
  Effect.gen(function* () {
    const window = `${windowSeconds(startMs, endMs)}s`
    const out: Array<Sample> = []
    for (const [suffix, by] of [["_bucket", "le, verb, resource, subresource, scope"], ["_sum", "verb, resource, subresource, scope"]] as const) {
      const vector = yield* promQuery(url, `sum by (${by}) (increase(${family}${suffix}[${window}]))`, endMs, o)
      for (const r of vector) out.push({ name: `${family}${suffix}`, labels: r.metric, value: r.value })
    }
    return out
  })

/** A Prometheus duration (`2s`, `1m30s`, `500ms`) in ms; undefined when it is not one. */
export const promDurationMs = (text: string): number | undefined => {
  const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 }
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h|d|w|y)/g)]
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) return undefined
  return parts.reduce((ms, p) => ms + Number(p[1]) * units[p[2]!]!, 0)
}

interface PromTargets {
  readonly data?: { readonly activeTargets?: ReadonlyArray<{ readonly labels?: Record<string, string>; readonly scrapeInterval?: string }> }
}

/**
 * The scrape interval of the targets whose `job` and `instance` the family's series carry, from Prometheus' targets
 * API (`scrapeInterval`, Prometheus 2.30+): the longest of them; undefined when Prometheus does not say.
 */
const promScrapeIntervalMs = (url: string, scraped: ReadonlyArray<Record<string, string>>, o: ServerSideOptions): Effect.Effect<number | undefined> =>
  Effect.gen(function* () {
    const answer = yield* boundedGet({ baseUrl: url }, "/api/v1/targets?state=active", { timeoutMs: o.timeoutMs, maxBytes: o.maxBytes ?? DefaultMaxBytes })
    if (answer.statusCode !== 200) return undefined
    const targets = (JSON.parse(answer.text) as PromTargets).data?.activeTargets ?? []
    let longest: number | undefined
    for (const t of targets) {
      if (!scraped.some((s) => s.job === t.labels?.job && s.instance === t.labels?.instance)) continue
      const ms = promDurationMs(t.scrapeInterval ?? "")
      if (ms !== undefined && (longest === undefined || ms > longest)) longest = ms
    }
    return longest
  }).pipe(Effect.catchAll(() => Effect.succeed(undefined)))

const secondsText = (ms: number): string => `${Number((ms / 1000).toFixed(3))}s`

/**
 * Why Prometheus gave no increase over a phase, when it has the family at all: `increase()` needs two samples in
 * the window, so a window shorter than two of the target's scrape intervals may hold one or none. Undefined when
 * Prometheus has no series of either family by the phase's end: it does not scrape the target's API server, or not
 * yet (a new server's histograms have no series before its first requests, and Prometheus sees them a scrape later).
 */
const unreadPhase = (url: string, startMs: number, endMs: number, known: ServerMetric | undefined, o: ServerSideOptions): Effect.Effect<string | undefined, Absent> =>
  Effect.gen(function* () {
    for (const family of known !== undefined ? [known] : [SliMetric, DurationMetric]) {
      const scraped = yield* promQuery(url, `count by (job, instance) (${family}_count)`, endMs, o)
      if (scraped.length === 0) continue
      const window = windowSeconds(startMs, endMs)
      const interval = yield* promScrapeIntervalMs(url, scraped.map((s) => s.metric), o)
      if (interval !== undefined && window * 1000 < 2 * interval)
        return `its window of ${window}s is shorter than two of the target's scrape intervals in Prometheus (${secondsText(interval)} each), and increase() needs two samples in the window: a phase of at least ${secondsText(2 * interval)} is read`
      return `Prometheus ${url} has fewer than two samples of ${family} in its window of ${window}s${interval !== undefined ? ` (the target is scraped every ${secondsText(interval)}: was it down?)` : ""}, and increase() needs two`
    }
    return undefined
  })

const emptyReading: Reading = { [SliMetric]: new Map(), [DurationMetric]: new Map() }

export const makeServerSideReader = (source: ServerSideSource, o: ServerSideOptions, warn: (line: string) => void): Effect.Effect<ServerSideReader> =>
  Effect.sync(() => {
    const shownUrl = source._tag === "prometheus" ? source.url : `${source.url.replace(/\/$/, "")}/metrics`
    let absent: string | undefined
    let metric: ServerMetric | undefined
    const phases: Array<ServerPhase> = []
    /** The reading at the start of the phase running now, and when it was taken. */
    let opened: { phase: string; at: number; reading: Reading | undefined } | undefined
    /** The last phase's closing reading: the next phase's opening one when it starts right away. */
    let closing: Reading | undefined

    /** Phases Prometheus had no series of either family for by their end, until a later phase finds the family. */
    const unseen: Array<number> = []
    let everSeen = false
    const unreadAs = (index: number, unread: string) => {
      phases[index] = { ...phases[index]!, unread }
      warn(`clustersim: warning: no server-side figures for phase ${phases[index]!.phase}: ${unread}`)
    }
    /** Prometheus has the family: the phases before it had none of it yet (a new server's first requests). */
    const seen = () => {
      everSeen = true
      for (const index of unseen.splice(0))
        unreadAs(index, `Prometheus ${source.url} had no ${SliMetric} or ${DurationMetric} series yet at its end: a new server's histograms have none before its first requests, and Prometheus sees them at its next scrape`)
    }

    const giveUp = (e: Absent) =>
      Effect.sync(() => {
        if (absent !== undefined) return
        absent = e.reason
        warn(`clustersim: warning: no server-side figures: ${e.reason}; the client side is measured as usual`)
      })

    const read: Effect.Effect<Reading | undefined, Absent> =
      source._tag === "metrics"
        ? Effect.flatMap(source.target, (t) => scrape(t, o))
        : Effect.succeed(undefined)

    const phaseStarted = (phase: string) =>
      Effect.gen(function* () {
        if (absent !== undefined) return
        const reading = closing ?? (yield* read)
        closing = undefined
        opened = { phase, at: yield* Clock.currentTimeMillis, reading }
      }).pipe(Effect.catchAll(giveUp))

    const phaseEnded = (phase: string) =>
      Effect.gen(function* () {
        if (absent !== undefined || opened === undefined || opened.phase !== phase) return
        const start = opened
        opened = undefined
        const endedAt = yield* Clock.currentTimeMillis
        let before: Reading
        let after: Reading
        if (source._tag === "metrics") {
          after = (yield* read)!
          closing = after
          before = start.reading ?? emptyReading
        } else {
          // Prometheus answers the increase itself: the "before" is zero
          const sli = metric === DurationMetric ? [] : yield* promIncrease(source.url, SliMetric, start.at, endedAt, o)
          const samples = sli.length > 0 || metric === SliMetric ? sli : yield* promIncrease(source.url, DurationMetric, start.at, endedAt, o)
          if (samples.length === 0) {
            // this phase alone goes without figures: the others keep theirs
            const unread = yield* unreadPhase(source.url, start.at, endedAt, metric, o)
            const times = { phase, startedAt: new Date(start.at).toISOString(), endedAt: new Date(endedAt).toISOString(), calls: [] }
            if (unread === undefined) unseen.push(phases.push({ ...times, unread: "" }) - 1)
            else {
              seen()
              unreadAs(phases.push({ ...times, unread }) - 1, unread)
            }
            return
          }
          seen()
          after = readingOf(samples)
          before = emptyReading
        }
        const family = metric ?? familyFor(after)
        if (family === undefined) {
          return yield* Effect.fail(
            new Absent(
              source._tag === "metrics"
                ? `${shownUrl} has neither ${SliMetric} nor ${DurationMetric}`
                : `Prometheus ${source.url} has no ${SliMetric} or ${DurationMetric} series over phase ${phase} (does it scrape the target's API server?)`
            )
          )
        }
        metric = family
        const calls = phaseCalls(family, before, after)
        if (Either.isLeft(calls)) return yield* Effect.fail(new Absent(`phase ${phase}: ${calls.left}`))
        phases.push({ phase, startedAt: new Date(start.at).toISOString(), endedAt: new Date(endedAt).toISOString(), calls: calls.right })
      }).pipe(Effect.catchAll(giveUp))

    const report = Effect.gen(function* () {
      if (unseen.length > 0 && !everSeen) {
        // no phase found either family: Prometheus does not scrape the target's API server
        const names = unseen.splice(0).map((i) => phases[i]!.phase)
        yield* giveUp(new Absent(`Prometheus ${source.url} has no ${SliMetric} or ${DurationMetric} series over phase${names.length > 1 ? "s" : ""} ${names.join(", ")} (does it scrape the target's API server?)`))
      }
      // after a phase found it: the target went unscraped for longer than PromQL looks back (5 minutes)
      for (const index of unseen.splice(0)) unreadAs(index, `Prometheus ${source.url} had no ${SliMetric} or ${DurationMetric} series at its end`)
      const r: ServerSideReport = {
        source: source._tag,
        url: shownUrl,
        ...(metric !== undefined ? { metric } : {}),
        method: QuantileMethod,
        // figures of some phases and none of the others (a reading that failed) would read as a server that had nothing
        // to do; a phase Prometheus could not read says why in its own `unread`
        phases: absent === undefined ? phases : [],
        ...(absent !== undefined ? { absent } : {})
      }
      return r
    })
    return { phaseStarted, phaseEnded, report }
  })

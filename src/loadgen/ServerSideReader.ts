/**
 * Reads a real target's latency histograms around each phase of a run (docs/metrics.md "Server-side figures"):
 * either its `/metrics` before and after the phase, with the run's credentials, or — for a managed cluster whose
 * `/metrics` is out of reach — an existing Prometheus, asked for the histogram's `increase` over the phase's window
 * (ClusterLoader2's `APIResponsivenessPrometheus` asks its Prometheus the same way). The first failure (a 403, a
 * timeout, malformed exposition, no such metric) is said once and ends the reading: the report says the figures
 * are absent and why, and the run goes on measuring its client side.
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

/** One family's bucket and sum increases over `[end − window, end]`, as samples of that family. */
const promIncrease = (url: string, family: ServerMetric, startMs: number, endMs: number, o: ServerSideOptions): Effect.Effect<ReadonlyArray<Sample>, Absent> =>
  Effect.gen(function* () {
    // a window in whole seconds, at least one: PromQL durations have no fractions
    const window = `${Math.max(1, Math.round((endMs - startMs) / 1000))}s`
    const out: Array<Sample> = []
    for (const [suffix, by] of [["_bucket", "le, verb, resource, subresource, scope"], ["_sum", "verb, resource, subresource, scope"]] as const) {
      const query = `sum by (${by}) (increase(${family}${suffix}[${window}]))`
      const path = `/api/v1/query?query=${encodeURIComponent(query)}&time=${(endMs / 1000).toFixed(3)}`
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
      for (const r of body.data?.result ?? []) {
        const value = Number(r.value?.[1])
        if (r.metric !== undefined && Number.isFinite(value)) out.push({ name: `${family}${suffix}`, labels: r.metric, value })
      }
    }
    return out
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
          const sli = yield* promIncrease(source.url, SliMetric, start.at, endedAt, o)
          const samples = sli.length > 0 ? sli : yield* promIncrease(source.url, DurationMetric, start.at, endedAt, o)
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

    const report = Effect.sync(
      (): ServerSideReport => ({
        source: source._tag,
        url: shownUrl,
        ...(metric !== undefined ? { metric } : {}),
        method: QuantileMethod,
        // figures of some phases and none of the others would read as a server that had nothing to do
        phases: absent === undefined ? phases : [],
        ...(absent !== undefined ? { absent } : {})
      })
    )
    return { phaseStarted, phaseEnded, report }
  })

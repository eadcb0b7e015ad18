/**
 * Replays audit logs against the client's target (docs/replay.md): a first pass over the logs finds the first
 * request, the span and the world to seed (Seeding.ts); the seed is created; a second pass issues every kept request
 * at its recorded offset over `speed` (open model: each start planned on an absolute schedule from the replay's
 * start, lateness reported as scheduling error, never absorbed), holds long-running requests open for their
 * recorded duration, and compares every answer with the log. Both passes stream: memory holds the reorder window
 * and the in-flight requests, not the log.
 */
import { Data, Duration, Effect, Exit, FiberSet } from "effect"
import { ApiClient } from "../client/ApiClient.js"
import { hasRawSender, type RawAnswer, type RawSender } from "../client/Capabilities.js"
import type { ReplayReport } from "../loadgen/Artifact.js"
import { type BoundRecorder, LatencyRecorder, type MetricKey, nowMillis } from "../loadgen/LatencyRecorder.js"
import { nextTurn, waitUntil } from "../loadgen/WaitUntil.js"
import {
  effectiveUser,
  intendedOffsetMs,
  keptByFilter,
  objectUri,
  type OutgoingRequest,
  outgoingRequest,
  type ReplayFilter,
  type ReplayShape,
  resourceLabel,
  sendingView,
  withResourceVersion
} from "./ReplayPlan.js"
import type { RecordedRequest, Selected, SelectionCounts } from "./RequestSelection.js"
import { type LogStats, SelectedSource } from "./SelectedSource.js"
import { UnparsableUri } from "./RequestUri.js"
import { ReplayTally, sameCode } from "./ReplayTally.js"
import { SeedPlan, seedingView } from "./Seeding.js"
import { MinHeap } from "./MinHeap.js"

export interface ReplayConfig extends ReplayShape {
  readonly logs: ReadonlyArray<string>
  readonly filter: ReplayFilter
  /** Create what the log assumes before replaying it (default true). */
  readonly seed: boolean
  /** Replay the log again and again until `loopForMs` of replay time. */
  readonly loop: boolean
  readonly loopForMs?: number
  /** How far out of order the log may be; default 10 s of log time. */
  readonly windowMs: number
  /** Requests in flight (long-running ones apart); a start that finds this many is dropped and counted. */
  readonly maxInFlight: number
  /** Replay against a target that is not on this machine. */
  readonly allowRemote: boolean
}

/** The schedule's start after the log's first entries are read: time for the first connections to open. */
const StartLeadMs = 50

// The sender's timing (docs/replay.md "Memory and timing"): between two starts it reads ahead only in gaps longer than
// `SlackMs`, `SliceMs` at a time, and stops `SlackMs` before the next start; it wakes `SpinMs` before a start by a
// timer (whose resolution is a millisecond) and turns the event loop until it is due.
const SlackMs = 2
const SliceMs = 1
const SpinMs = 1
/** How far ahead of the clock entries are planned, in replay time and in entries (the rest waits in the log). */
const LookaheadMs = 100
const MaxPlanned = 1024

export class ReplayError extends Data.TaggedError("ReplayError")<{ readonly message: string }> {}

/** What the replay tells the run's progress line. */
export interface ReplayProgress {
  readonly ok: () => void
  readonly error: (e: unknown) => void
  /** The schedule is set: its last start is due at `endAtMs` (Clock ms), which the progress line shows as its end. */
  readonly scheduled?: (endAtMs: number) => void
  /** A line for the user before the replay starts (a `--loop` of a log that leaves what it creates). */
  readonly warn?: (line: string) => void
}

const loopbackHosts = new Set(["localhost", "::1", "[::1]"])

/** `127.0.0.0/8`, `::1`, `localhost`. */
export const isLoopbackOrigin = (origin: string): boolean => {
  let host: string
  try {
    host = new URL(origin).hostname
  } catch {
    return false
  }
  return loopbackHosts.has(host) || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

export const remoteRefusal = (origin: string): string =>
  `refusing to replay against ${origin}: it is not a loopback address, and a replayed log sends its creates, updates and deletes again (a production log deletes what it deleted); pass --allow-remote (a scenario's replay action: allowRemote: true) to replay there anyway`

// ---------------------------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// First pass: span and seed
// ---------------------------------------------------------------------------------------------

interface Survey {
  /** The log's first request, kept or not (the origin of `--from 10m`). */
  readonly logStartMs: number
  readonly firstMs: number | undefined
  readonly lastMs: number
  readonly kept: number
  readonly filteredOut: number
  readonly seed: SeedPlan
  readonly stats: ReadonlyArray<LogStats>
  readonly selection: SelectionCounts
}

/** `untilFirstKept`: stop at the first request the replay would send (`nothingToReplay`); else read the logs through. */
const survey = (c: ReplayConfig, tally: ReplayTally, untilFirstKept = false) =>
  Effect.gen(function* () {
    const stats: Array<LogStats> = []
    const source = new SelectedSource(c.logs, c.windowMs, tally, stats, seedingView)
    const seed = new SeedPlan()
    let firstMs: number | undefined
    let logStartMs: number | undefined
    let lastMs = 0
    let kept = 0
    let filteredOut = 0
    for (;;) {
      const s = source.shift()
      if (s === undefined) {
        if (source.done) break
        if (!source.advance(1024)) yield* Effect.promise(() => source.read())
        continue
      }
      if (s._tag !== "Request") continue
      const r = s.request
      logStartMs ??= r.scheduleMs
      if (!keptByFilter(c.filter, r, logStartMs)) {
        filteredOut++
        continue
      }
      const out0 = outgoingRequest(r, 0, c)
      if (out0 instanceof UnparsableUri) {
        tally.bad({ file: r.file, line: r.line, class: "unparsable-uri", message: out0.message })
        continue
      }
      kept++
      if (untilFirstKept) break
      firstMs ??= r.scheduleMs
      lastMs = r.scheduleMs
      // with --loop, also what the log leaves behind (the warning below)
      if (c.seed || c.loop)
        for (let copy = 0; copy < c.scale; copy++) {
          const out = copy === 0 ? out0 : outgoingRequest(r, copy, c)
          if (!(out instanceof UnparsableUri)) seed.observe(r, out)
        }
    }
    source.close()
    return { logStartMs: logStartMs ?? 0, firstMs, lastMs, kept, filteredOut, seed, stats, selection: source.counts } satisfies Survey
  })

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

/**
 * Why the logs hold no request to replay — empty, every line bad input, only `RequestReceived` events, every request
 * filtered out — or undefined when they hold one: a replay of them would send nothing and pass. Reads up to the
 * first request it would send (all of the logs only when there is none); the bad lines are named as the report
 * names them (docs/replay.md "Bad input").
 */
export const nothingToReplay = (c: ReplayConfig): Effect.Effect<string | undefined> =>
  Effect.gen(function* () {
    const tally = new ReplayTally(1000)
    const s = yield* survey(c, tally, true)
    if (s.kept > 0) return undefined
    const lines = s.stats.reduce((n, x) => n + x.lines, 0)
    const events = s.stats.reduce((n, x) => n + x.events, 0)
    const why: Array<string> = []
    if (lines === 0 && tally.badTotal === 0) why.push(c.logs.length === 1 ? "the log is empty" : "the logs are empty")
    else why.push(`${plural(lines, "line")}, ${plural(events, "event")}`)
    if (tally.badTotal > 0) {
      const classes = Object.entries(tally.badByClass).map(([k, n]) => `${k} ${n}`).join(", ")
      const first = tally.badExamples[0]!
      why.push(`${plural(tally.badTotal, "line")} not replayable (${classes}), the first: ${first.file}:${first.line}: ${first.class}: ${first.message}`)
    }
    if (s.selection.requestReceived > 0) why.push(`${plural(s.selection.requestReceived, "RequestReceived event")}, a stage the replay does not use`)
    if (s.filteredOut > 0) why.push(`the filters (users, verbs, resources, namespaces, from, to) keep none of its ${plural(s.filteredOut, "request")}`)
    return `no request to replay in ${c.logs.join(", ")}: ${why.join("; ")}`
  })

// ---------------------------------------------------------------------------------------------
// Seeding
// ---------------------------------------------------------------------------------------------

interface SeedResult {
  namespaces: number
  objects: number
  synthesized: number
  failed: number
  examples: Array<{ key: string; message: string }>
}

const runSeed = (raw: RawSender, plan: SeedPlan) =>
  Effect.gen(function* () {
    const result: SeedResult = { namespaces: 0, objects: 0, synthesized: 0, failed: 0, examples: [] }
    const post = (uri: string, body: unknown, key: string) =>
      Effect.map(
        Effect.either(raw.send({ method: "POST", path: uri, headers: ["content-type", "application/json"], body: JSON.stringify(body) })),
        (a) => {
          // 409: it is there already (the target's own, or an earlier replay's), which is what seeding wants
          if (a._tag === "Right" && ((a.right.code >= 200 && a.right.code < 300) || a.right.code === 409)) return true
          result.failed++
          if (result.examples.length < 10)
            result.examples.push({ key, message: a._tag === "Left" ? String((a.left as { message?: string }).message ?? a.left) : `${a.right.code}${a.right.message ? ` ${a.right.message}` : ""}` })
          return false
        }
      )
    yield* Effect.forEach(
      plan.namespaces,
      (ns) => Effect.map(post("/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }, `namespaces/${ns}`), (ok) => void (ok && result.namespaces++)),
      { concurrency: 16, discard: true }
    )
    yield* Effect.forEach(
      plan.objects,
      (o) =>
        Effect.map(post(o.collectionUri, o.body, o.key), (ok) => {
          if (!ok) return
          result.objects++
          if (o.synthesized) result.synthesized++
        }),
      { concurrency: 16, discard: true }
    )
    return result
  })

// ---------------------------------------------------------------------------------------------
// Second pass: the replay
// ---------------------------------------------------------------------------------------------

const operations: Readonly<Record<string, string>> = {
  get: "GET",
  list: "LIST",
  watch: "WATCH",
  create: "POST",
  update: "PUT",
  patch: "PATCH",
  delete: "DELETE",
  deletecollection: "DELETECOLLECTION"
}

/** The series of a replayed request: as the other load actions name theirs (docs/measurement.md). */
export const replayKey = (verb: string, out: OutgoingRequest, label: string): MetricKey => ({
  metric: "api_call",
  operation: operations[verb] ?? verb.toUpperCase(),
  resource: label,
  scope: out.path.name !== undefined ? "resource" : out.path.namespace !== undefined ? "namespace" : "cluster"
})

/** A planned start: a request copy, or the end of an open long-running one. */
type Planned =
  | { readonly _tag: "Send"; readonly at: number; readonly seq: number; readonly request: RecordedRequest; readonly copy: number; readonly out: OutgoingRequest }
  | { readonly _tag: "Close"; readonly at: number; readonly seq: number; readonly id: string }

/** Ordered by (at, seq). */
const plannedOrder = (a: Planned, b: Planned): boolean => a.at < b.at || (a.at === b.at && a.seq < b.seq)

/** An open long-running request: closed by its recorded end, or when the replay ends. */
interface Open {
  answer: RawAnswer | undefined
  closeRequested: boolean
}

const noSeeding: SeedResult = { namespaces: 0, objects: 0, synthesized: 0, failed: 0, examples: [] }

/** The report of what was replayed so far: all of it at the end, or up to an interrupt. */
const reportOf = (c: ReplayConfig, s: Survey | undefined, tally: ReplayTally, seeded: SeedResult, rounds: number, durationMs: number): ReplayReport => ({
  logs: (s?.stats ?? c.logs.map((file) => ({ file, lines: 0, events: 0 }))).map((x) => ({ file: x.file, lines: x.lines, events: x.events })),
  speed: c.speed,
  scale: c.scale,
  rounds,
  durationMs,
  impersonate: c.impersonate,
  ...(c.namespacePrefix ? { namespacePrefix: c.namespacePrefix } : {}),
  badInput: { total: tally.badTotal, byClass: { ...tally.badByClass }, examples: tally.badExamples },
  selection: { windowMs: c.windowMs, ...(s?.selection ?? { requestReceived: 0, duplicates: 0, lateBeyondWindow: 0 }), filteredOut: s?.filteredOut ?? 0 },
  requests: {
    planned: tally.planned,
    sent: tally.sent,
    matched: tally.matched,
    mismatched: tally.mismatched,
    connectionErrors: tally.connectionErrors,
    dropped: tally.dropped,
    synthesized: tally.synthesized,
    longRunning: tally.longRunning
  },
  seeding: seeded,
  groups: tally.groupsReport(),
  mismatches: tally.mismatchReport(),
  throughput: tally.throughput(),
  scheduling: { ...tally.scheduling.figures(), late: tally.late, lateOver5ms: tally.lateOver5ms }
})

/**
 * The replay, to its report. Interrupted (Ctrl-C, a phase cut short), it hands `onInterrupt` the report of what it
 * replayed so far — the answers compared, the bad input, the seeding — as a run writes its partial artifact
 * (docs/scenarios.md).
 */
export const runReplay = (c: ReplayConfig, progress?: ReplayProgress, onInterrupt?: (partial: ReplayReport) => Effect.Effect<void>) =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    const raw = hasRawSender(api) ? api.raw : undefined
    if (raw === undefined)
      return yield* Effect.fail(
        new ReplayError({ message: "replay sends recorded requests as they are and needs a target reached over HTTP (embedded or a URL), not an in-process one" })
      )
    if (!c.allowRemote && !isLoopbackOrigin(raw.origin)) return yield* Effect.fail(new ReplayError({ message: remoteRefusal(raw.origin) }))
    if (!(c.speed > 0)) return yield* Effect.fail(new ReplayError({ message: `speed must be > 0, got ${c.speed}` }))
    if (!Number.isInteger(c.scale) || c.scale < 1) return yield* Effect.fail(new ReplayError({ message: `scale must be an integer ≥ 1, got ${c.scale}` }))
    const recorder = yield* LatencyRecorder
    const clock = yield* Effect.clock
    const now = () => Number(clock.unsafeCurrentTimeNanos()) / 1e6

    // bad input is counted in the first pass only
    const tally = new ReplayTally(1000)
    let surveyed: Survey | undefined
    let seeded = noSeeding
    let rounds = 0
    /** The schedule's start (Clock ms), once the log's first entries are planned. */
    let t0 = Number.NaN
    // the scope's last finalizer: after the requests' fibers are stopped, what they got is in the tally
    yield* Effect.addFinalizer((exit) =>
      onInterrupt !== undefined && Exit.isInterrupted(exit)
        ? Effect.suspend(() => onInterrupt(reportOf(c, surveyed, tally, seeded, rounds, Number.isNaN(t0) ? 0 : Math.max(0, Math.round(now() - t0)))))
        : Effect.void
    )

    // first pass
    const s = yield* survey(c, tally)
    surveyed = s
    if (c.loop && s.seed.leftBehind.size > 0) {
      const left = [...s.seed.leftBehind]
      progress?.warn?.(
        `the log creates ${plural(left.length, "object")} it does not delete (${left.slice(0, 3).join(", ")}${left.length > 3 ? ", …" : ""}): with loop, every round after the first creates ${left.length === 1 ? "it" : "them"} again and gets 409 where the log had 201 (docs/replay.md "Scaling a log")`
      )
    }
    const spanMs = s.firstMs === undefined ? 0 : s.lastMs - s.firstMs
    const replayMs = c.loop && c.loopForMs !== undefined ? c.loopForMs : spanMs / c.speed
    // at most ~600 buckets: a second each up to 10 minutes of replay, wider after
    const bucketMs = Math.max(1000, Math.ceil(replayMs / 600 / 1000) * 1000)
    tally.bucketMs = bucketMs

    if (c.seed) seeded = yield* runSeed(raw, s.seed)

    // second pass
    const shortFibers = yield* FiberSet.make<void, never>()
    const longFibers = yield* FiberSet.make<void, never>()
    const bound = new Map<string, BoundRecorder>()
    const boundFor = (key: MetricKey): BoundRecorder => {
      const k = `${key.operation} ${key.resource} ${key.scope}`
      let b = bound.get(k)
      if (b === undefined) bound.set(k, (b = recorder.bind(key, "open")))
      return b
    }
    const opens = new Map<string, Open>()
    let inFlight = 0

    /**
     * The answer each object's last request will get: the next request on the object — or in the namespace, for a
     * namespace — waits for it, so requests on one object keep the log's order (a pod's binding after its create, a
     * status update after the object's create, a create after its namespace's) when the target answers slower than the
     * recorded gap between them. The wait counts in the later one's latency.
     */
    const lastOnObject = new Map<string, Promise<void>>()
    /** Registers a short request on its object, in start order: what it waits for, and how it lets the next one go. */
    const objectTurn = (out: OutgoingRequest): { readonly prior: Promise<unknown> | undefined; readonly release: () => void } => {
      if (out.longRunning) return { prior: undefined, release: () => {} }
      const inNamespace = out.within === undefined ? undefined : lastOnObject.get(out.within)
      if (out.object === undefined) return { prior: inNamespace, release: () => {} }
      const key = out.object
      const onObject = lastOnObject.get(key)
      const prior = inNamespace === undefined ? onObject : onObject === undefined ? inNamespace : Promise.all([inNamespace, onObject])
      let release!: () => void
      const mine = new Promise<void>((resolve) => (release = resolve))
      lastOnObject.set(key, mine)
      return {
        prior,
        release: () => {
          release()
          if (lastOnObject.get(key) === mine) lastOnObject.delete(key)
        }
      }
    }

    /** The update's body with the target's resourceVersion of the object (`OutgoingRequest.conditional`), as the same user reads it. */
    const conditionalBody = (out: OutgoingRequest) =>
      Effect.map(
        Effect.either(raw.send({ method: "GET", path: objectUri(out.path), headers: out.headers.filter((_, i, h) => h[i - (i % 2)] !== "content-type"), readResourceVersion: true })),
        (a) => (a._tag === "Right" && a.right.resourceVersion !== undefined && out.body !== undefined ? withResourceVersion(out.body, a.right.resourceVersion) : out.body)
      )

    const send = (p: Extract<Planned, { _tag: "Send" }>, prior: Promise<unknown> | undefined, release: () => void) =>
      Effect.gen(function* () {
        const r = p.request
        const e = r.event
        const out = p.out
        const label = resourceLabel(e, out.path)
        const key = replayKey(e.verb, out, label)
        if (prior !== undefined) yield* Effect.promise(() => prior)
        const sentAt = now()
        const body = out.conditional ? yield* conditionalBody(out) : out.body
        const answer = yield* Effect.either(raw.send({ method: out.method, path: out.uri, headers: out.headers, body, longRunning: out.longRunning }))
        release()
        const doneAt = now()
        const code = answer._tag === "Right" ? answer.right.code : undefined
        const matched = sameCode(r.recordedCode, code)
        const intended = t0 + p.at
        boundFor(key)(intended, sentAt, doneAt, code === undefined ? "connectionError" : matched ? "ok" : "error")
        tally.answered({
          verb: e.verb,
          resource: label,
          user: effectiveUser(e).username ?? "",
          recordedCode: r.recordedCode,
          replayedCode: code,
          recordedLatencyMs: r.recordedLatencyMs,
          replayedLatencyMs: doneAt - intended,
          uri: out.uri,
          file: r.file,
          line: r.line,
          ...(answer._tag === "Left" ? { message: String((answer.left as { message?: string }).message ?? answer.left) } : answer.right.message ? { message: answer.right.message } : {})
        })
        if (matched) progress?.ok()
        else progress?.error(answer._tag === "Left" ? answer.left : new Error(`${e.verb} ${out.uri}: recorded ${r.recordedCode ?? "-"}, replayed ${code}`))
        if (answer._tag === "Left" || !out.longRunning || answer.right.close === undefined) return
        const a = answer.right
        // held for its recorded duration (over the speed) when the log had it; else until its end is read
        if (r.holdMs !== undefined) {
          yield* Effect.raceFirst(Effect.sleep(Duration.millis(r.holdMs / c.speed)), Effect.promise(() => a.ended!))
          a.close!()
          return
        }
        const id = `${e.auditID}#${p.copy}`
        const open = opens.get(id)
        if (open === undefined || open.closeRequested) {
          a.close!()
          opens.delete(id)
          return
        }
        open.answer = a
        yield* Effect.promise(() => a.ended!)
        opens.delete(id)
      }).pipe(Effect.ensuring(Effect.sync(() => (release(), void (p.out.longRunning || inFlight--)))))

    const heap = new MinHeap<Planned>(plannedOrder)
    let seq = 0
    const deadline = c.loop && c.loopForMs !== undefined ? c.loopForMs : Number.POSITIVE_INFINITY
    let stopped = false
    /** Until `due` (Clock ms): a timer to `SpinMs` before it, then turns of the event loop (docs/replay.md "Memory and timing"). */
    const waitForStart = (due: number) => waitUntil(due, now, SpinMs)
    for (let round = 0; !stopped; round++) {
      rounds = round + 1
      const source = new SelectedSource(c.logs, c.windowMs, new ReplayTally(bucketMs), [], sendingView, true)
      /** The next selected entry's planned time (of its copy 0), for knowing how far to read ahead. */
      const plannedOf = (x: Selected): number => {
        const at = x._tag === "Request" ? x.request.scheduleMs : x.atMs
        return intendedOffsetMs({ recordedOffsetMs: at - (s.firstMs ?? at), speed: c.speed, copy: 0, scale: c.scale, round, spanMs })
      }
      /** The planned time of the last entry planned: how far ahead of the clock the plan reaches. */
      let plannedUntil = Number.NEGATIVE_INFINITY
      /** An entry into the plan: its copies' starts, or its copies' closes. */
      const plan = (x: Selected): void => {
        plannedUntil = plannedOf(x)
        if (x._tag === "End") {
          for (let copy = 0; copy < c.scale; copy++)
            heap.push({ _tag: "Close", at: plannedOf(x) + intendedOffsetMs({ recordedOffsetMs: 0, speed: c.speed, copy, scale: c.scale, round: 0, spanMs }), seq: seq++, id: `${x.auditID}#${copy}` })
          return
        }
        const r = x.request
        if (!keptByFilter(c.filter, r, s.logStartMs)) return
        for (let copy = 0; copy < c.scale; copy++) {
          const out = outgoingRequest(r, copy, c)
          if (out instanceof UnparsableUri) continue
          const at = intendedOffsetMs({ recordedOffsetMs: r.scheduleMs - s.firstMs!, speed: c.speed, copy, scale: c.scale, round, spanMs })
          heap.push({ _tag: "Send", at, seq: seq++, request: r, copy, out })
        }
      }
      /** The next unread entry might start before the earliest start held: it must be read before that start. */
      const mustRead = (): boolean => {
        const x = source.peek()
        return x === undefined ? !source.done : heap.size === 0 || plannedOf(x) <= heap.peek()!.at
      }
      /** Reads until the next entry is planned after the earliest start held (or the logs end). */
      const planNeeded: Effect.Effect<void> = Effect.suspend(function loop(): Effect.Effect<void> {
        for (;;) {
          const x = source.peek()
          if (x === undefined) {
            if (source.done) return Effect.void
            if (!source.advance(64)) return Effect.flatMap(Effect.promise(() => source.read()), loop)
            continue
          }
          if (heap.size > 0 && plannedOf(x) > heap.peek()!.at) return Effect.void
          source.shift()
          plan(x)
        }
      })
      /**
       * In a gap before the next start: plans further ahead (up to `LookaheadMs` of replay time, `MaxPlanned`
       * entries), a few lines at a time, until `until` (Clock ms). `more` when time ran out first, `read` when a
       * chunk is being read, `enough` otherwise.
       */
      const planAhead = (until: number): "more" | "read" | "enough" => {
        for (;;) {
          if (heap.size >= MaxPlanned || plannedUntil > now() - t0 + LookaheadMs) return "enough"
          if (now() >= until) return "more"
          const x = source.shift()
          if (x !== undefined) {
            plan(x)
            continue
          }
          if (source.done) return "enough"
          if (!source.advance(4)) return "read"
        }
      }
      yield* planNeeded
      // the schedule starts once the log is open and its first entries planned, a moment ahead: reading them is no lateness
      if (round === 0) {
        t0 = (yield* nowMillis) + StartLeadMs
        progress?.scheduled?.(t0 + replayMs)
      }
      /** Requests were started since the sender last yielded: they go out before it does anything else. */
      let started = false
      for (;;) {
        if (mustRead()) yield* planNeeded
        const next = heap.peek()
        if (next === undefined) break
        if (next.at > deadline) {
          stopped = true
          break
        }
        const intended = t0 + next.at
        if (intended > now()) {
          if (started) {
            started = false
            yield* Effect.yieldNow()
            continue
          }
          // the gap before the next start: read ahead in it, a slice at a time, never into the start's time
          const ahead = intended - now() > SlackMs ? planAhead(Math.min(now() + SliceMs, intended - SlackMs)) : "enough"
          if (ahead === "more") yield* nextTurn
          else if (ahead === "read") yield* Effect.raceFirst(Effect.promise(() => source.read()), waitForStart(intended))
          else yield* waitForStart(intended)
          continue
        }
        heap.pop()
        if (next._tag === "Close") {
          const open = opens.get(next.id)
          if (open?.answer !== undefined) open.answer.close?.()
          else if (open !== undefined) open.closeRequested = true
          continue
        }
        tally.plannedAt(next.at)
        if (!next.out.longRunning && inFlight >= c.maxInFlight) {
          tally.dropped++
          yield* recorder.recordDropped(replayKey(next.request.event.verb, next.out, resourceLabel(next.request.event, next.out.path)))
          continue
        }
        tally.started(now() - t0, now() - intended)
        if (next.out.synthesized) tally.synthesized++
        if (next.out.longRunning) {
          tally.longRunning++
          if (next.request.holdMs === undefined) opens.set(`${next.request.event.auditID}#${next.copy}`, { answer: undefined, closeRequested: false })
        } else inFlight++
        const turn = objectTurn(next.out)
        yield* FiberSet.run(next.out.longRunning ? longFibers : shortFibers, send(next, turn.prior, turn.release))
        started = true
      }
      source.close()
      if (!c.loop || s.firstMs === undefined) stopped = true
    }
    // the requests still running finish; long-running ones whose end the log did not show are closed now
    yield* Effect.raceFirst(FiberSet.awaitEmpty(shortFibers), Effect.sleep(Duration.seconds(30)))
    for (const open of opens.values()) {
      open.closeRequested = true
      open.answer?.close?.()
    }
    yield* Effect.raceFirst(FiberSet.awaitEmpty(longFibers), Effect.sleep(Duration.seconds(5)))
    yield* FiberSet.clear(shortFibers)
    yield* FiberSet.clear(longFibers)
    // nothing planned: the replay ended before its schedule's start (t0 is a moment ahead of the first read)
    const durationMs = Math.max(0, Math.round(now() - t0))

    return reportOf(c, s, tally, seeded, rounds, durationMs)
  }).pipe(Effect.scoped)

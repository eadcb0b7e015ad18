/**
 * The coordinator's side of generator workers (`--workers N`): worker processes for segments 1…N−1 (the coordinator
 * runs segment 0 itself), started together, and their results folded into the run's — series and intervals merged
 * exactly (src/loadgen/WorkerMerge.ts), action reports and error counts summed, health combined so that one
 * saturated worker flags the run. Protocol: ./WorkerProtocol.ts.
 */
import { Data, Deferred, Effect, FiberId, type Scope } from "effect"
import type { ChildProcess } from "node:child_process"
import { availableParallelism } from "node:os"
import type { HttpClientOptions } from "../../src/client/HttpTransport.js"
import { segments } from "../../src/loadgen/ExecutionSegment.js"
import type { ExecutorReport } from "../../src/loadgen/Arrival.js"
import type { ActionReport, InformerReport } from "../../src/loadgen/Artifact.js"
import { spawnEntry } from "./ChildEntry.js"
import type { FromWorker, ToWorker, WorkerResult } from "./WorkerProtocol.js"

export class WorkerFailed extends Data.TaggedError("WorkerFailed")<{ readonly message: string }> {}

/** Default worker count: the machine's cores, less one for a server on this machine; at least one. */
export const defaultWorkers = (cores: number, localServer: boolean): number => Math.max(1, cores - (localServer ? 1 : 0))

export const machineCores = (): number => availableParallelism()

export interface Workers {
  /** Start every worker's phases (after the coordinator's setup). */
  readonly start: Effect.Effect<void>
  /** Cut the workers' runs short; they still report. */
  readonly stop: Effect.Effect<void>
  /** Every worker's result, segment 1 first. */
  readonly results: Effect.Effect<ReadonlyArray<WorkerResult>, WorkerFailed>
}

const send = (child: ChildProcess, m: ToWorker) => Effect.sync(() => void (child.connected && child.send(m)))

/** Starts workers for segments 1…count−1 and waits until each has its client and recorder ready. */
export const startWorkers = (o: {
  readonly count: number
  readonly file: string
  readonly sets?: ReadonlyArray<string>
  readonly env?: Readonly<Record<string, string>>
  readonly seed: number
  readonly runTag: string
  readonly client: Omit<HttpClientOptions, "traffic">
  readonly originMs: number
}): Effect.Effect<Workers, WorkerFailed, Scope.Scope> =>
  Effect.gen(function* () {
    const started = yield* Effect.forEach(segments(o.count).slice(1), (segment) =>
      Effect.acquireRelease(
        Effect.sync(() => {
          const child = spawnEntry("workerEntry", [])
          const ready = Deferred.unsafeMake<void, WorkerFailed>(FiberId.none)
          const done = Deferred.unsafeMake<WorkerResult, WorkerFailed>(FiberId.none)
          const fail = (message: string) => {
            const e = new WorkerFailed({ message: `generator worker ${segment.index}: ${message}` })
            Effect.runSync(Deferred.fail(ready, e))
            Effect.runSync(Deferred.fail(done, e))
          }
          child.on("message", (m: FromWorker) => {
            if (m.type === "ready") Effect.runSync(Deferred.succeed(ready, undefined))
            else if (m.type === "done") Effect.runSync(Deferred.succeed(done, m.result))
            else fail(m.message)
          })
          child.once("error", (e) => fail(e.message))
          child.once("exit", (code, signal) => fail(`exited (${signal ?? `exit ${code}`}) before reporting`))
          child.send({ type: "config", config: { file: o.file, ...(o.sets ? { sets: o.sets } : {}), ...(o.env ? { env: o.env } : {}), seed: o.seed, runTag: o.runTag, segment, client: o.client, originMs: o.originMs } } satisfies ToWorker)
          return { child, ready, done }
        }),
        ({ child }) => Effect.sync(() => void (child.exitCode === null && child.kill("SIGTERM")))
      )
    )
    yield* Effect.forEach(started, (w) => Deferred.await(w.ready), { discard: true })
    return {
      start: Effect.forEach(started, (w) => send(w.child, { type: "start" }), { discard: true }),
      stop: Effect.forEach(started, (w) => send(w.child, { type: "stop" }), { discard: true }),
      results: Effect.forEach(started, (w) => Deferred.await(w.done))
    }
  })

// ---------------------------------------------------------------------------------------------
// Folding workers' reports into the run's (pure)
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
    triggers: sumRecords(all.map((r) => r.triggers))
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

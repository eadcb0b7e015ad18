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

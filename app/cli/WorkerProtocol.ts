/**
 * What a run's coordinator and its generator workers say to each other over the IPC channel (./GeneratorWorkers.ts,
 * ./workerEntry.ts). The coordinator sends `config`, waits for every `ready`, then sends `start` to all at once (so the
 * workers' phases begin together, after the coordinator's setup); `stop` cuts a run short (a signal). A worker answers
 * `done` with what it recorded, histograms V2-encoded, or `failed`.
 */
import type { HttpClientOptions } from "../../src/client/HttpTransport.js"
import type { ExecutionSegment } from "../../src/loadgen/ExecutionSegment.js"
import type { HealthReport } from "../../src/loadgen/GeneratorHealth.js"
import type { EncodedSeries, IntervalSnapshot } from "../../src/loadgen/LatencyRecorder.js"
import type { ActionReport } from "../../src/loadgen/Artifact.js"

export interface WorkerConfig {
  readonly file: string
  /** The run's `--set` overrides, applied to the file as the coordinator applied them. */
  readonly sets?: ReadonlyArray<string>
  /** The coordinator's values of the variables the file refers to (`${VAR}`). */
  readonly env?: Readonly<Record<string, string>>
  readonly seed: number
  readonly runTag: string
  readonly segment: ExecutionSegment
  /** The target, as the coordinator's client reaches it (sent over IPC, never on the command line: tokens, keys). */
  readonly client: Omit<HttpClientOptions, "traffic">
  /** The coordinator's recorder origin: interval *i* is the same second of the run in every worker. */
  readonly originMs: number
}

export interface WorkerResult {
  readonly series: ReadonlyArray<EncodedSeries>
  readonly intervals: ReadonlyArray<IntervalSnapshot>
  readonly actions: ReadonlyArray<ActionReport>
  readonly ops: number
  readonly errors: number
  readonly errorMessages: ReadonlyArray<readonly [string, number]>
  readonly health: HealthReport
}

export type ToWorker = { readonly type: "config"; readonly config: WorkerConfig } | { readonly type: "start" } | { readonly type: "stop" }

export type FromWorker = { readonly type: "ready" } | { readonly type: "done"; readonly result: WorkerResult } | { readonly type: "failed"; readonly message: string }

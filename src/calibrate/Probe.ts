/**
 * The probe of `clustersim calibrate` (docs/calibration.md): a short, bounded series of steps against any API
 * server — GETs of one object, LISTs of a namespace grown step by step, creates with bodies of growing size, watch
 * starts — each run one request at a time for a few seconds (or a bounded number of samples), so what it measures
 * is the server's service time, not a queue. Everything it creates lives in one namespace it deletes at the end.
 */
import { Effect, Either, Option, Stream } from "effect"
import { resolveResource, type ResourceType } from "../api/Resources.js"
import type { ApiError } from "../api/Status.js"
import { ApiClient } from "../client/ApiClient.js"
import { nowMillis } from "../loadgen/LatencyRecorder.js"
import type { Measurement } from "./Fit.js"

export interface ProbeOptions {
  /** The namespace the probe creates, fills and deletes. */
  readonly namespace: string
  /** Wall time of one step (ms). */
  readonly stepMs: number
  /** Most samples of one step. */
  readonly maxSamples: number
  /** Objects in the namespace for each LIST step, growing. */
  readonly listSizes: ReadonlyArray<number>
  /** Body sizes (KiB) of the create steps. */
  readonly bodyKiB: ReadonlyArray<number>
  /** A line per step; also without a terminal. */
  readonly progress: (line: string) => void
}

export const defaultProbeOptions: Omit<ProbeOptions, "progress"> = {
  namespace: "clustersim-calibrate",
  stepMs: 2000,
  maxSamples: 400,
  listSizes: [0, 100, 400, 1000],
  bodyKiB: [1, 16, 64]
}

/** A step's figures: its request shape, samples and latency percentiles (ms). */
export interface StepResult extends Measurement {
  readonly samples: number
  readonly p50: number
  readonly p99: number
}

export interface ProbeResult {
  readonly steps: ReadonlyArray<StepResult>
  /** Watch starts (to the first event): the model books a watch's start as a read of nothing (informative). */
  readonly watchStart?: { readonly samples: number; readonly p50: number; readonly p99: number }
}

const resource = (name: string): ResourceType => resolveResource(name)!
const ConfigMaps = resource("configmaps")
const Namespaces = resource("namespaces")

/** Request bodies are charged by their JSON length, as the model counts them (simulator/apiserver/ServiceTime.ts). */
export const kibOf = (value: unknown): number => JSON.stringify(value).length / 1024

/** Objects of the LIST steps: small config maps, as most stored objects are. */
const listObject = (namespace: string, i: number) => ({ metadata: { name: `list-${i}`, namespace }, data: { index: String(i), payload: "x".repeat(200) } })
const bodyOf = (namespace: string, name: string, kib: number) => ({ metadata: { name, namespace }, data: { payload: "x".repeat(Math.max(0, Math.round(kib * 1024) - 80)) } })

export const percentile = (sorted: ReadonlyArray<number>, p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!

/** Runs `request` one at a time for the step's time (at least a few samples, at most `maxSamples`); latencies in ms. */
const timedLoop = (o: ProbeOptions, request: (i: number) => Effect.Effect<unknown, ApiError>) =>
  Effect.gen(function* () {
    const latencies: Array<number> = []
    // the first requests of a step pay for the server's and client's warm-up (JIT, caches)
    for (let i = 0; i < 3; i++) yield* request(-1 - i)
    const start = yield* nowMillis
    for (let i = 0; i < o.maxSamples; i++) {
      const t0 = yield* nowMillis
      if (latencies.length >= 5 && t0 - start >= o.stepMs) break
      yield* request(i)
      latencies.push((yield* nowMillis) - t0)
    }
    return latencies.sort((a, b) => a - b)
  })

const ignoreConflict = <A, R>(e: Effect.Effect<A, ApiError, R>) => Effect.catchIf(e, (err) => err.status.code === 409, () => Effect.void)

export const probe = (o: ProbeOptions): Effect.Effect<ProbeResult, ApiError, ApiClient> =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    const ns = o.namespace
    const steps: Array<StepResult> = []
    const record = (m: Omit<Measurement, "latencyMs">, sorted: ReadonlyArray<number>) => {
      const step = { ...m, latencyMs: percentile(sorted, 50), samples: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) }
      steps.push(step)
      o.progress(`calibrate: ${m.step}: ${sorted.length} samples, p50 ${step.p50.toFixed(2)} ms, p99 ${step.p99.toFixed(2)} ms`)
    }
    yield* ignoreConflict(api.create(Namespaces, { metadata: { name: ns } }))

    // GET of one object
    const target = bodyOf(ns, "get-target", 1)
    yield* ignoreConflict(api.create(ConfigMaps, target, { namespace: ns }))
    const stored = yield* api.get(ConfigMaps, "get-target", { namespace: ns })
    record({ step: "get 1 KiB", kind: "read", objects: 1, kib: kibOf(stored) }, yield* timedLoop(o, () => api.get(ConfigMaps, "get-target", { namespace: ns })))

    // LISTs of a growing namespace (the GET's object is one of them)
    let created = 0
    for (const size of o.listSizes) {
      const want = Math.max(0, size - 1)
      yield* Effect.forEach(
        Array.from({ length: Math.max(0, want - created) }, (_, k) => created + k),
        (i) => ignoreConflict(api.create(ConfigMaps, listObject(ns, i), { namespace: ns })),
        { concurrency: 8, discard: true }
      )
      created = Math.max(created, want)
      const objects = (yield* api.list(ConfigMaps, { namespace: ns })).items.length
      record({ step: `list ${objects} objects`, kind: "read", objects, kib: 0 }, yield* timedLoop(o, () => api.list(ConfigMaps, { namespace: ns })))
    }

    // watch starts: a watch without a resource version begins with the namespace's objects (the first event)
    const watchTimes: Array<number> = []
    const watchStart = yield* nowMillis
    while (watchTimes.length < Math.min(o.maxSamples, 50) && ((yield* nowMillis) - watchStart < o.stepMs || watchTimes.length < 3)) {
      const t0 = yield* nowMillis
      const first = yield* Stream.runHead(api.watch(ConfigMaps, { namespace: ns, fieldSelector: "metadata.name=get-target" })).pipe(Effect.timeoutOption(5000))
      if (Option.isNone(first)) break
      watchTimes.push((yield* nowMillis) - t0)
    }
    watchTimes.sort((a, b) => a - b)
    if (watchTimes.length > 0) o.progress(`calibrate: watch start: ${watchTimes.length} samples, p50 ${percentile(watchTimes, 50).toFixed(2)} ms`)

    // creates with growing bodies
    for (const kib of o.bodyKiB) {
      const sample = bodyOf(ns, `write-${kib}k-0`, kib)
      const sorted = yield* timedLoop(o, (i) => api.create(ConfigMaps, bodyOf(ns, `write-${kib}k-${i < 0 ? `warm${-i}` : i}`, kib), { namespace: ns }))
      record({ step: `create ${kib} KiB`, kind: "write", objects: 0, kib: kibOf(sample) }, sorted)
    }

    // what it created goes (a failed cleanup does not spoil the measurements)
    const cleanup = yield* Effect.either(Effect.zipRight(api.deleteCollection(ConfigMaps, { namespace: ns }), api.delete(Namespaces, ns)))
    if (Either.isLeft(cleanup)) o.progress(`calibrate: cleanup of namespace ${ns} failed: ${cleanup.left.message}`)
    return {
      steps,
      ...(watchTimes.length > 0 ? { watchStart: { samples: watchTimes.length, p50: percentile(watchTimes, 50), p99: percentile(watchTimes, 99) } } : {})
    }
  })


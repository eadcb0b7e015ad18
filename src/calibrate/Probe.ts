/**
 * The probe of `clustersim calibrate` (docs/calibration.md): a short, bounded series of steps against any API
 * server — GETs of one object, LISTs of namespaces of growing size, creates with bodies of growing size, watch
 * starts — each run one request at a time for a few seconds (or a bounded number of samples), so what it measures
 * is the server's service time, not a queue. A step's time is taken in turns, in rotation with the other steps, so
 * a host whose load changes meanwhile skews every step alike rather than one. Everything it creates lives in
 * namespaces of its own that it empties and deletes at the end.
 */
import { Duration, Effect, Either, Option, Stream } from "effect"
import { resolveResource, type ResourceType } from "../api/Resources.js"
import { ApiClient } from "../client/ApiClient.js"
import { nowMillis } from "../loadgen/LatencyRecorder.js"
import type { Measurement, Overlap } from "./Fit.js"
import { type ClientError, hasStatusCode } from "../client/TransportError.js"

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
  /**
   * Requests of a step start this far apart (ms; one at a time, a slow one delays the next): a server answering
   * requests at a rate, as loads do, rather than back to back. 0: back to back.
   */
  readonly paceMs: number
  /** A line per step; also without a terminal. */
  readonly progress: (line: string) => void
}

export const defaultProbeOptions: Omit<ProbeOptions, "progress"> = {
  namespace: "clustersim-calibrate",
  stepMs: 2000,
  maxSamples: 400,
  listSizes: [0, 100, 400, 1000],
  bodyKiB: [1, 16, 64],
  paceMs: 50
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
  /** GETs sent while the largest LIST runs (Fit.ts `sharedSeatsOf`: does the server answer both on one thread?). */
  readonly overlap?: Overlap
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

/** Runs `request` one at a time for `ms` (at least `min` samples, at most `max`); latencies in ms. */
const timedLoop = (ms: number, min: number, max: number, paceMs: number, request: (i: number) => Effect.Effect<unknown, ClientError>, into: Array<number>) =>
  Effect.gen(function* () {
    // the first request of a step's turn pays for switching the server's and client's caches to it
    yield* request(-1)
    const start = yield* nowMillis
    for (let i = 0; i < max; i++) {
      const t0 = yield* nowMillis
      if (i >= min && t0 - start >= ms) break
      yield* request(i)
      const t1 = yield* nowMillis
      into.push(t1 - t0)
      if (t0 + paceMs > t1) yield* Effect.sleep(Duration.millis(t0 + paceMs - t1))
    }
  })

/** GETs sent during the largest LIST (each pair once, paced as the steps are). */
export const OverlapSamples = 15

const timedGet = (get: Effect.Effect<unknown, ClientError>): Effect.Effect<number, ClientError> =>
  Effect.gen(function* () {
    // sent just after the LIST, so that it arrives while the server works on the LIST
    yield* Effect.sleep(Duration.millis(1))
    const t0 = yield* nowMillis
    yield* get
    return (yield* nowMillis) - t0
  })

const ignoreConflict = <A, R>(e: Effect.Effect<A, ClientError, R>) => Effect.catchIf(e, (err) => hasStatusCode(err, 409), () => Effect.void)

/** Each step's time is split into this many turns, taken in rotation, so a change of the host's load hits every step alike. */
export const Rounds = 3

interface Step {
  readonly shape: Omit<Measurement, "latencyMs">
  readonly request: (round: number, i: number) => Effect.Effect<unknown, ClientError>
  readonly latencies: Array<number>
}

export const probe = (o: ProbeOptions): Effect.Effect<ProbeResult, ClientError, ApiClient> =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    const ns = o.namespace
    const listNamespace = (size: number) => `${ns}-list-${size}`
    const namespaces = [ns, ...o.listSizes.map(listNamespace)]
    for (const name of namespaces) yield* ignoreConflict(api.create(Namespaces, { metadata: { name } }))
    const steps: Array<Step> = []

    // GET of one object
    yield* ignoreConflict(api.create(ConfigMaps, bodyOf(ns, "get-target", 1), { namespace: ns }))
    const stored = yield* api.get(ConfigMaps, "get-target", { namespace: ns })
    steps.push({ shape: { step: "get 1 KiB", kind: "read", objects: 1, kib: kibOf(stored) }, request: () => api.get(ConfigMaps, "get-target", { namespace: ns }), latencies: [] })

    // LISTs: a namespace per size, filled first
    for (const size of o.listSizes) {
      const namespace = listNamespace(size)
      yield* Effect.forEach(
        Array.from({ length: size }, (_, i) => i),
        (i) => ignoreConflict(api.create(ConfigMaps, listObject(namespace, i), { namespace })),
        { concurrency: 8, discard: true }
      )
      const objects = (yield* api.list(ConfigMaps, { namespace })).items.length
      steps.push({ shape: { step: `list ${objects} objects`, kind: "read", objects, kib: 0 }, request: () => api.list(ConfigMaps, { namespace }), latencies: [] })
    }
    o.progress(`calibrate: ${o.listSizes.reduce((n, s) => n + s, 0)} objects created for the LIST steps`)

    // creates with growing bodies (new names every time)
    for (const kib of o.bodyKiB) {
      steps.push({
        shape: { step: `create ${kib} KiB`, kind: "write", objects: 0, kib: kibOf(bodyOf(ns, `write-${kib}k-r0-0`, kib)) },
        request: (round, i) => api.create(ConfigMaps, bodyOf(ns, `write-${kib}k-r${round}-${i < 0 ? "warm" : i}`, kib), { namespace: ns }),
        latencies: []
      })
    }

    const turnMs = o.stepMs / Rounds
    const turnMax = Math.max(2, Math.ceil(o.maxSamples / Rounds))
    for (let round = 0; round < Rounds; round++) {
      for (const step of steps) yield* timedLoop(turnMs, 2, turnMax, o.paceMs, (i) => step.request(round, i), step.latencies)
      o.progress(`calibrate: round ${round + 1} of ${Rounds} done`)
    }
    const results: Array<StepResult> = steps.map((step) => {
      const sorted = step.latencies.sort((a, b) => a - b)
      const p50 = percentile(sorted, 50)
      const p99 = percentile(sorted, 99)
      o.progress(`calibrate: ${step.shape.step}: ${sorted.length} samples, p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`)
      return { ...step.shape, latencyMs: p50, p99Ms: p99, samples: sorted.length, p50, p99 }
    })

    // GETs during the largest LIST: a server with one thread answers the GET only after the LIST
    const largest = steps.filter((step) => step.shape.step.startsWith("list ")).at(-1)
    const alone = results.find((r) => r.step === "get 1 KiB")
    const list = results.find((r) => r.step === largest?.shape.step)
    let overlap: Overlap | undefined
    if (largest !== undefined && alone !== undefined && list !== undefined && list.objects > 0) {
      const during: Array<number> = []
      for (let i = 0; i < OverlapSamples; i++) {
        const [, get] = yield* Effect.all([largest.request(0, i), timedGet(api.get(ConfigMaps, "get-target", { namespace: ns }))], { concurrency: 2 })
        during.push(get)
        yield* Effect.sleep(Duration.millis(o.paceMs))
      }
      during.sort((a, b) => a - b)
      overlap = { getAloneMs: alone.p50, getDuringListMs: percentile(during, 50), listMs: list.p50 }
      o.progress(`calibrate: GET during a LIST of ${list.objects}: p50 ${overlap.getDuringListMs.toFixed(2)} ms (alone ${alone.p50.toFixed(2)} ms, the LIST ${list.p50.toFixed(2)} ms)`)
    }

    // watch starts: a watch without a resource version begins with the object it selects (the first event)
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

    // what it created goes (a failed cleanup does not spoil the measurements)
    for (const name of namespaces) {
      const cleanup = yield* Effect.either(Effect.zipRight(api.deleteCollection(ConfigMaps, { namespace: name }), api.delete(Namespaces, name)))
      if (Either.isLeft(cleanup)) o.progress(`calibrate: cleanup of namespace ${name} failed: ${cleanup.left.message}`)
    }
    return {
      steps: results,
      ...(overlap !== undefined ? { overlap } : {}),
      ...(watchTimes.length > 0 ? { watchStart: { samples: watchTimes.length, p50: percentile(watchTimes, 50), p99: percentile(watchTimes, 99) } } : {})
    }
  })

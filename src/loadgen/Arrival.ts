/**
 * Load executors (docs/measurement.md "Open and closed load").
 *
 * Open model — `constantArrivalRate`, `rampingArrivalRate`: iteration *i* is planned at `t0 + offset(i)`
 * on an absolute schedule fixed before the run, whatever the operations do. Latency is measured from
 * that **intended** start, so a generator that falls behind (busy loop, coarse timers, GC) or a slow
 * server both show up as latency instead of disappearing (coordinated omission). A slot that finds
 * `maxInFlight` operations running is **dropped** and counted (k6 `dropped_iterations`), never queued.
 *
 * Closed model — `closedLoop`: N workers, each starts its next operation when the previous one ends.
 * Useful for saturation tests; its series are labelled `closed` because it under-samples stalls.
 *
 * Time comes only from the Effect `Clock` (`Effect.sleep`, `Clock` nanos), so executors run under the
 * live clock, `TestClock` or a virtual clock.
 */
import { isConnectionFailure } from "./ConnectionFailure.js"
import { type ExecutionSegment, runWideIteration, shareOf, splitBy, stripe, wholeRun } from "./ExecutionSegment.js"
import { Cause, Data, Duration, Effect, Exit, FiberSet, Option } from "effect"
import { type BoundRecorder, LatencyRecorder, type LoadModel, type MetricKey, nowMillis, type Outcome } from "./LatencyRecorder.js"
import { waitUntil } from "./WaitUntil.js"

// ---------------------------------------------------------------------------------------------
// Types
// ---------------------------------------------------------------------------------------------

export interface IterationContext {
  /** Clock ms at which this iteration was planned to start; latency is measured from here. */
  readonly intendedStart: number
  /** 0-based iteration number within the executor. */
  readonly iteration: number
  /**
   * Mark the moment the request actually leaves (e.g. after a client-side queue or connection
   * pool). Service time is measured from here; without a call it is measured from dispatch.
   */
  readonly markSent: Effect.Effect<void>
}

/**
 * An iteration in callback form: it sends at once (service time is measured from here) and calls `done` exactly
 * once, with its failure or `undefined`. What an operation that is one request offers (a load action's measured
 * GET): the executor then runs it without an Effect per request — a closed-loop worker's iterations chained in one
 * `Effect.async`, an open-model iteration as a plain call — instead of the dozen Effects of the `Operation` form
 * around every request (with their garbage, a fifth of the generator's CPU: docs/benchmarks.md, "Load generator").
 */
export type DirectIteration<E> = (iteration: number, intendedStart: number, done: (failure: E | undefined) => void) => void

export type Operation<E, R> = ((ctx: IterationContext) => Effect.Effect<void, E, R>) & {
  /**
   * The same operation in callback form, resolved once per executor (services, names, series). Absent, or
   * resolving to `undefined` (e.g. a client that needs an Effect per request), the executor runs the Effect form.
   */
  readonly direct?: Effect.Effect<DirectIteration<E> | undefined, never, R>
}

export class InvalidLoadConfig extends Data.TaggedError("InvalidLoadConfig")<{
  readonly executor: ExecutorName
  readonly field: string
  readonly reason: string
}> {
  override get message(): string {
    return `${this.executor}: invalid ${this.field}: ${this.reason}`
  }
}

export type ExecutorName = "constant-arrival-rate" | "ramping-arrival-rate" | "closed-loop"

export interface ExecutorReport {
  readonly executor: ExecutorName
  readonly model: LoadModel
  readonly key: MetricKey
  /** Iterations in the plan (open model) or the iteration budget (closed model with `iterations`). */
  readonly planned: number | undefined
  readonly started: number
  readonly completed: number
  readonly errors: number
  readonly dropped: number
  /** Still running at the end of the graceful stop, then interrupted (not recorded). */
  readonly interrupted: number
  /** Open model: dispatches later than `lateToleranceMs` after their intended start. */
  readonly lateStarts: number
  readonly maxLatenessMs: number
  readonly startedAtMs: number
  readonly endedAtMs: number
}

interface CommonOptions<E, R> {
  /** Series every iteration is recorded under. */
  readonly key: MetricKey
  readonly operation: Operation<E, R>
  /** After the planned duration, wait this long for running iterations, then interrupt them. Default 30 s (k6). */
  readonly gracefulStop?: Duration.DurationInput
  /**
   * This worker's share of the run (default: all of it). Rates, workers, iterations and `maxInFlight` stay the
   * run-wide figures; the executor runs the segment's part of them (./ExecutionSegment.ts).
   */
  readonly segment?: ExecutionSegment
}

export interface ConstantArrivalRateOptions<E, R> extends CommonOptions<E, R> {
  /** Iterations started per `timeUnit`. */
  readonly rate: number
  /** Default 1 second. */
  readonly timeUnit?: Duration.DurationInput
  readonly duration: Duration.DurationInput
  /** Concurrency cap; a slot that finds this many running is dropped. */
  readonly maxInFlight: number
  /** Dispatch lateness counted as a late start; default 10 ms. */
  readonly lateToleranceMs?: number
  /**
   * Return once the planned iterations ended rather than at the end of `duration`, which the executor otherwise
   * lasts as k6's does, however early its last slot is: a setup's creates are done when they are.
   */
  readonly endsWithPlan?: boolean
}

export interface RampStage {
  /** Rate (per `timeUnit`) reached, linearly, at the end of the stage. */
  readonly target: number
  readonly duration: Duration.DurationInput
}

export interface RampingArrivalRateOptions<E, R> extends CommonOptions<E, R> {
  /** Rate at the start of the first stage; default 0. */
  readonly startRate?: number
  readonly timeUnit?: Duration.DurationInput
  readonly stages: ReadonlyArray<RampStage>
  readonly maxInFlight: number
  readonly lateToleranceMs?: number
}

export interface ClosedLoopOptions<E, R> extends CommonOptions<E, R> {
  readonly workers: number
  /** Stop starting iterations after this long. At least one of `duration` / `iterations`. */
  readonly duration?: Duration.DurationInput
  /** Total iterations shared by all workers. */
  readonly iterations?: number
}

// ---------------------------------------------------------------------------------------------
// Plans (pure): offsets in ms from t0
// ---------------------------------------------------------------------------------------------

/** Iteration *i* at `i · timeUnit / rate` for every offset `< duration`. */
export function* constantPlan(o: { readonly rate: number; readonly timeUnitMs: number; readonly durationMs: number }): Generator<number> {
  // multiply before dividing and compare without dividing: exact for integer inputs (3/s → 1000 ms, not 999.99…)
  for (let i = 0; i * o.timeUnitMs < o.durationMs * o.rate; i++) yield (i * o.timeUnitMs) / o.rate
}

/**
 * Linear ramps between stage targets (k6 ramping-arrival-rate): the *n*-th iteration (n = 1, 2, …)
 * starts when the planned count ∫ rate dt reaches n; a fractional remainder carries into the next stage.
 * Total iterations = ⌊∫ rate dt over all stages⌋.
 */
export function* rampingPlan(o: {
  readonly startRate: number
  readonly timeUnitMs: number
  readonly stages: ReadonlyArray<{ readonly target: number; readonly durationMs: number }>
}): Generator<number> {
  const eps = 1e-9
  let from = o.startRate / o.timeUnitMs // per ms
  let stageStart = 0
  let doneSoFar = 0
  let n = 1
  for (const stage of o.stages) {
    const to = stage.target / o.timeUnitMs
    const d = stage.durationMs
    const endCount = doneSoFar + (d * (from + to)) / 2
    for (; n <= endCount + eps; n++) {
      const k = n - doneSoFar
      // solve from·s + (to − from)·s²/(2d) = k; this form is stable when from ≈ to and when from = 0
      const s = from === to ? k / to : (2 * k) / (from + Math.sqrt(Math.max(0, from * from + (2 * (to - from) * k) / d)))
      yield stageStart + Math.min(s, d)
    }
    doneSoFar = endCount
    from = to
    stageStart += d
  }
}

// ---------------------------------------------------------------------------------------------
// Shared machinery
// ---------------------------------------------------------------------------------------------

interface RunState {
  inFlight: number
  /** Direct iterations still running were counted interrupted at the end of the graceful stop: ignore their answers. */
  abandoned: boolean
  started: number
  completed: number
  errors: number
  dropped: number
  interrupted: number
  lateStarts: number
  maxLatenessMs: number
  defect: Cause.Cause<never> | undefined
}

const newState = (): RunState => ({
  inFlight: 0,
  abandoned: false,
  started: 0,
  completed: 0,
  errors: 0,
  dropped: 0,
  interrupted: 0,
  lateStarts: 0,
  maxLatenessMs: 0,
  defect: undefined
})

const millisOf = (
  executor: ExecutorName,
  field: string,
  input: Duration.DurationInput | undefined,
  fallback?: number
): Effect.Effect<number, InvalidLoadConfig> => {
  if (input === undefined && fallback !== undefined) return Effect.succeed(fallback)
  const decoded = input === undefined ? Option.none() : Duration.decodeUnknown(input)
  if (Option.isNone(decoded) || !Duration.isFinite(decoded.value)) {
    return Effect.fail(new InvalidLoadConfig({ executor, field, reason: `not a finite duration: ${String(input)}` }))
  }
  return Effect.succeed(Duration.toMillis(decoded.value))
}

const check = (executor: ExecutorName, field: string, ok: boolean, reason: string): Effect.Effect<void, InvalidLoadConfig> =>
  ok ? Effect.void : Effect.fail(new InvalidLoadConfig({ executor, field, reason }))

/**
 * Most iterations an open model starts per millisecond: one a microsecond. Closer starts fall on one instant of the
 * clock (`runOpen` does not sleep below 1 µs), so the plan would be walked without time moving — in virtual time,
 * billions of starts at one instant, dropped one by one, and no progress.
 */
export const MaxStartsPerMs = 1000

const checkRate = (executor: ExecutorName, field: string, rate: number, timeUnitMs: number): Effect.Effect<void, InvalidLoadConfig> =>
  check(
    executor,
    field,
    rate / timeUnitMs <= MaxStartsPerMs,
    `${rate} per ${timeUnitMs} ms is more than one iteration per microsecond (at most ${MaxStartsPerMs * 1000} per second)`
  )

/** What every iteration of one executor shares, resolved once: the clock read, the series, the counters. */
interface IterationRunner<E, R> {
  readonly now: () => number
  readonly record: BoundRecorder
  readonly operation: Operation<E, R>
  /** The operation's callback form, when it has one. */
  readonly direct: DirectIteration<E> | undefined
  readonly state: RunState
}

const iterationRunner = <E, R>(key: MetricKey, model: LoadModel, operation: Operation<E, R>, state: RunState) =>
  Effect.gen(function* () {
    const clock = yield* Effect.clock
    const recorder = yield* LatencyRecorder
    const runner: IterationRunner<E, R> = {
      // nowMillis without an Effect per read: the same Clock, read synchronously
      now: () => Number(clock.unsafeCurrentTimeNanos()) / 1e6,
      record: recorder.bind(key, model),
      operation,
      direct: operation.direct === undefined ? undefined : yield* operation.direct,
      state
    }
    return runner
  })

const outcomeOf = (failure: unknown): Outcome => (isConnectionFailure(failure) ? "connectionError" : "error")

/** Count and record one finished iteration: one sample, latency from `intendedStart`, service time from `sentAt`. */
const finish = (it: IterationRunner<unknown, unknown>, intendedStart: number, sentAt: number, outcome: Outcome): void => {
  const state = it.state
  state.completed++
  if (outcome !== "ok") state.errors++
  it.record(intendedStart, sentAt, it.now(), outcome)
}

/**
 * One iteration: run the operation, stamp completion, record one sample. Expected failures are error samples;
 * interruption is counted, not recorded; a defect stops the executor afterwards. The bookkeeping around the
 * operation is plain code in one `Effect.sync`: per request, the Effects around it were measurable
 * (docs/benchmarks.md, "Load generator").
 */
const runIteration = <E, R>(it: IterationRunner<E, R>, iteration: number, intendedStart: number | undefined): Effect.Effect<void, never, R> =>
  Effect.suspend(() => {
    const state = it.state
    const dispatchedAt = it.now()
    let sentAt: number | undefined
    const markSent = Effect.sync(() => {
      if (sentAt === undefined) sentAt = it.now()
    })
    const intended = intendedStart ?? dispatchedAt
    return Effect.onExit(
      Effect.flatMap(Effect.exit(it.operation({ intendedStart: intended, iteration, markSent })), (exit) =>
        Effect.sync(() => {
          if (Exit.isSuccess(exit)) return finish(it, intended, sentAt ?? dispatchedAt, "ok")
          if (Cause.isInterruptedOnly(exit.cause)) {
            state.interrupted++
            return
          }
          const failure = Cause.failureOption(exit.cause)
          if (Option.isNone(failure) && state.defect === undefined) state.defect = Cause.die(Cause.squash(exit.cause))
          finish(it, intended, sentAt ?? dispatchedAt, Option.isSome(failure) ? outcomeOf(failure.value) : "error")
        })
      ),
      (exit) =>
        Effect.sync(() => {
          if (Exit.isInterrupted(exit)) state.interrupted++
          state.inFlight--
        })
    )
  })

/**
 * Start one iteration of a direct operation (`inFlight` and `started` already counted); `settled` is called once it
 * is recorded. The same bookkeeping as `runIteration`, without an Effect: a throw is a defect, recorded as an error.
 */
const startDirect = <E, R>(it: IterationRunner<E, R>, direct: DirectIteration<E>, iteration: number, intendedStart: number | undefined, settled: () => void): void => {
  const state = it.state
  const sentAt = it.now()
  const intended = intendedStart ?? sentAt
  let running = true
  const end = (outcome: Outcome) => {
    if (!running || state.abandoned) return
    running = false
    state.inFlight--
    finish(it, intended, sentAt, outcome)
    settled()
  }
  try {
    direct(iteration, intended, (failure) => end(failure === undefined ? "ok" : outcomeOf(failure)))
  } catch (defect) {
    if (state.defect === undefined) state.defect = Cause.die(defect)
    end("error")
  }
}

/**
 * A closed-loop worker's iterations of a direct operation, back to back: each is started from the previous one's
 * callback, all in one `Effect.async`. It returns to the worker's fiber when no iteration is left, or when one
 * settled at once (a run of immediate failures then goes through the fiber and yields to the scheduler like any).
 */
const directChain = <E, R>(it: IterationRunner<E, R>, direct: DirectIteration<E>, more: () => boolean, take: () => number): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    let starting = false
    let settledAtOnce = false
    const settled = () => {
      if (starting) settledAtOnce = true
      else next()
    }
    const next = () => {
      if (!more()) return resume(Effect.void)
      starting = true
      settledAtOnce = false
      startDirect(it, direct, take(), undefined, settled)
      starting = false
      if (settledAtOnce) resume(Effect.void)
    }
    next()
  })

/** At the end of the graceful stop: direct iterations still running are interrupted, their answers ignored. */
const abandonRunning = (state: RunState): void => {
  state.abandoned = true
  state.interrupted += state.inFlight
  state.inFlight = 0
}

const report = (
  executor: ExecutorName,
  model: LoadModel,
  key: MetricKey,
  planned: number | undefined,
  s: RunState,
  startedAtMs: number,
  endedAtMs: number
): ExecutorReport => ({
  executor,
  model,
  key,
  planned,
  started: s.started,
  completed: s.completed,
  errors: s.errors,
  dropped: s.dropped,
  interrupted: s.interrupted,
  lateStarts: s.lateStarts,
  maxLatenessMs: s.maxLatenessMs,
  startedAtMs,
  endedAtMs
})

const failOnDefect = (s: RunState): Effect.Effect<void> => (s.defect ? Effect.failCause(s.defect) : Effect.void)

/** Drive an open-model plan: sleep to each absolute slot, dispatch or drop, then graceful stop. */
const runOpen = <E, R>(
  executor: ExecutorName,
  o: CommonOptions<E, R> & { readonly maxInFlight: number; readonly lateToleranceMs?: number },
  plan: Iterable<number>,
  durationMs: number,
  gracefulStopMs: number,
  endsWithPlan = false
) =>
  Effect.scoped(
    Effect.gen(function* () {
      const recorder = yield* LatencyRecorder
      const fibers = yield* FiberSet.make<void, never>()
      const state = newState()
      const it = yield* iterationRunner(o.key, "open", o.operation, state)
      // an executor interrupted from outside (a phase cut short) records no answer that comes after it
      yield* Effect.addFinalizer(() => Effect.sync(() => abandonRunning(state)))
      // the end of the run waits for direct iterations through their callbacks
      let onDrained: (() => void) | undefined
      const settled = () => {
        if (state.inFlight === 0 && onDrained !== undefined) onDrained()
      }
      const directDrained = Effect.async<void>((resume) => {
        if (state.inFlight === 0) return resume(Effect.void)
        onDrained = () => resume(Effect.void)
      })
      const lateTolerance = o.lateToleranceMs ?? 10
      const t0 = yield* nowMillis
      const segment = o.segment ?? wholeRun
      // a worker's cap is its share of the run's, and at least one
      const maxInFlight = Math.max(1, shareOf(o.maxInFlight, segment))
      let planned = 0
      for (const { offset, iteration } of stripe(plan, segment)) {
        if (state.defect) break
        const intended = t0 + offset
        // never before the intended start: a timer may fire up to a millisecond early (WaitUntil.ts)
        yield* waitUntil(intended, it.now)
        planned++
        const lateness = it.now() - intended
        if (lateness > state.maxLatenessMs) state.maxLatenessMs = lateness
        if (lateness > lateTolerance) state.lateStarts++
        if (state.inFlight >= maxInFlight) {
          state.dropped++
          yield* recorder.recordDropped(o.key)
          continue
        }
        state.inFlight++
        state.started++
        // a direct iteration needs no fiber: its callback does the bookkeeping
        if (it.direct !== undefined) startDirect(it, it.direct, iteration, intended, settled)
        else yield* FiberSet.run(fibers, runIteration(it, iteration, intended))
      }
      // k6's arrival-rate executors last their duration though the plan ends sooner (a rate of 0.01/s over 2 s has one
      // slot, at 0 ms): the phase is as long as it says; iterations still running meanwhile go on
      if (!endsWithPlan && state.defect === undefined) yield* waitUntil(t0 + durationMs, it.now)
      const deadline = t0 + durationMs + gracefulStopMs
      const remaining = Math.max(0, deadline - (yield* nowMillis))
      const drained = Effect.zipRight(FiberSet.awaitEmpty(fibers), directDrained)
      yield* Effect.raceFirst(drained, Effect.sleep(Duration.millis(remaining)))
      yield* FiberSet.clear(fibers)
      abandonRunning(state)
      yield* failOnDefect(state)
      return report(executor, "open", o.key, planned, state, t0, yield* nowMillis)
    })
  )

// ---------------------------------------------------------------------------------------------
// Executors
// ---------------------------------------------------------------------------------------------

const DEFAULT_GRACEFUL_STOP_MS = 30_000

/** Open model at a fixed rate: iteration *i* intended at `t0 + i · timeUnit / rate`. */
export const constantArrivalRate = <E, R>(
  o: ConstantArrivalRateOptions<E, R>
): Effect.Effect<ExecutorReport, InvalidLoadConfig, R | LatencyRecorder> =>
  Effect.gen(function* () {
    const name: ExecutorName = "constant-arrival-rate"
    const timeUnitMs = yield* millisOf(name, "timeUnit", o.timeUnit, 1000)
    const durationMs = yield* millisOf(name, "duration", o.duration)
    const gracefulStopMs = yield* millisOf(name, "gracefulStop", o.gracefulStop, DEFAULT_GRACEFUL_STOP_MS)
    yield* check(name, "rate", Number.isFinite(o.rate) && o.rate > 0, `must be > 0, got ${o.rate}`)
    yield* check(name, "timeUnit", timeUnitMs > 0, "must be > 0")
    yield* checkRate(name, "rate", o.rate, timeUnitMs)
    yield* check(name, "maxInFlight", Number.isInteger(o.maxInFlight) && o.maxInFlight >= 1, `must be an integer ≥ 1, got ${o.maxInFlight}`)
    return yield* runOpen(name, o, constantPlan({ rate: o.rate, timeUnitMs, durationMs }), durationMs, gracefulStopMs, o.endsWithPlan)
  })

/** Open model ramping linearly between stage targets (k6 `ramping-arrival-rate` arithmetic). */
export const rampingArrivalRate = <E, R>(
  o: RampingArrivalRateOptions<E, R>
): Effect.Effect<ExecutorReport, InvalidLoadConfig, R | LatencyRecorder> =>
  Effect.gen(function* () {
    const name: ExecutorName = "ramping-arrival-rate"
    const timeUnitMs = yield* millisOf(name, "timeUnit", o.timeUnit, 1000)
    const gracefulStopMs = yield* millisOf(name, "gracefulStop", o.gracefulStop, DEFAULT_GRACEFUL_STOP_MS)
    const startRate = o.startRate ?? 0
    yield* check(name, "startRate", Number.isFinite(startRate) && startRate >= 0, `must be ≥ 0, got ${startRate}`)
    yield* check(name, "timeUnit", timeUnitMs > 0, "must be > 0")
    yield* checkRate(name, "startRate", startRate, timeUnitMs)
    yield* check(name, "stages", o.stages.length > 0, "at least one stage is required")
    yield* check(name, "maxInFlight", Number.isInteger(o.maxInFlight) && o.maxInFlight >= 1, `must be an integer ≥ 1, got ${o.maxInFlight}`)
    const stages: Array<{ target: number; durationMs: number }> = []
    for (const [i, st] of o.stages.entries()) {
      yield* check(name, `stages[${i}].target`, Number.isFinite(st.target) && st.target >= 0, `must be ≥ 0, got ${st.target}`)
      yield* checkRate(name, `stages[${i}].target`, st.target, timeUnitMs)
      stages.push({ target: st.target, durationMs: yield* millisOf(name, `stages[${i}].duration`, st.duration) })
    }
    const durationMs = stages.reduce((a, s) => a + s.durationMs, 0)
    return yield* runOpen(name, o, rampingPlan({ startRate, timeUnitMs, stages }), durationMs, gracefulStopMs)
  })

/**
 * Closed model: `workers` loops, each starting its next iteration when the previous completes.
 * Intended start = actual start, so stalls are under-sampled; series are labelled `closed`.
 */
export const closedLoop = <E, R>(o: ClosedLoopOptions<E, R>): Effect.Effect<ExecutorReport, InvalidLoadConfig, R | LatencyRecorder> =>
  Effect.gen(function* () {
    const name: ExecutorName = "closed-loop"
    yield* check(name, "workers", Number.isInteger(o.workers) && o.workers >= 1, `must be an integer ≥ 1, got ${o.workers}`)
    yield* check(name, "duration", o.duration !== undefined || o.iterations !== undefined, "one of duration or iterations is required")
    if (o.iterations !== undefined) {
      yield* check(name, "iterations", Number.isInteger(o.iterations) && o.iterations >= 0, `must be an integer ≥ 0, got ${o.iterations}`)
    }
    const durationMs = o.duration === undefined ? Infinity : yield* millisOf(name, "duration", o.duration)
    const gracefulStopMs = yield* millisOf(name, "gracefulStop", o.gracefulStop, DEFAULT_GRACEFUL_STOP_MS)
    const state = newState()
    const it = yield* iterationRunner(o.key, "closed", o.operation, state)
    const t0 = yield* nowMillis
    const end = t0 + durationMs
    const segment = o.segment ?? wholeRun
    // the iterations the workers share are split as the workers are (k6's shared-iterations): a segment without
    // workers has none of them, and the others' shares sum to all (docs/distributed.md)
    const iterationSegment = o.iterations === undefined ? segment : splitBy(segment, o.workers)
    const iterations = o.iterations === undefined ? undefined : iterationSegment === undefined ? 0 : shareOf(o.iterations, iterationSegment)
    let next = 0
    const more = () => state.defect === undefined && (iterations === undefined || next < iterations) && it.now() < end
    const take = () => {
      state.inFlight++
      state.started++
      return runWideIteration(next++, iterationSegment ?? segment)
    }
    const direct = it.direct
    const worker = Effect.gen(function* () {
      while (more()) {
        if (direct !== undefined) yield* directChain(it, direct, more, take)
        else yield* runIteration(it, take(), undefined)
      }
    })
    const workers = Effect.forEach(Array.from({ length: shareOf(o.workers, segment) }), () => worker, { concurrency: "unbounded", discard: true })
    const running = Number.isFinite(durationMs) ? Effect.raceFirst(workers, Effect.sleep(Duration.millis(durationMs + gracefulStopMs))) : workers
    // an executor interrupted from outside (a phase cut short) records no answer that comes after it
    yield* Effect.onInterrupt(running, () => Effect.sync(() => abandonRunning(state)))
    abandonRunning(state)
    yield* failOnDefect(state)
    return report(name, "closed", o.key, iterations, state, t0, yield* nowMillis)
  })

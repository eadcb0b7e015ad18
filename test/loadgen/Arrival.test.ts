import { describe, expect, it } from "@effect/vitest"
import { Cause, Clock, Deferred, Duration, Effect, Either, Exit, Fiber, FiberId, Option, Runtime, TestClock } from "effect"
import { ApiError, makeStatus } from "../../src/api/Status.js"
import { type ClientError, transportFailure } from "../../src/client/TransportError.js"
import {
  closedLoop,
  constantArrivalRate,
  constantPlan,
  type DirectIteration,
  InvalidLoadConfig,
  type Operation,
  rampingArrivalRate,
  rampingPlan
} from "../../src/loadgen/Arrival.js"
import { LatencyRecorder, nowMillis, summarize } from "../../src/loadgen/LatencyRecorder.js"

const key = { metric: "api_call", operation: "GET", resource: "pods", scope: "resource" }

/** Run `program` in a fiber with a fresh recorder, advance the TestClock, join. */
const runFor = <A, E>(program: Effect.Effect<A, E, LatencyRecorder>, advance: Duration.DurationInput) =>
  Effect.gen(function* () {
    const recorder = yield* LatencyRecorder.make()
    const fiber = yield* Effect.fork(Effect.provideService(program, LatencyRecorder, recorder))
    yield* TestClock.adjust(advance)
    const result = yield* Fiber.join(fiber)
    const series = yield* recorder.snapshot
    return { result, series }
  })

/**
 * A TestClock view whose timers model a generator in trouble: they fire on a coarse grid
 * (`granularityMs`, like a busy loop's timer phase) and none fires while the event loop is
 * blocked in [stallFrom, stallUntil). Timers due at the same instant share one TestClock sleeper,
 * which keeps a 5000-iteration run fast.
 */
const troubledTimers = (base: Clock.Clock, o: { granularityMs: number; stallFrom: number; stallUntil: number }): Clock.Clock => {
  const pending = new Map<number, Deferred.Deferred<void>>()
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => base.unsafeCurrentTimeMillis(),
    unsafeCurrentTimeNanos: () => base.unsafeCurrentTimeNanos(),
    currentTimeMillis: base.currentTimeMillis,
    currentTimeNanos: base.currentTimeNanos,
    sleep: (d) =>
      Effect.suspend(() => {
        const now = base.unsafeCurrentTimeMillis()
        let wake = Math.ceil((now + Duration.toMillis(d)) / o.granularityMs) * o.granularityMs
        if (wake >= o.stallFrom && wake < o.stallUntil) wake = o.stallUntil
        if (wake <= now) return Effect.void
        const shared = pending.get(wake)
        if (shared) return Deferred.await(shared)
        const deferred = Deferred.unsafeMake<void>(FiberId.none)
        pending.set(wake, deferred)
        return Effect.forkDaemon(Effect.zipRight(base.sleep(Duration.millis(wake - now)), Deferred.succeed(deferred, undefined))).pipe(
          Effect.zipRight(Deferred.await(deferred))
        )
      })
  }
}

describe("plans", () => {
  it("constant plan is t0 + i·period with no float drift", () => {
    expect(Array.from(constantPlan({ rate: 10, timeUnitMs: 1000, durationMs: 1000 }))).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900])
    const thirds = Array.from(constantPlan({ rate: 3, timeUnitMs: 1000, durationMs: 2000 }))
    expect(thirds).toHaveLength(6)
    expect(thirds[3]).toBe(1000)
    expect(Array.from(constantPlan({ rate: 500, timeUnitMs: 1000, durationMs: 10_000 }))).toHaveLength(5000)
  })

  it("ramping plan integrates the rate: 0→10/s over 10 s, hold 10 s, →0 over 5 s = 175 iterations", () => {
    const plan = Array.from(
      rampingPlan({
        startRate: 0,
        timeUnitMs: 1000,
        stages: [
          { target: 10, durationMs: 10_000 },
          { target: 10, durationMs: 10_000 },
          { target: 0, durationMs: 5_000 }
        ]
      })
    )
    expect(plan).toHaveLength(50 + 100 + 25)
    // ramp from 0: area t²/2 (t in s, rate = t/s) reaches n at t = √(2n)
    expect(plan[0]).toBeCloseTo(Math.SQRT2 * 1000, 6)
    expect(plan[49]).toBeCloseTo(10_000, 6)
    expect(plan[50]).toBeCloseTo(10_100, 6)
    expect(plan[174]).toBeCloseTo(25_000, 6)
    for (let i = 1; i < plan.length; i++) expect(plan[i]!).toBeGreaterThan(plan[i - 1]!)
  })

  it("ramping plan carries a fractional remainder into the next stage", () => {
    // 0→3/s over 1 s = 1.5 iterations; +1.5 at 3/s over 0.5 s = 3 in all; the 2nd is 0.5/3 s into stage 2
    const plan = Array.from(
      rampingPlan({ startRate: 0, timeUnitMs: 1000, stages: [{ target: 3, durationMs: 1000 }, { target: 3, durationMs: 500 }] })
    )
    expect(plan).toHaveLength(3)
    expect(plan[1]).toBeCloseTo(1000 + 500 / 3, 6)
    expect(plan[2]).toBeCloseTo(1500, 6)
    // per-minute time unit: 60/min = 1/s
    expect(Array.from(rampingPlan({ startRate: 60, timeUnitMs: 60_000, stages: [{ target: 60, durationMs: 5000 }] }))).toEqual([
      1000, 2000, 3000, 4000, 5000
    ])
  })
})

describe("constantArrivalRate", () => {
  it.effect("starts keep to t0 + i·period however long operations take", () =>
    Effect.gen(function* () {
      const starts: Array<{ intended: number; actual: number; iteration: number }> = []
      const { result, series } = yield* runFor(
        constantArrivalRate({
          key,
          rate: 10,
          duration: "1 second",
          maxInFlight: 100,
          operation: (ctx) =>
            Effect.gen(function* () {
              starts.push({ intended: ctx.intendedStart, actual: yield* nowMillis, iteration: ctx.iteration })
              // uneven service times must not shift later slots (no sleep-after-previous drift)
              yield* Effect.sleep(Duration.millis(((ctx.iteration * 37) % 250) + 1))
            })
        }),
        "2 seconds"
      )
      expect(starts.map((s) => s.intended)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900])
      expect(starts.map((s) => s.actual)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900])
      expect(starts.map((s) => s.iteration)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
      expect(result).toMatchObject({ model: "open", planned: 10, started: 10, completed: 10, dropped: 0, lateStarts: 0 })
      expect(series[0]?.count).toBe(10)
      expect(series[0]?.models).toEqual(["open"])
    }))

  it.live("no start comes before its intended time, though the host's timers fire up to a millisecond early (real clock)", () =>
    Effect.gen(function* () {
      // libuv's timers run on a whole-millisecond loop time: model the worst case, every timer 0.9 ms early
      const live = yield* Effect.clock
      const early: Clock.Clock = {
        [Clock.ClockTypeId]: Clock.ClockTypeId,
        unsafeCurrentTimeMillis: () => live.unsafeCurrentTimeMillis(),
        unsafeCurrentTimeNanos: () => live.unsafeCurrentTimeNanos(),
        currentTimeMillis: live.currentTimeMillis,
        currentTimeNanos: live.currentTimeNanos,
        sleep: (d) => live.sleep(Duration.millis(Math.max(0, Duration.toMillis(d) - 0.9)))
      }
      const starts: Array<{ intended: number; actual: number }> = []
      const recorder = yield* LatencyRecorder.make()
      yield* constantArrivalRate({
        key,
        rate: 200,
        duration: "300 millis",
        maxInFlight: 100,
        operation: (ctx) => Effect.map(nowMillis, (actual) => void starts.push({ intended: ctx.intendedStart, actual }))
      }).pipe(Effect.provideService(LatencyRecorder, recorder), Effect.withClock(early))
      expect(starts).toHaveLength(60)
      expect(starts.filter((s) => s.actual < s.intended)).toEqual([])
    }))

  it.effect("late timers do not shift the plan: the next slot is still t0 + i·period", () =>
    Effect.gen(function* () {
      // timers fire only on a 30 ms grid, so every dispatch after t0 is late by up to 20 ms
      const clock = troubledTimers(yield* Effect.clock, { granularityMs: 30, stallFrom: Infinity, stallUntil: Infinity })
      const starts: Array<{ intended: number; actual: number }> = []
      const { result } = yield* runFor(
        Effect.withClock(
          constantArrivalRate({
            key,
            rate: 10,
            duration: "1 second",
            maxInFlight: 100,
            lateToleranceMs: 15,
            operation: (ctx) => Effect.map(nowMillis, (actual) => void starts.push({ intended: ctx.intendedStart, actual }))
          }),
          clock
        ),
        "2 seconds"
      )
      expect(starts.map((s) => s.intended)).toEqual([0, 100, 200, 300, 400, 500, 600, 700, 800, 900])
      expect(starts.map((s) => s.actual)).toEqual([0, 120, 210, 300, 420, 510, 600, 720, 810, 900])
      expect(result).toMatchObject({ planned: 10, lateStarts: 3, maxLatenessMs: 20 })
    }))

  it.effect("a 1 s generator stall at 500 req/s over 10 s: latency p99 ≈ 0.9 s from intended start, service time stays small", () =>
    Effect.gen(function* () {
      const base = yield* Effect.clock
      // a 10 ms timer grid keeps the TestClock run to ~1000 wake-ups instead of ~10 000
      const clock = troubledTimers(base, { granularityMs: 10, stallFrom: 5000, stallUntil: 6000 })
      const { result, series } = yield* runFor(
        Effect.withClock(
          constantArrivalRate({
            key,
            rate: 500,
            duration: "10 seconds",
            maxInFlight: 10_000,
            operation: (ctx) => Effect.zipRight(ctx.markSent, Effect.sleep(Duration.millis(1)))
          }),
          clock
        ),
        "11 seconds"
      )
      expect(result).toMatchObject({ planned: 5000, started: 5000, completed: 5000, dropped: 0 })
      // ~500 slots fell in the stall and were sent at 6 s: their latencies spread over 0–1 s, ~10 % of all
      expect(result.lateStarts).toBeGreaterThanOrEqual(495)
      expect(result.maxLatenessMs).toBeGreaterThan(1000)
      const latency = summarize(series[0]!.latency)
      const service = summarize(series[0]!.serviceTime)
      expect(latency.count).toBe(5000)
      expect(latency.p99).toBeGreaterThan(850)
      expect(latency.p99).toBeLessThan(950)
      expect(latency.max).toBeGreaterThan(1000)
      expect(latency.p50).toBeLessThan(20)
      // what a sender-side measurement would have reported: the stall is invisible
      expect(service.p99).toBeLessThanOrEqual(10.1)
    }), 60_000)

  it.effect("a slot that finds maxInFlight operations running is dropped and counted, not queued", () =>
    Effect.gen(function* () {
      const { result, series } = yield* runFor(
        constantArrivalRate({
          key,
          rate: 1000,
          duration: "100 millis",
          maxInFlight: 2,
          operation: () => Effect.sleep(Duration.millis(9.5))
        }),
        "1 second"
      )
      // per 10 ms: slots 0 and 1 start, 2–9 find two running; 10 and 11 start once 0 and 1 are done…
      expect(result).toMatchObject({ planned: 100, started: 20, completed: 20, dropped: 80 })
      expect(series[0]).toMatchObject({ count: 20, dropped: 80 })
    }))

  it.effect("failing operations are recorded as errors and the run goes on", () =>
    Effect.gen(function* () {
      const { result, series } = yield* runFor(
        constantArrivalRate({
          key,
          rate: 10,
          duration: "1 second",
          maxInFlight: 10,
          operation: (ctx) => (ctx.iteration % 5 === 0 ? Effect.fail("boom" as const) : Effect.void)
        }),
        "2 seconds"
      )
      expect(result).toMatchObject({ completed: 10, errors: 2 })
      expect(series[0]).toMatchObject({ count: 10, errors: 2 })
    }))

  it.effect("operations still running after the graceful stop are interrupted, not recorded", () =>
    Effect.gen(function* () {
      const { result, series } = yield* runFor(
        constantArrivalRate({
          key,
          rate: 10,
          duration: "1 second",
          gracefulStop: "500 millis",
          maxInFlight: 100,
          operation: (ctx) => Effect.sleep(Duration.millis(ctx.iteration < 5 ? 100 : 10_000))
        }),
        "20 seconds"
      )
      expect(result).toMatchObject({ started: 10, completed: 5, interrupted: 5 })
      expect(result.endedAtMs).toBe(1500)
      expect(series[0]?.count).toBe(5)
    }))

  it.effect("invalid configuration is a typed error naming the field", () =>
    Effect.gen(function* () {
      const bad = yield* Effect.either(
        Effect.provide(constantArrivalRate({ key, rate: 0, duration: "1 second", maxInFlight: 1, operation: () => Effect.void }), LatencyRecorder.layerDefaults)
      )
      expect(Either.isLeft(bad) && bad.left).toBeInstanceOf(InvalidLoadConfig)
      expect(Either.isLeft(bad) && bad.left.field).toBe("rate")
      const badDuration = yield* Effect.either(
        Effect.provide(constantArrivalRate({ key, rate: 1, duration: "soon" as never, maxInFlight: 1, operation: () => Effect.void }), LatencyRecorder.layerDefaults)
      )
      expect(Either.isLeft(badDuration) && badDuration.left.field).toBe("duration")
    }))

  it.effect("starts closer than a microsecond are refused: the plan would be walked without the clock moving", () =>
    Effect.gen(function* () {
      const constant = yield* Effect.either(
        Effect.provide(constantArrivalRate({ key, rate: 1, timeUnit: "1 nanos", duration: "1 second", maxInFlight: 1, operation: () => Effect.void }), LatencyRecorder.layerDefaults)
      )
      expect(Either.isLeft(constant) && { field: constant.left.field, reason: constant.left.reason }).toEqual({
        field: "rate",
        reason: "1 per 0.000001 ms is more than one iteration per microsecond (at most 1000000 per second)"
      })
      const ramping = yield* Effect.either(
        Effect.provide(
          rampingArrivalRate({ key, timeUnit: "1 micros", stages: [{ target: 1, duration: "1 second" }, { target: 2, duration: "1 second" }], maxInFlight: 1, operation: () => Effect.void }),
          LatencyRecorder.layerDefaults
        )
      )
      expect(Either.isLeft(ramping) && ramping.left.field).toBe("stages[1].target")
    }))

  it.effect("a defect in an operation stops the executor with that defect", () =>
    Effect.gen(function* () {
      const recorder = yield* LatencyRecorder.make()
      const fiber = yield* Effect.fork(
        Effect.provideService(
          constantArrivalRate({ key, rate: 10, duration: "10 seconds", maxInFlight: 10, operation: (ctx) => (ctx.iteration === 2 ? Effect.die("bug") : Effect.void) }),
          LatencyRecorder,
          recorder
        )
      )
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && exit.toString()).toContain("bug")
    }))
})

describe("an arrival-rate executor's length", () => {
  it.effect("it lasts its duration though its plan ends sooner, as k6's does: rate 0.01/s over 2 s is one slot and 2 s", () =>
    Effect.gen(function* () {
      const recorder = yield* LatencyRecorder.make()
      const run = (endsWithPlan: boolean) =>
        Effect.fork(Effect.provideService(constantArrivalRate({ key, rate: 0.01, duration: "2 seconds", maxInFlight: 10, endsWithPlan, operation: () => Effect.void }), LatencyRecorder, recorder))
      const phase = yield* run(false)
      const setup = yield* run(true)
      yield* TestClock.adjust("1 second")
      // a setup's creates are done when they are
      expect(yield* Fiber.join(setup)).toMatchObject({ planned: 1, started: 1, startedAtMs: 0, endedAtMs: 0 })
      expect(Option.isNone(yield* Fiber.poll(phase))).toBe(true)
      yield* TestClock.adjust("1 second")
      expect(yield* Fiber.join(phase)).toMatchObject({ planned: 1, started: 1, completed: 1, startedAtMs: 0, endedAtMs: 2000 })
    }))

  it.effect("a ramping one lasts its stages: a last stage at rate 0 still takes its time", () =>
    Effect.gen(function* () {
      const { result } = yield* runFor(
        rampingArrivalRate({
          key,
          startRate: 10,
          stages: [
            { target: 10, duration: "1 second" },
            { target: 0, duration: "100 millis" },
            { target: 0, duration: "3 seconds" }
          ],
          maxInFlight: 50,
          operation: () => Effect.void
        }),
        "5 seconds"
      )
      // its last slot at 1 s, its end at 4.1 s
      expect(result).toMatchObject({ planned: 10, endedAtMs: 4100 })
    }))
})

describe("rampingArrivalRate", () => {
  it.effect("runs exactly the integrated number of iterations", () =>
    Effect.gen(function* () {
      const intended: Array<number> = []
      const { result, series } = yield* runFor(
        rampingArrivalRate({
          key,
          startRate: 0,
          stages: [
            { target: 10, duration: "10 seconds" },
            { target: 10, duration: "10 seconds" },
            { target: 0, duration: "5 seconds" }
          ],
          maxInFlight: 50,
          operation: (ctx) => Effect.sync(() => void intended.push(ctx.intendedStart))
        }),
        "30 seconds"
      )
      expect(result).toMatchObject({ executor: "ramping-arrival-rate", planned: 175, started: 175, dropped: 0 })
      expect(series[0]?.count).toBe(175)
      expect(intended[50]).toBeCloseTo(10_100, 6)
    }))
})

describe("closedLoop", () => {
  it.effect("duration: each worker starts the next iteration when the previous ends", () =>
    Effect.gen(function* () {
      const { result, series } = yield* runFor(
        closedLoop({ key, workers: 2, duration: "1 second", operation: () => Effect.sleep(Duration.millis(100)) }),
        "2 seconds"
      )
      // starts at 0, 100, …, 900 on each worker; at 1000 the duration is over
      expect(result).toMatchObject({ model: "closed", started: 20, completed: 20, interrupted: 0 })
      expect(series[0]?.models).toEqual(["closed"])
    }))

  it.effect("iterations are shared between workers", () =>
    Effect.gen(function* () {
      const { result } = yield* runFor(
        closedLoop({ key, workers: 3, iterations: 10, operation: () => Effect.sleep(Duration.millis(100)) }),
        "1 second"
      )
      expect(result).toMatchObject({ planned: 10, started: 10, completed: 10 })
      expect(result.endedAtMs).toBe(400)
    }))

  it.effect("under the same stall a closed loop under-samples it (why open model is the default)", () =>
    Effect.gen(function* () {
      // the server stalls 1 s once; one worker waits it out and records a single slow sample
      const { series } = yield* runFor(
        closedLoop({
          key,
          workers: 1,
          duration: "10 seconds",
          operation: () =>
            Effect.flatMap(nowMillis, (t) => Effect.sleep(Duration.millis(t >= 5000 && t < 5050 ? 1000 : 50)))
        }),
        "11 seconds"
      )
      const latency = summarize(series[0]!.latency)
      expect(latency.max).toBeGreaterThanOrEqual(1000)
      expect(latency.count).toBeLessThan(200)
      expect(latency.p99).toBeLessThan(51)
    }))
})

/**
 * An operation offered in callback form only (as a load action's measured GET offers it over HTTP): the direct
 * iteration runs `answer` on the test's runtime (its TestClock) and calls `done` when it ends; the Effect form dies,
 * so a test passes only if the executor took the direct form.
 */
const directOnly = <E>(answer: (iteration: number, intendedStart: number) => Effect.Effect<void, E>): Operation<E, never> =>
  Object.assign(() => Effect.dieMessage("the executor ran the Effect form of a direct operation"), {
    direct: Effect.map(
      Effect.runtime<never>(),
      (runtime): DirectIteration<E> =>
        (iteration, intendedStart, done) =>
          void Runtime.runFork(runtime)(
            Effect.matchCause(answer(iteration, intendedStart), {
              onFailure: (cause) => Option.match(Cause.failureOption(cause), { onNone: () => done(undefined), onSome: (e) => done(e) }),
              onSuccess: () => done(undefined)
            })
          )
    )
  })

const connectionRefused = transportFailure("http://127.0.0.1:7999/api/v1/namespaces/default/configmaps/x", Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:7999"), { code: "ECONNREFUSED" }))
/** A 503 a server sent: an answer, so a latency sample like any other error status, never a connection error. */
const serverUnavailable = new ApiError({ status: makeStatus({ code: 503, reason: "ServiceUnavailable", message: "the server is currently unable to handle the request" }) })

describe("direct operations (callback form)", () => {
  it.effect("open model: the 1 s generator stall still shows as latency from the intended start (p99 ≈ 0.9 s)", () =>
    Effect.gen(function* () {
      const clock = troubledTimers(yield* Effect.clock, { granularityMs: 10, stallFrom: 5000, stallUntil: 6000 })
      const { result, series } = yield* runFor(
        Effect.withClock(
          constantArrivalRate({ key, rate: 500, duration: "10 seconds", maxInFlight: 10_000, operation: directOnly(() => Effect.sleep(Duration.millis(1))) }),
          clock
        ),
        "11 seconds"
      )
      expect(result).toMatchObject({ planned: 5000, started: 5000, completed: 5000, dropped: 0, errors: 0, interrupted: 0 })
      expect(result.lateStarts).toBeGreaterThanOrEqual(495)
      const latency = summarize(series[0]!.latency)
      const service = summarize(series[0]!.serviceTime)
      // one histogram record per sample
      expect(latency.count).toBe(5000)
      expect(service.count).toBe(5000)
      expect(latency.p99).toBeGreaterThan(850)
      expect(latency.p99).toBeLessThan(950)
      expect(latency.p50).toBeLessThan(20)
      expect(service.p99).toBeLessThanOrEqual(10.1)
    }), 60_000)

  it.effect("open model: failures are error samples, connection failures errors without a latency sample; a server's 503 is an answer", () =>
    Effect.gen(function* () {
      expect(connectionRefused.message).toBe("connection refused: http://127.0.0.1:7999")
      const { result, series } = yield* runFor(
        constantArrivalRate({
          key,
          rate: 10,
          duration: "1 second",
          maxInFlight: 10,
          operation: directOnly<ClientError | string>((i) =>
            i % 5 === 0 ? Effect.fail(connectionRefused) : i % 5 === 1 ? Effect.fail("boom") : i % 5 === 2 ? Effect.fail(serverUnavailable) : Effect.sleep(Duration.millis(5))
          )
        }),
        "2 seconds"
      )
      expect(result).toMatchObject({ started: 10, completed: 10, errors: 6 })
      // two refused (no answer, no latency), two "boom" and two 503s (answered: latency samples)
      expect(series[0]).toMatchObject({ count: 10, errors: 6, connectionErrors: 2 })
      expect(series[0]!.latency.totalCount).toBe(8)
    }))

  it.effect("open model: iterations still running after the graceful stop are interrupted, their late answers ignored", () =>
    Effect.gen(function* () {
      const { result, series } = yield* runFor(
        constantArrivalRate({
          key,
          rate: 10,
          duration: "1 second",
          gracefulStop: "500 millis",
          maxInFlight: 100,
          operation: directOnly((i) => Effect.sleep(Duration.millis(i < 5 ? 100 : 10_000)))
        }),
        "20 seconds"
      )
      expect(result).toMatchObject({ started: 10, completed: 5, interrupted: 5 })
      expect(result.endedAtMs).toBe(1500)
      // the five answers that came at 10.5–10.9 s were not recorded
      expect(series[0]?.count).toBe(5)
    }))

  it.effect("closed loop: workers and the iteration budget as in the Effect form", () =>
    Effect.gen(function* () {
      const seen: Array<number> = []
      const { result, series } = yield* runFor(
        closedLoop({ key, workers: 3, iterations: 10, operation: directOnly((i) => Effect.sync(() => void seen.push(i)).pipe(Effect.zipRight(Effect.sleep(Duration.millis(100))))) }),
        "1 second"
      )
      expect(result).toMatchObject({ planned: 10, started: 10, completed: 10, interrupted: 0 })
      expect(result.endedAtMs).toBe(400)
      expect([...seen].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
      expect(series[0]).toMatchObject({ count: 10, models: ["closed"] })
    }))

  it.effect("closed loop: iterations that answer at once (inside the call) run through the fiber, not a recursion", () =>
    Effect.gen(function* () {
      let calls = 0
      const immediate: Operation<string, never> = Object.assign(() => Effect.dieMessage("Effect form"), {
        direct: Effect.succeed<DirectIteration<string>>((i, _t, done) => {
          calls++
          done(i % 2 === 0 ? undefined : "refused")
        })
      })
      const { result, series } = yield* runFor(closedLoop({ key, workers: 2, iterations: 100_000, operation: immediate }), "1 second")
      expect(calls).toBe(100_000)
      expect(result).toMatchObject({ started: 100_000, completed: 100_000, errors: 50_000 })
      expect(series[0]).toMatchObject({ count: 100_000, errors: 50_000 })
    }))

  it.effect("a throw from a direct iteration is a defect that stops the executor", () =>
    Effect.gen(function* () {
      const throwing: Operation<never, never> = Object.assign(() => Effect.void, {
        direct: Effect.succeed<DirectIteration<never>>((i, _t, done) => {
          if (i === 2) throw new Error("bug in the operation")
          done(undefined)
        })
      })
      const recorder = yield* LatencyRecorder.make()
      const fiber = yield* Effect.fork(
        Effect.provideService(constantArrivalRate({ key, rate: 10, duration: "10 seconds", maxInFlight: 10, operation: throwing }), LatencyRecorder, recorder)
      )
      yield* TestClock.adjust("1 second")
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && (Cause.squash(exit.cause) as Error).message).toBe("bug in the operation")
    }))

  it.effect("a direct form resolving to undefined leaves the Effect form", () =>
    Effect.gen(function* () {
      let effectRuns = 0
      const operation: Operation<never, never> = Object.assign(() => Effect.sync(() => void effectRuns++), { direct: Effect.succeed(undefined) })
      const { result } = yield* runFor(closedLoop({ key, workers: 1, iterations: 3, operation }), "1 second")
      expect(result.completed).toBe(3)
      expect(effectRuns).toBe(3)
    }))
})

describe("direct operations interrupted from outside", () => {
  const pendingOperation = (pending: Array<(failure: undefined) => void>): Operation<never, never> =>
    Object.assign(() => Effect.dieMessage("Effect form"), { direct: Effect.succeed<DirectIteration<never>>((_i, _t, done) => void pending.push(done)) })

  it.effect("an interrupted executor records none of the answers that come after it and starts nothing more (closed loop and open model)", () =>
    Effect.gen(function* () {
      for (const executor of ["closed", "open"] as const) {
        const pending: Array<(failure: undefined) => void> = []
        const recorder = yield* LatencyRecorder.make()
        const operation = pendingOperation(pending)
        const run =
          executor === "closed"
            ? closedLoop({ key, workers: 4, duration: "10 seconds", operation })
            : constantArrivalRate({ key, rate: 10, duration: "10 seconds", maxInFlight: 100, operation })
        const fiber = yield* Effect.fork(Effect.provideService(run, LatencyRecorder, recorder))
        yield* TestClock.adjust("1 second")
        pending.shift()!(undefined)
        yield* Fiber.interrupt(fiber)
        const before = (yield* recorder.snapshot)[0]!.count
        expect(before).toBe(1)
        // the answers that were pending at the interruption (a snapshot: a loop still running would start more)
        for (const done of pending.splice(0)) done(undefined)
        expect((yield* recorder.snapshot)[0]!.count).toBe(before)
        // and none of them started another iteration
        expect(pending).toEqual([])
      }
    }))
})

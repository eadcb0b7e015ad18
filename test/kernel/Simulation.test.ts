/**
 * Every `runUntil` / `runFor` / `run` below is a synchronous call: if any Effect primitive hopped to a real timer or a
 * microtask, the counts asserted right after it would be wrong (or the fiber would not have exited yet).
 */
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import * as Random from "effect/Random"
import * as Schedule from "effect/Schedule"
import { SeededRandom } from "../../simulator/kernel/SeededRandom.js"
import * as FiberLabel from "../../simulator/kernel/FiberLabel.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"

const SECOND = 1_000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

const sleeper = (counts: Array<number>, i: number, every: Duration.DurationInput) =>
  Effect.forever(Effect.zipRight(Effect.sleep(every), Effect.sync(() => counts[i]!++)))

describe("Simulation: wake-ups", () => {
  it("exact wake-up counts over a virtual hour", () => {
    const sim = Simulation.make()
    const counts = new Array<number>(100).fill(0)
    for (let i = 0; i < counts.length; i++) sim.fork(sleeper(counts, i, `${i + 1} seconds`))
    const result = sim.runFor("1 hour")
    expect(result.now).toBe(HOUR)
    expect(counts).toEqual(counts.map((_, i) => Math.floor(HOUR / ((i + 1) * SECOND))))
    expect(result.timersFired).toBe(counts.reduce((a, b) => a + b, 0))
    expect(sim.pendingTimers()).toBe(100)
  })

  it("1,000 sleepers through a virtual day, counts exact", () => {
    const sim = Simulation.make()
    const counts = new Array<number>(1_000).fill(0)
    for (let i = 0; i < counts.length; i++) sim.fork(sleeper(counts, i, "10 minutes"))
    sim.runFor("1 day")
    expect(sim.now()).toBe(DAY)
    expect(counts.every((c) => c === DAY / (10 * MINUTE))).toBe(true)
  })

  it("a timer due exactly at the target fires; one just after does not", () => {
    const sim = Simulation.make()
    const fired: Array<number> = []
    sim.fork(Effect.zipRight(Effect.sleep("10 seconds"), Clock.currentTimeMillis.pipe(Effect.map((t) => fired.push(t)))))
    sim.fork(Effect.zipRight(Effect.sleep(10_001), Clock.currentTimeMillis.pipe(Effect.map((t) => fired.push(t)))))
    sim.runUntil(10_000)
    expect(fired).toEqual([10_000])
    sim.runUntil(10_001)
    expect(fired).toEqual([10_000, 10_001])
  })

  it("ties in time wake in insertion order", () => {
    const sim = Simulation.make()
    const trace: Array<string> = []
    const names = ["c", "a", "d", "b", "e"]
    for (const name of names) {
      sim.fork(
        Effect.forever(
          Effect.zipRight(
            Effect.sleep("5 seconds"),
            Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => trace.push(`${t}:${name}`)))
          )
        )
      )
    }
    sim.runFor("15 seconds")
    expect(trace).toEqual([5_000, 10_000, 15_000].flatMap((t) => names.map((n) => `${t}:${n}`)))
  })

  it("Clock reads virtual time, starting at startMillis", () => {
    const sim = Simulation.make({ startMillis: 1_700_000_000_000 })
    const exit = sim.run(
      Effect.gen(function*() {
        const a = yield* Clock.currentTimeMillis
        yield* Effect.sleep("90 minutes")
        const b = yield* Clock.currentTimeMillis
        const nanos = yield* Clock.currentTimeNanos
        return [a, b, nanos] as const
      })
    )
    expect(exit).toEqual(Exit.succeed([1_700_000_000_000, 1_700_005_400_000, 1_700_005_400_000_000_000n]))
  })
})

describe("Simulation: Effect primitives under virtual time", () => {
  it("Effect.timeout fails at the virtual deadline and cancels the losing timer", () => {
    const sim = Simulation.make()
    const exit = sim.run(
      Effect.sleep("1 hour").pipe(
        Effect.timeout("5 seconds"),
        Effect.flip,
        Effect.zip(Clock.currentTimeMillis)
      )
    )
    expect(exit !== undefined && Exit.isSuccess(exit)).toBe(true)
    const [error, at] = (exit as unknown as Exit.Success<readonly [unknown, number], never>).value
    expect((error as { _tag: string })._tag).toBe("TimeoutException")
    expect(at).toBe(5_000)
    expect(sim.pendingTimers()).toBe(0)
  })

  it("Effect.timeout lets a fast effect through", () => {
    const sim = Simulation.make()
    const exit = sim.run(Effect.sleep("2 seconds").pipe(Effect.as("done"), Effect.timeout("5 seconds")))
    expect(exit).toEqual(Exit.succeed("done"))
    expect(sim.now()).toBe(2_000)
    expect(sim.pendingTimers()).toBe(0)
  })

  it("Effect.repeat with Schedule.spaced runs on the virtual clock", () => {
    const sim = Simulation.make()
    const times: Array<number> = []
    sim.fork(
      Effect.repeat(
        Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => times.push(t))),
        Schedule.spaced("10 seconds")
      )
    )
    sim.runFor("1 hour")
    expect(times.length).toBe(361)
    expect(times.slice(0, 3)).toEqual([0, 10_000, 20_000])
    expect(times.at(-1)).toBe(HOUR)
  })

  it("Fiber.interrupt stops a sleeper, runs its finalizer at that virtual time, removes its timer", () => {
    const sim = Simulation.make()
    let finalizedAt = -1
    let wakes = 0
    const exit = sim.run(
      Effect.gen(function*() {
        const worker = yield* Effect.forever(Effect.zipRight(Effect.sleep("1 minute"), Effect.sync(() => wakes++))).pipe(
          Effect.onInterrupt(() => Effect.map(Clock.currentTimeMillis, (t) => (finalizedAt = t))),
          Effect.fork
        )
        yield* Effect.sleep("150 seconds")
        yield* Fiber.interrupt(worker)
        return yield* Clock.currentTimeMillis
      })
    )
    expect(exit).toEqual(Exit.succeed(150_000))
    expect(wakes).toBe(2)
    expect(finalizedAt).toBe(150_000)
    expect(sim.pendingTimers()).toBe(0)
  })

  it("Deferred and Queue.take wake waiters at the producer's virtual time", () => {
    const sim = Simulation.make()
    const exit = sim.run(
      Effect.gen(function*() {
        const gate = yield* Deferred.make<string>()
        const queue = yield* Queue.unbounded<number>()
        yield* Effect.fork(Effect.zipRight(Effect.sleep("7 seconds"), Deferred.succeed(gate, "open")))
        yield* Effect.fork(
          Effect.forEach([1, 2, 3], (n) => Effect.zipRight(Effect.sleep("1 minute"), Queue.offer(queue, n)), {
            discard: true
          })
        )
        const opened = yield* Deferred.await(gate)
        const openedAt = yield* Clock.currentTimeMillis
        const taken: Array<readonly [number, number]> = []
        for (let i = 0; i < 3; i++) {
          const n = yield* Queue.take(queue)
          taken.push([n, yield* Clock.currentTimeMillis])
        }
        return { opened, openedAt, taken }
      })
    )
    expect(exit).toEqual(
      Exit.succeed({ opened: "open", openedAt: 7_000, taken: [[1, 60_000], [2, 120_000], [3, 180_000]] })
    )
  })

  it("a fiber waiting for something that never happens: runUntil returns, time jumps to the target", () => {
    const sim = Simulation.make()
    const fiber = sim.fork(Effect.flatMap(Deferred.make<void>(), Deferred.await))
    const result = sim.runUntil(HOUR)
    expect(result.now).toBe(HOUR)
    expect(result.timersFired).toBe(0)
    expect(fiber.unsafePoll()).toBeNull()
    expect(sim.run(Effect.never, { maxDuration: "1 day" })).toBeUndefined()
    expect(sim.now()).toBe(HOUR + DAY)
  })

  it("Effect.sleep(infinity) never wakes and leaves no timer", () => {
    const sim = Simulation.make()
    const fiber = sim.fork(Effect.sleep(Duration.infinity))
    sim.runFor("1 day")
    expect(fiber.unsafePoll()).toBeNull()
    expect(sim.pendingTimers()).toBe(0)
  })

  it("run without a limit stops when the effect exits, not at the last timer", () => {
    const sim = Simulation.make()
    sim.fork(Effect.forever(Effect.sleep("1 second")))
    expect(sim.run(Effect.as(Effect.sleep("30 seconds"), 1))).toEqual(Exit.succeed(1))
    expect(sim.now()).toBe(30_000)
  })

  it("interruptAll interrupts every forked fiber", () => {
    const sim = Simulation.make()
    const fibers = [1, 2, 3].map(() => sim.fork(Effect.forever(Effect.sleep("1 second"))))
    sim.runFor("10 seconds")
    sim.interruptAll()
    for (const f of fibers) expect(Exit.isInterrupted(f.unsafePoll()!)).toBe(true)
    expect(sim.pendingTimers()).toBe(0)
  })

  it("a fiber that yields forever at one instant is reported as a livelock", () => {
    const sim = Simulation.make({ maxStepsPerInstant: 50_000 })
    sim.fork(Effect.forever(Effect.yieldNow()))
    expect(() => sim.runFor("1 second")).toThrow(/livelock/)
  })

  it("a loop that never suspends is a livelock naming the fiber's label, long before the step bound", () => {
    const sim = Simulation.make({ maxBudgetYieldsPerInstant: 200 })
    sim.fork(
      FiberLabel.labelled("the spinning controller")(
        Effect.gen(function* () {
          for (;;) yield* Clock.currentTimeMillis
        })
      )
    )
    expect(() => sim.runFor("1 second")).toThrow(
      /^Simulation: livelock at virtual time 0 ms: the spinning controller kept running; fibers ran out of their operation budget more than 200 times/
    )
  })

  it("onBusy sees a busy instant and may stop the run there; the next run goes on with the instant in the same order", () => {
    const order = (stopEvery: boolean) => {
      const sim = Simulation.make()
      const log: Array<string> = []
      for (const name of ["a", "b", "c"]) {
        sim.fork(
          Effect.gen(function* () {
            yield* Effect.sleep("1 second")
            for (let i = 0; i < 5_000; i++) {
              log.push(`${name}${i}`)
              yield* Effect.yieldNow()
            }
          })
        )
      }
      const busy: Array<Simulation.Busy> = []
      let runs = 0
      for (;;) {
        runs++
        const r = sim.runFor("1 minute", { busyEvery: 1_000, onBusy: (b) => (busy.push(b), stopEvery && sim.stop()) })
        if (!r.stopped) break
        expect(r.now).toBe(1_000)
      }
      return { log, busy, runs, now: sim.now() }
    }
    const stopped = order(true)
    const whole = order(false)
    expect(whole.busy.length).toBeGreaterThanOrEqual(14)
    expect(whole.busy.every((b) => b.now === 1_000)).toBe(true)
    expect(stopped.runs).toBe(whole.busy.length + 1)
    expect(stopped.log).toEqual(whole.log)
    expect(stopped.log).toHaveLength(15_000)
  })

  it("runUntil is not re-entrant", () => {
    const sim = Simulation.make()
    const exit = sim.run(Effect.sync(() => sim.runFor("1 second")))
    expect(exit !== undefined && Exit.isFailure(exit)).toBe(true)
  })
})

describe("Simulation: progress and stop", () => {
  it("calls onProgress at every boundary and at the target", () => {
    const sim = Simulation.make()
    sim.fork(Effect.forever(Effect.sleep("7 seconds")))
    const seen: Array<Simulation.Progress> = []
    sim.runFor("65 minutes", { progressEvery: "10 minutes", onProgress: (p) => seen.push(p) })
    expect(seen.map((p) => p.now)).toEqual([10, 20, 30, 40, 50, 60, 65].map((m) => m * MINUTE))
    expect(seen.every((p) => p.from === 0 && p.target === 65 * MINUTE)).toBe(true)
    // Every timer due strictly before a boundary has fired when it is reported.
    expect(seen[0]!.timersFired).toBe(Math.floor((10 * MINUTE - 1) / 7_000))
    expect(seen[0]!.pendingTimers).toBe(1)
  })

  it("progress comes from make's defaults too, and also when nothing is scheduled", () => {
    const seen: Array<number> = []
    const sim = Simulation.make({ progressEvery: "1 hour", onProgress: (p) => seen.push(p.now) })
    sim.runFor("3 hours")
    expect(seen).toEqual([HOUR, 2 * HOUR, 3 * HOUR])
  })

  it("stop() from onProgress ends the run at that boundary; the next run continues", () => {
    const sim = Simulation.make()
    const counts = [0]
    sim.fork(sleeper(counts, 0, "10 seconds"))
    const result = sim.runFor("1 hour", {
      progressEvery: "10 minutes",
      onProgress: (p) => {
        if (p.now >= 20 * MINUTE) sim.stop()
      }
    })
    expect(result.stopped).toBe(true)
    expect(result.now).toBe(20 * MINUTE)
    expect(counts[0]).toBe(119) // the wake-up due at exactly 20 min comes after the report
    sim.runUntil(HOUR)
    expect(counts[0]).toBe(360)
  })

  it("stop() from a fiber ends the run after that event", () => {
    const sim = Simulation.make()
    sim.fork(Effect.zipRight(Effect.sleep("42 seconds"), Effect.sync(() => sim.stop())))
    const result = sim.runFor("1 hour")
    expect(result).toMatchObject({ stopped: true, now: 42_000 })
  })
})

describe("Simulation: determinism", () => {
  /** Nodes with jittered renew periods (lease controller: 10 s, factor 0.04) recording who woke when. */
  const trace = (seed: number): Array<string> => {
    const sim = Simulation.make({ seed })
    const out: Array<string> = []
    for (let node = 0; node < 20; node++) {
      sim.fork(
        Effect.gen(function*() {
          const rng = (yield* SeededRandom).split(`node-${node}`)
          yield* Effect.sleep(Math.floor(rng.next() * 10_000))
          for (;;) {
            out.push(`${yield* Clock.currentTimeMillis}:${node}:${yield* Random.nextIntBetween(0, 100)}`)
            yield* Effect.sleep(Math.round(Duration.toMillis(rng.jitter("10 seconds", 0.04))))
          }
        })
      )
    }
    sim.runFor("10 minutes")
    return out
  }

  it("same seed, same trace; different seed, different trace", () => {
    const a = trace(7)
    expect(a.length).toBeGreaterThan(20 * 55)
    expect(trace(7)).toEqual(a)
    expect(trace(8)).not.toEqual(a)
  })

  it("the runtime's Random is seeded (not Math.random)", () => {
    const draw = (seed: number) => Simulation.make({ seed }).run(Effect.all([Random.next, Random.next]))
    expect(draw(3)).toEqual(draw(3))
    expect(draw(3)).not.toEqual(draw(4))
  })
})

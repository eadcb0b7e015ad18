import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Fiber, Schedule, TestClock } from "effect"
import { forkEvery } from "../../bench/cluster/OpenLoop.js"

describe("forkEvery", () => {
  it.scoped("forks the request on every tick, each fiber holding nothing of the one before (no chain of finished fibers)", () =>
    Effect.gen(function* () {
      const seen: Array<{ at: number; input: unknown }> = []
      const request = Effect.gen(function* () {
        const metadata = yield* Schedule.CurrentIterationMetadata
        seen.push({ at: yield* Clock.currentTimeMillis, input: metadata.input })
        yield* Effect.sleep(25) // outlives the next ticks: an open model
      })
      yield* Effect.forkScoped(forkEvery(10, request))
      yield* TestClock.adjust(35)
      expect(seen.map((s) => s.at)).toEqual([0, 10, 20, 30])
      // what Effect.repeat hands a tick's fibers: with the previous tick's fiber there, every request would keep its
      // predecessor (and so all of them) reachable
      for (const s of seen) expect(Fiber.isFiber(s.input)).toBe(false)
    })
  )

  it.effect("interrupts the requests still running when the loop is interrupted", () =>
    Effect.gen(function* () {
      let finished = 0
      let interrupted = 0
      const request = Effect.sleep(25).pipe(
        Effect.tap(() => void finished++),
        Effect.onInterrupt(() => Effect.sync(() => void interrupted++))
      )
      const loop = yield* Effect.fork(forkEvery(10, request))
      yield* TestClock.adjust(35) // ticks at 0, 10, 20, 30: two have finished (at 25 and 35), two are running
      yield* Fiber.interrupt(loop)
      expect({ finished, interrupted }).toEqual({ finished: 2, interrupted: 2 })
      yield* TestClock.adjust(100)
      expect(finished).toBe(2)
    })
  )
})

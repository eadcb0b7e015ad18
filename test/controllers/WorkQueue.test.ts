/** The controllers' work queue: a waiting key is queued once, addAfter keeps the earliest timer, failures back off 5 ms doubling. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import * as WorkQueue from "../../simulator/controllers/WorkQueue.js"

describe("WorkQueue", () => {
  it.scoped("a key added while it waits is synced once; addAfter fires at the earliest time asked", () =>
    Effect.gen(function* () {
      const q = yield* WorkQueue.make
      const synced: Array<string> = []
      q.add("a")
      q.add("a")
      q.add("b")
      yield* q.addAfter("c", 1_000)
      yield* q.addAfter("c", 5_000)
      const worker = yield* Effect.fork(q.run((k) => Effect.clockWith((c) => c.currentTimeMillis).pipe(Effect.map((t) => void synced.push(`${k}@${t}`)))))
      yield* TestClock.adjust(10_000)
      yield* Fiber.interrupt(worker)
      expect(synced).toEqual(["a@0", "b@0", "c@1000"])
    })
  )

  it.scoped("a failed sync is retried after 5, 10, 20 ms …; a success resets the backoff", () =>
    Effect.gen(function* () {
      const q = yield* WorkQueue.make
      const tries: Array<number> = []
      q.add("k")
      const worker = yield* Effect.fork(
        q.run(() =>
          Effect.gen(function* () {
            tries.push(yield* Effect.clockWith((c) => c.currentTimeMillis))
            if (tries.length < 4) return yield* Effect.fail("conflict")
          })
        )
      )
      yield* TestClock.adjust(1_000)
      yield* Fiber.interrupt(worker)
      expect(tries).toEqual([0, 5, 15, 35])
    })
  )
})

/** client-go's 429 handling: again after Retry-After, at most 10 retries, other errors at once. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import * as Status from "../../src/api/Status.js"
import { retryTooManyRequests } from "../../src/client/TooManyRequests.js"
import { serverAnswer } from "../support/serverAnswer.js"

const scripted = (answers: Array<"429" | "404" | "ok">, attempts: Array<number>) =>
  Effect.clockWith((clock) =>
    Effect.suspend(() => {
      attempts.push(clock.unsafeCurrentTimeMillis())
      const a = answers.shift() ?? "ok"
      return a === "429" ? Effect.fail(Status.tooManyRequests("Too many requests, please try again later.", 1)) : a === "404" ? Effect.fail(Status.notFound({ group: "", plural: "pods" }, "p")) : Effect.succeed("done")
    })
  )

describe("retryTooManyRequests", () => {
  it.effect("retries a 429 after its Retry-After (1 s) until it succeeds", () =>
    Effect.gen(function* () {
      const attempts: Array<number> = []
      const fiber = yield* Effect.fork(retryTooManyRequests(scripted(["429", "429", "ok"], attempts)))
      yield* TestClock.adjust(5_000)
      expect(yield* Fiber.join(fiber)).toBe("done")
      expect(attempts).toEqual([0, 1_000, 2_000])
    })
  )

  it.effect("gives up after 10 retries (11 attempts) with the 429; a 404 is not retried", () =>
    Effect.gen(function* () {
      const attempts: Array<number> = []
      const fiber = yield* Effect.fork(serverAnswer(retryTooManyRequests(scripted(Array(20).fill("429"), attempts))))
      yield* TestClock.adjust(60_000)
      const error = yield* Fiber.join(fiber)
      expect(error.status).toMatchObject({ code: 429, reason: "TooManyRequests", details: { retryAfterSeconds: 1 } })
      expect(attempts).toHaveLength(11)
      expect(attempts[10]).toBe(10_000)
      const once: Array<number> = []
      const notFound = yield* serverAnswer(retryTooManyRequests(scripted(["404"], once)))
      expect(notFound.status.code).toBe(404)
      expect(once).toEqual([60_000])
    })
  )
})

import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { decodeInTurn } from "../../src/client/DecodeTurns.js"

const busy = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until);
}

describe("decodeInTurn", () => {
  it.live("runs queued decodes in order, one per event-loop turn: a due timer fires between two of them", () =>
    Effect.gen(function* () {
      const order: Array<string> = []
      const decode = (name: string) => () => {
        order.push(name)
        if (name === "a") setTimeout(() => order.push("timer"), 0)
        busy(5)
        return name
      }
      const results = yield* Effect.all([decodeInTurn(decode("a")), decodeInTurn(decode("b")), decodeInTurn(decode("c"))], { concurrency: "unbounded" })
      expect(results).toEqual(["a", "b", "c"])
      // decoded back to back, the three would hold the timer set during the first until all were done
      expect(order).toEqual(["a", "timer", "b", "c"])
    })
  )

  it.live("a decode that throws is a defect of its own request only", () =>
    Effect.gen(function* () {
      const [bad, good] = yield* Effect.all(
        [
          Effect.exit(
            decodeInTurn(() => {
              throw new SyntaxError("Unexpected token")
            })
          ),
          decodeInTurn(() => 42)
        ],
        { concurrency: "unbounded" }
      )
      expect(Exit.isFailure(bad) && Exit.isInterrupted(bad) === false).toBe(true)
      expect(String(Exit.isFailure(bad) ? bad.cause : "")).toContain("Unexpected token")
      expect(good).toBe(42)
    })
  )

  it.live("an interrupted request leaves the queue: its decode never runs", () =>
    Effect.gen(function* () {
      const ran: Array<string> = []
      const first = yield* Effect.fork(decodeInTurn(() => ran.push("first")))
      const second = yield* Effect.fork(decodeInTurn(() => ran.push("second")))
      yield* Fiber.interrupt(first)
      yield* Fiber.join(second)
      expect(ran).toEqual(["second"])
    })
  )
})

import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber } from "effect"
import { decodeInTurns, inOneStep } from "../../src/client/DecodeTurns.js"

/** A decode in one step, in a turn of its own. */
const decodeInTurn = <A>(decode: () => A) => decodeInTurns(() => inOneStep(decode))

const busy = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until);
}

describe("decodeInTurns", () => {
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

  it.live("a stepped decode takes a turn per step, a due timer fires between steps, and the next decode waits for it to finish", () =>
    Effect.gen(function* () {
      const order: Array<string> = []
      const stepped = (name: string, steps: number) => () => {
        let done = 0
        return {
          step: () => {
            order.push(`${name}${++done}`)
            if (name === "a" && done === 1) setTimeout(() => order.push("timer"), 0)
            busy(5)
            return done === steps
          },
          get value() {
            return `${name}:${done}`
          }
        }
      }
      const results = yield* Effect.all([decodeInTurns(stepped("a", 3)), decodeInTurns(stepped("b", 2))], { concurrency: "unbounded" })
      expect(results).toEqual(["a:3", "b:2"])
      expect(order).toEqual(["a1", "timer", "a2", "a3", "b1", "b2"])
    })
  )

  it.live("a step that throws is a defect of its own request; an interrupted decode takes no more steps", () =>
    Effect.gen(function* () {
      let steps = 0
      const endless = yield* Effect.fork(decodeInTurns(() => ({ step: () => (steps++, false), value: 0 })))
      const bad = yield* Effect.exit(
        decodeInTurns(() => ({
          step: () => {
            throw new SyntaxError("Unexpected end of JSON input")
          },
          value: 0
        })).pipe(Effect.fork, Effect.tap(() => Fiber.interrupt(endless)), Effect.flatMap(Fiber.join))
      )
      expect(String(Exit.isFailure(bad) ? bad.cause : "")).toContain("Unexpected end of JSON input")
      const after = steps
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 20)))
      expect(steps).toBe(after)
    })
  )
})

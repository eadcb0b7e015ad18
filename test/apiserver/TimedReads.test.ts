import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect, Either, Fiber, Layer } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { ConfigMaps } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import type { ClientError } from "../../src/client/TransportError.js"
import { everyTick, forkEvery, type Tick } from "../../bench/cluster/OpenLoop.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { untilMicros } from "../../simulator/apiserver/ModelledAnswers.js"
import { AnsweredAt, defaultParameters, hasTimedReads, modelledClient, ServiceTimeModel, uniformOf } from "../../simulator/apiserver/ServiceTime.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"

/** How one GET ended, as its caller saw it: when it was made, its answer, and when the answer was taken. */
interface Taken {
  readonly n: number
  readonly at: number
  readonly answer: string
  readonly takenAt: number
}

const outcome = (answer: Either.Either<KObject, ClientError>): string =>
  Either.isRight(answer)
    ? `200 ${answer.right.kind} ${answer.right.metadata.resourceVersion} ${(answer.right.data as { v: string }).v}`
    : answer.left._tag === "ApiError"
      ? `${answer.left.status.code} ${answer.left.status.reason}`
      : answer.left._tag

/**
 * The same open loop of GETs — two loops of them, one light (every 40 ms) and a burst (every 1 ms from 1 s to 1.4 s)
 * that fills the level's seats and queues (waits, 429s and client-go's retries), a write, a server pause, names that
 * exist and one that does not — made through the modelled client's `get` in a fiber each (`forkEvery`) or through its
 * `getAt` with a fiber only for what is not answered at once (`everyTick`). Dispersion is on, so the draws' order
 * counts too.
 */
const run = (mode: "fibers" | "getAt") => {
  const sim = Simulation.make({ seed: 1 })
  const model = new ServiceTimeModel(
    { ...defaultParameters, maxRequestsInflight: 2, maxMutatingRequestsInflight: 1, readBaseMs: 15, readDispersion: 3 },
    uniformOf(SeededRandom.make(7))
  )
  const served: Array<string> = []
  model.observer = { served: (request, code, arrival, start, end) => void served.push(`${request.verb} ${code} ${arrival} ${start} ${end}`) }
  const taken: Array<Taken> = []
  let answeredAt = 0
  let forked = 0
  const names = ["x", "x", "nope", "x"]
  const exit = sim.run(
    Effect.scoped(
      Effect.gen(function* () {
        const inner = yield* ApiClient
        const server = yield* ApiServer
        const client = modelledClient(inner, model)
        if (!hasTimedReads(client)) throw new Error("the modelled client with APF has getAt")
        yield* inner.create(ConfigMaps, { metadata: { name: "x" }, data: { v: "1" } }, { namespace: "default" })
        let next = 0
        const fiberGet = Effect.suspend(() => {
          const n = next++
          return Effect.flatMap(Clock.currentTimeMillis, (at) =>
            Effect.flatMap(Effect.either(client.get(ConfigMaps, names[n % names.length]!, { namespace: "default" })), (answer) =>
              Effect.map(Clock.currentTimeMillis, (takenAt) => void taken.push({ n, at, answer: outcome(answer), takenAt }))
            )
          )
        })
        const tickGet = (tick: Tick): Effect.Effect<void> | undefined => {
          const n = next++
          const at = tick.now
          const get = client.getAt(ConfigMaps, names[n % names.length]!, { namespace: "default" }, at)
          if (get instanceof AnsweredAt) {
            answeredAt++
            const ms = untilMicros(at, get.end)
            const take = () => void taken.push({ n, at, answer: outcome(get.answer), takenAt: at + Math.max(0, ms) })
            if (ms > 0) tick.later(ms, take)
            else take()
            return undefined
          }
          forked++
          const rest = get instanceof AnsweredAt ? Effect.zipRight(Effect.sleep(untilMicros(at, get.end)), get.answer) : get
          return Effect.flatMap(Effect.either(rest), (answer) => Effect.map(Clock.currentTimeMillis, (takenAt) => void taken.push({ n, at, answer: outcome(answer), takenAt })))
        }
        const loop = (intervalMs: number) => (mode === "fibers" ? forkEvery(intervalMs, fiberGet) : everyTick(intervalMs, tickGet))
        const light = yield* Effect.fork(loop(40))
        yield* Effect.sleep(1_000)
        const burst = yield* Effect.fork(loop(1))
        yield* Effect.sleep(150)
        yield* inner.update(ConfigMaps, { metadata: { name: "x", namespace: "default" }, data: { v: "2" } }, { namespace: "default" })
        yield* Effect.sleep(150)
        yield* server.pause(250)
        yield* Effect.sleep(100)
        // the GETs still running are dropped with their loop, in either form
        yield* Fiber.interrupt(burst)
        // the light loop stopped while its last GET (made at 25,000 ms) is being answered
        yield* Effect.sleep(25_005 - (yield* Clock.currentTimeMillis))
        yield* Fiber.interrupt(light)
        yield* Effect.sleep(5_000)
      })
    ).pipe(Effect.provide(InProcessClient.layer.pipe(Layer.provideMerge(ApiServer.layer({ seed: 1 }))))),
    { maxDuration: "60 seconds" }
  )
  if (exit?._tag !== "Success") throw new Error(`the run did not finish: ${String(exit?._tag)}`)
  return { taken: taken.sort((a, b) => a.n - b.n), served, levels: model.apf!.metrics(), answeredAt, forked }
}

describe("ApfTimedClient.getAt", () => {
  it("a GET made with getAt (a fiber only for what is not answered at once) is the GET of get: answers, instants, bookings", () => {
    const fibers = run("fibers")
    const timed = run("getAt")
    // the scenario has every case: answered at once, queued, rejected and retried, during a pause, not found
    expect(timed.answeredAt).toBeGreaterThan(100)
    expect(timed.forked).toBeGreaterThan(100)
    const answers = new Set(fibers.taken.map((t) => t.answer.split(" ")[0]))
    expect([...answers].sort()).toEqual(["200", "404"])
    expect(fibers.served.filter((s) => s.split(" ")[1] === "429").length).toBeGreaterThan(50)
    expect(fibers.taken.some((t) => t.takenAt - t.at > 250)).toBe(true)
    expect(fibers.taken.length).toBeGreaterThan(600)
    // field by field: each GET's answer and the instant it was taken, every booking, each level's counts
    expect(timed.taken).toEqual(fibers.taken)
    expect(timed.served).toEqual(fibers.served)
    expect(timed.levels).toEqual(fibers.levels)
  })
})

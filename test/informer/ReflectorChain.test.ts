/**
 * A reflector's re-watches through the modelled client's watch chains (`simulator/apiserver/WatchChain.ts`: the end
 * of a watch handled where the fiber would have woken, the booking made there, the next watch opened at its booked
 * time without the fiber) against the same reflectors re-watching in their fibers (a copy of the client, which has
 * no chains): the same store calls, APF bookings, fiber steps and stats, at the same instants and in the same order.
 * Per-node reflectors booked as their nodes, floods of long LISTs in their level so that re-watches wait in their
 * queues (the chain hands those to the fiber), dispersion on (the draws' order counts),
 * an admin pause across some re-watches, watches dropped (short re-watches), and compactions that make re-watches too old (their ERROR, a relist).
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Cause, Clock, Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Pods } from "../../src/api/Resources.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { makeReflector, type ReflectorStats } from "../../src/informer/Reflector.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { nodeUser } from "../../simulator/apiserver/auth/UserInfo.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { defaultParameters, modelledClient, ServiceTimeModel, uniformOf } from "../../simulator/apiserver/ServiceTime.js"
import { WatchEventBuffer } from "../../simulator/apiserver/WatchEventBuffer.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import { loggedWrite, loggingStore } from "../support/stepLog.js"

const inDefault = { namespace: "default" }
const pod = (name: string, node: string): KObject => ({ metadata: { name }, spec: { nodeName: node, containers: [{ name: "c", image: "i" }] } }) as KObject
const nodes = ["n1", "n2", "n3", "n4"]

type Log = Array<string>

const scenario = (log: Log, model: ServiceTimeModel, chains: boolean) =>
  Effect.gen(function* () {
    const server = yield* ApiServer
    const inner = InProcessClient.inProcessClient(server)
    const stats: Array<Effect.Effect<ReflectorStats>> = []
    let r = 0
    for (const node of nodes) {
      const user = nodeUser(node)
      const modelled = modelledClient(inner, model, { user: user.name, groups: user.groups })
      // a copy has the client's verbs and watch pulls, not its chains: the fiber re-watches
      const client: ApiClientService = chains ? modelled : { ...modelled }
      const reflector = yield* makeReflector(
        { resource: Pods, fieldSelector: `spec.nodeName=${node}`, random: () => (r = (r * 7 + 3) % 10) / 10 },
        loggingStore(log, node)
      )
      stats.push(reflector.stats)
      yield* Effect.forkScoped(Effect.provideService(reflector.run, ApiClient, client))
      // the node's flood: long LISTs in its level, now and then, each in a fiber of its own
      yield* Effect.forkScoped(
        Effect.forever(
          Effect.gen(function* () {
            yield* Effect.sleep("61 seconds")
            // from the 30th minute on, a longer wait
            const burst = (yield* Clock.currentTimeMillis) > 30 * 60_000 ? 60 : 8
            for (let i = 0; i < burst; i++)
              yield* Effect.forkScoped(
                Effect.flatMap(Effect.either(modelled.list(Pods, {})), (listed) => Effect.sync(() => void log.push(`${node} list ${listed._tag}`)))
              )
          })
        )
      )
    }
    // a fiber with two steps every second: a watch's end and the next opening fall among them
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          yield* Effect.sleep("1 second")
          // the watchers registered: each watch closed and opened when its fiber would have done it
          log.push(`tick ${server.hub.size}`)
          yield* Effect.yieldNow()
          log.push("tock")
        })
      )
    )
    const write = loggedWrite(log)
    for (let minute = 0; minute < 40; minute++) {
      for (let i = 0; i < 3; i++) {
        const name = `p-${minute}-${i}`
        yield* write(`create ${name}`, inner.create(Pods, pod(name, nodes[(minute + i) % nodes.length]!), inDefault))
      }
      if (minute > 0) yield* write(`delete p-${minute - 1}-2`, inner.delete(Pods, `p-${minute - 1}-2`, inDefault))
      // an admin pause across some re-watches: their openings wait for it on the fiber
      if (minute === 9) yield* server.pause(45_000)
      // history compacted, every watch dropped: a re-watch from before the compaction is too old (an in-stream ERROR, a relist)
      if (minute === 20) {
        yield* server.compact()
        yield* server.dropWatches()
      }
      yield* Effect.sleep(`${31 + (minute % 7)} seconds`)
      yield* Effect.sleep("23 seconds")
      // every watch dropped, then again every 300 ms for a while: a re-watch dropped within a second of its opening,
      // with no events, was short (a relist), as the reflector judges it from the re-watch's own start
      if (minute === 12)
        for (let i = 0; i < 200; i++) {
          yield* server.dropWatches()
          yield* Effect.sleep("300 millis")
        }
    }
    return yield* Effect.all(stats)
  })

const run = (chains: boolean) => {
  const log: Log = []
  const sim = Simulation.make({ seed: 1 })
  const model = new ServiceTimeModel(
    { ...defaultParameters, maxRequestsInflight: 6, maxMutatingRequestsInflight: 2, readBaseMs: 400, readDispersion: 3 },
    uniformOf(SeededRandom.make(3))
  )
  const book = model.book.bind(model)
  model.book = (at, cls, objects, bytes, request, factor) => {
    const booked = book(at, cls, objects, bytes, request, factor)
    log.push(`book ${request.verb} ${request.user} @${at}: ${"rejectedAt" in booked ? `429 @${booked.rejectedAt}` : `${booked.start}–${booked.end}`}`)
    return booked
  }
  const exit = sim.run(Effect.scoped(scenario(log, model, chains)).pipe(Effect.provide(ApiServer.layer({ seed: 1 }))))
  if (exit?._tag !== "Success") throw new Error(String(exit && Cause.pretty((exit as { cause: Cause.Cause<unknown> }).cause)))
  return { log, stats: exit.value }
}

/** A booking's log line: did it start after its arrival (a wait in its queue)? */
const waited = (line: string): boolean => {
  const times = /@([\d.]+): ([\d.]+)–/.exec(line)
  return times !== null && Number(times[2]) > Number(times[1])
}

describe("a reflector's re-watches through watch chains", () => {
  afterEach(() => void vi.restoreAllMocks())

  it("the same store calls, bookings, steps and stats at the same instants, in the same order, as re-watching in the fiber", () => {
    const adopted = vi.spyOn(WatchEventBuffer.prototype, "adopt")
    const general = run(false)
    expect(adopted).not.toHaveBeenCalled()
    const chained = run(true)
    // most re-watches went on without the fiber; some waited in their queue, and the fiber took those
    expect(adopted.mock.calls.length).toBeGreaterThan(5)
    const rewatches = chained.stats.reduce((n, s) => n + s.rewatches, 0)
    expect(rewatches).toBeGreaterThan(adopted.mock.calls.length)
    expect(chained.log.filter((l) => l.startsWith("book watch") && waited(l)).length).toBeGreaterThan(3)
    expect(chained.stats.some((s) => s.triggers["watch-stream-410"] !== undefined)).toBe(true)
    expect(chained.stats.some((s) => s.triggers["short-watch"] !== undefined)).toBe(true)
    expect(chained.log.length).toBeGreaterThan(3_000)
    expect(chained.log).toEqual(general.log)
    expect(chained.stats).toEqual(general.stats)
  })
})

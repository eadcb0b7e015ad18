/**
 * A reflector's watch batches taken without waking its fiber (`WatchEventBuffer.pullTaking`, `readWatch`'s `take`,
 * `VirtualScheduler.runInline`) against the same reflector reading every batch in its fiber: the same store calls, at
 * the same instants, in the same order among the other fibers' steps, and the same stats — per-node reflectors and a
 * shared informer over pods written, moved between nodes and deleted, bookmarks and watch timeouts over 25 virtual
 * minutes. A client whose watch events pass a decorator (`transform` with `event`) hands out wrapped pulls, which
 * the taking path does not know: the general path, on the same server and writes.
 */
import { afterEach, describe, expect, it, vi } from "@effect/vitest"
import { Cause, Effect, Exit, Fiber, Layer } from "effect"
import type { KObject, WatchEvent } from "../../src/api/Object.js"
import { Pods } from "../../src/api/Resources.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import { transform } from "../../src/client/Transform.js"
import { startInformer } from "../../src/informer/Informer.js"
import { makeReflector, type ReflectorStats } from "../../src/informer/Reflector.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { WatchEventBuffer } from "../../simulator/apiserver/WatchEventBuffer.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import { loggedWrite, loggingStore } from "../support/stepLog.js"

const inDefault = { namespace: "default" }
const pod = (name: string, node: string): KObject => ({ metadata: { name }, spec: { nodeName: node, containers: [{ name: "c", image: "i" }] } }) as KObject

/** Every step, in order: the writers' and the stores', with the virtual instant. */
type Log = Array<string>

const scenario = (log: Log, wrapped: boolean) =>
  Effect.gen(function* () {
    const inner = yield* ApiClient
    // the general path: pulls mapped by a decorator are not the buffer's own
    const opened = (opts: { readonly fieldSelector?: string | undefined; readonly resourceVersion?: string | undefined } | undefined) =>
      Effect.clockWith((clock) => Effect.sync(() => void log.push(`watch ${opts?.fieldSelector ?? "all"} from ${opts?.resourceVersion} @${clock.unsafeCurrentTimeMillis()}`)))
    // every watch opening logged; the general path's pulls mapped by a decorator are not the buffer's own
    const client: ApiClientService = transform(inner, {
      request: (_call, send) => send(),
      beforeWatch: (call) => opened(call.opts as { fieldSelector?: string; resourceVersion?: string } | undefined),
      ...(wrapped ? { event: (e: WatchEvent) => e } : {})
    })
    const stats: Array<Effect.Effect<ReflectorStats>> = []
    let r = 0
    for (const node of ["n1", "n2"]) {
      const reflector = yield* makeReflector(
        { resource: Pods, fieldSelector: `spec.nodeName=${node}`, random: () => (r = (r * 7 + 3) % 10) / 10 },
        loggingStore(log, node)
      )
      stats.push(reflector.stats)
      yield* Effect.forkScoped(Effect.provideService(reflector.run, ApiClient, client))
    }
    const informer = yield* Effect.provideService(
      // an observer of events: every batch refused, read by the fiber woken where its wake stood (`runInline`)
      startInformer({ resource: Pods, random: () => 0.5, observer: { watchEvents: (events, at) => Effect.sync(() => void log.push(`observed ${events.length} @${at}`)) } }, {
        onAdd: (o, now) => void log.push(`informer add ${o.metadata.name} @${now}`),
        onUpdate: (_old, o, now) => void log.push(`informer update ${o.metadata.name} @${now}`),
        onDelete: (o, now) => void log.push(`informer delete ${o.metadata.name} @${now}`)
      }),
      ApiClient,
      client
    )
    stats.push(informer.stats)
    const write = loggedWrite(log)
    // a fiber with two steps every second: a watch's end (on whole seconds) and the next opening fall among them
    yield* Effect.forkScoped(
      Effect.forever(
        Effect.gen(function* () {
          yield* Effect.sleep("1 second")
          log.push("tick")
          yield* Effect.yieldNow()
          log.push("tock")
        })
      )
    )
    for (let minute = 0; minute < 25; minute++) {
      for (let i = 0; i < 3; i++) {
        const name = `p-${minute}-${i}`
        yield* write(`create ${name}`, inner.create(Pods, pod(name, i === 0 ? "n1" : "n2"), inDefault))
        yield* write(`label ${name}`, inner.patch(Pods, name, "merge", { metadata: { labels: { m: String(minute) } } }, inDefault))
      }
      // three writes at one instant, one of them in another node's pod
      yield* Effect.all([
        write(`relabel p-${minute}-0`, inner.patch(Pods, `p-${minute}-0`, "merge", { metadata: { labels: { again: "1" } } }, inDefault)),
        write(`relabel p-${minute}-1`, inner.patch(Pods, `p-${minute}-1`, "merge", { metadata: { labels: { again: "1" } } }, inDefault))
      ], { concurrency: "unbounded" })
      if (minute > 0) yield* write(`delete p-${minute - 1}-2`, inner.delete(Pods, `p-${minute - 1}-2`, inDefault))
      yield* Effect.sleep(`${37 + minute} seconds`)
      yield* Effect.sleep("23 seconds")
    }
    return yield* Effect.all(stats)
  })

const run = (wrapped: boolean) => {
  const log: Log = []
  const sim = Simulation.make({ seed: 1 })
  const exit = sim.run(Effect.scoped(scenario(log, wrapped)).pipe(Effect.provide(InProcessClient.layer.pipe(Layer.provideMerge(ApiServer.layer({ seed: 1 }))))))
  if (exit?._tag !== "Success") throw new Error(String(exit && Cause.pretty((exit as { cause: Cause.Cause<unknown> }).cause)))
  return { log, stats: exit.value }
}

/** A reflector whose store throws at its first watch event: how its fiber ends, and when (the log). */
const throwing = (wrapped: boolean) => {
  const log: Log = []
  const sim = Simulation.make({ seed: 1 })
  const exit = sim.run(
    Effect.gen(function* () {
      const inner = yield* ApiClient
      const client: ApiClientService = wrapped ? transform(inner, { request: (_call, send) => send(), event: (e) => e }) : inner
      const reflector = yield* makeReflector(
        { resource: Pods, random: () => 0.5 },
        {
          add: (o) => {
            log.push(`add ${o.metadata.name}`)
            throw new Error(`store refused ${o.metadata.name}`)
          },
          update: () => {},
          delete: () => {},
          replace: (items) => void log.push(`replace ${items.length}`)
        }
      )
      const fiber = yield* Effect.fork(Effect.provideService(reflector.run, ApiClient, client))
      yield* Effect.sleep("1 second")
      yield* Effect.orDie(inner.create(Pods, pod("p", "n1"), inDefault))
      log.push("wrote p")
      const ended = yield* Fiber.await(fiber)
      log.push("reflector ended")
      return Exit.isFailure(ended) ? Cause.pretty(ended.cause).split("\n")[0] : "still running"
    }).pipe(Effect.provide(InProcessClient.layer.pipe(Layer.provideMerge(ApiServer.layer({ seed: 1 })))))
  )
  if (exit?._tag !== "Success") throw new Error(String(exit && Cause.pretty((exit as { cause: Cause.Cause<unknown> }).cause)))
  return { log, ended: exit.value }
}

describe("a reflector's batches taken without waking its fiber", () => {
  it("a store that throws kills the reflector's fiber with that defect, at the same step, as in the fiber", () => {
    const general = throwing(true)
    const taken = throwing(false)
    expect(general.ended).toBe("Error: store refused p")
    expect(taken).toEqual(general)
    expect(taken.log).toEqual(["replace 0", "wrote p", "add p", "reflector ended"])
  })

  afterEach(() => void vi.restoreAllMocks())

  it("the same store calls at the same instants, in the same order among other fibers' steps, and the same stats as reading them in the fiber", () => {
    const taking = vi.spyOn(WatchEventBuffer.prototype as unknown as { runTaking: (...a: Array<unknown>) => void }, "runTaking")
    const general = run(true)
    const generalTakes = taking.mock.calls.length
    const taken = run(false)
    const takenTakes = taking.mock.calls.length - generalTakes
    // the general path never takes; the taking path took the batches of 3 watches over 25 minutes
    expect(generalTakes).toBe(0)
    expect(takenTakes).toBeGreaterThan(100)
    expect(taken.log.length).toBeGreaterThan(3_000)
    expect(taken.log).toEqual(general.log)
    expect(taken.stats).toEqual(general.stats)
    // the watches timed out and were opened again, with bookmarks between
    expect(taken.stats[0]!.rewatches).toBeGreaterThan(0)
    expect(taken.stats[0]!.bookmarks).toBeGreaterThan(10)
  })
})

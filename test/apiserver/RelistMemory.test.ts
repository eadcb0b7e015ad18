/**
 * The relists' server memory (simulator/apiserver/RelistMemory.ts, docs/watchlist.md "The cost model"): what a LIST
 * and a WatchList hold, the peak sweep, the watch-initialization seats (apf/WorkEstimate.ts `watchSeats`), and the
 * modelled client booking both on the virtual clock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Cause, Chunk, Clock, Effect, Either, Layer, Option } from "effect"
import { defaultFeatureGates, setFromMap } from "../../src/api/FeatureGates.js"
import type { WatchEvent } from "../../src/api/Object.js"
import { ConfigMaps } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { openWatchPull } from "../../src/client/WatchPull.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { listSeats, MaximumSeats, MinimumSeats, watchSeats } from "../../simulator/apiserver/apf/WorkEstimate.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { jsonLength, storedJsonLength } from "../../simulator/apiserver/JsonLength.js"
import { listHeldBytes, RelistMemory, WatchChannelSize, watchListHeldBytes } from "../../simulator/apiserver/RelistMemory.js"
import { modelledClient, ServiceTimeModel } from "../../simulator/apiserver/ServiceTime.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"

describe("what a read holds", () => {
  it("a LIST its response; from etcd also the page etcd returned", () => {
    expect(listHeldBytes(1_000, "cache")).toBe(1_000)
    expect(listHeldBytes(1_000, "storage")).toBe(2_000)
  })

  it("a WatchList at most a full result channel of its objects (upstream maxWatchChanSizeWithoutIndex = 100)", () => {
    expect(WatchChannelSize).toBe(100)
    expect(watchListHeldBytes(50, 50_000)).toBe(50_000)
    expect(watchListHeldBytes(100, 100_000)).toBe(100_000)
    expect(watchListHeldBytes(10_000, 20_000_000)).toBe(200_000)
  })
})

describe("RelistMemory: the peak of the reads in flight", () => {
  it("sums overlapping reads, counts each kind at the peak; a read ending as another starts does not overlap it", () => {
    const m = new RelistMemory()
    m.record("list", 1_010, 1_020, 300) // touches the next at 1,020: not together
    m.record("list", 1_020, 1_050, 500)
    m.record("watchList", 1_030, 1_040, 70)
    m.record("list", 1_035, 1_060, 400)
    m.record("watchList", 2_000, 2_001, 10)
    m.record("list", 3_000, 3_001, 0) // holds nothing: not a read of the report
    expect(m.report(1_000)).toEqual({
      peakBytes: 970,
      peakAtMs: 35,
      atPeak: { lists: 2, watchLists: 1 },
      lists: { count: 3, largestBytes: 500 },
      watchLists: { count: 2, largestBytes: 70 }
    })
  })

  it("nothing held: a zero peak at the origin", () => {
    expect(new RelistMemory().report(5).peakBytes).toBe(0)
    expect(new RelistMemory().report(5).peakAtMs).toBe(0)
  })
})

describe("watchSeats: 1.27+ list_work_estimator.go for a WATCH", () => {
  it("a watch asking for its initial events is a LIST from the watch cache; any other the minimum", () => {
    expect(watchSeats({ stored: 150, sendInitialEvents: false })).toBe(MinimumSeats)
    expect(watchSeats({ stored: 150_000, sendInitialEvents: false })).toBe(MinimumSeats)
    expect(watchSeats({ stored: 150, sendInitialEvents: true })).toBe(2)
    expect(watchSeats({ stored: 150_000, sendInitialEvents: true })).toBe(MaximumSeats)
    expect(watchSeats({ stored: 4_321, sendInitialEvents: true })).toBe(listSeats({ stored: 4_321, limit: undefined, fromCache: true, selector: false }))
  })
})

const watchListServer = ApiServer.layer({ seed: 1, featureGates: Either.getOrThrow(setFromMap(defaultFeatureGates, { WatchList: true })) })

const stream = { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true } as const

describe("the modelled client: LISTs and WatchLists in the memory model", () => {
  it("a LIST holds its response from dispatch to end (twice from etcd); a WatchList streams its first events at once, its end bookmark when the initial events' time is over, holding 100 objects", () => {
    const sim = Simulation.make({ seed: 1 })
    const model = new ServiceTimeModel()
    model.objectCount = () => 150
    const exit = sim.run(
      Effect.gen(function* () {
        const inner = yield* ApiClient
        for (let i = 0; i < 150; i++) yield* inner.create(ConfigMaps, { metadata: { name: `cm-${i}` }, data: { v: "x".repeat(i) } }, { namespace: "default" })
        const client = modelledClient(inner, model)
        const fromCache = yield* client.list(ConfigMaps, { namespace: "default", resourceVersion: "0" })
        const fromStorage = yield* client.list(ConfigMaps, { namespace: "default", limit: 500 })
        const t0 = yield* Clock.currentTimeMillis
        const seen: Array<{ readonly event: WatchEvent; readonly at: number }> = []
        yield* Effect.scoped(
          Effect.gen(function* () {
            const pull = yield* openWatchPull(client, ConfigMaps, { namespace: "default", ...stream })
            while (!seen.some((s) => s.event.type === "BOOKMARK")) {
              const batch = yield* Effect.mapError(pull, (e) => (Option.isSome(e) ? e.value : new Error("ended")))
              const at = yield* Clock.currentTimeMillis
              for (const event of Chunk.toReadonlyArray(batch)) seen.push({ event, at: at - t0 })
            }
          })
        )
        return { listBytes: fromCache.items.reduce((n, o) => n + storedJsonLength(o), 0), storageItems: fromStorage.items.length, seen }
      }).pipe(Effect.provide(InProcessClient.layer.pipe(Layer.provideMerge(watchListServer))))
    )
    if (exit?._tag !== "Success") throw new Error(String(exit && Cause.pretty((exit as { cause: Cause.Cause<unknown> }).cause)))
    const { listBytes, storageItems, seen } = (exit as { value: { listBytes: number; storageItems: number; seen: Array<{ event: WatchEvent; at: number }> } }).value
    expect(storageItems).toBe(150)
    const added = seen.filter((s) => s.event.type === "ADDED")
    expect(added).toHaveLength(150)
    // the first events at dispatch; the end bookmark after the initial events' service time (150 objects)
    expect(added[0]!.at).toBe(0)
    expect(seen.at(-1)!.event.type).toBe("BOOKMARK")
    expect(seen.at(-1)!.at).toBeCloseTo(model.serviceMs("read", 150, 0), 3)
    const streamedBytes = added.reduce((n, s) => n + jsonLength(s.event.object), 0)
    const report = model.relistMemory.report(0)
    expect(report.lists).toEqual({ count: 2, largestBytes: 2 * listBytes })
    expect(report.watchLists).toEqual({ count: 1, largestBytes: Math.round((streamedBytes / 150) * 100) })
    // one at a time: the peak is the etcd LIST's
    expect(report.peakBytes).toBe(2 * listBytes)
    // upstream's estimate: the watch initialization took ⌈150 / 100⌉ seats, booked in global-default like the LISTs
    expect(model.apf!.metrics()["global-default"]?.dispatched).toBe(3)
  })
})

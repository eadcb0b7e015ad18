/**
 * The reflector's WatchList mode (issue 40; client-go `reflector.go` `watchList`) over every transport: one
 * streaming watch syncs the store and goes on live; WatchList and LIST + WATCH end with the same store under the same
 * history; a server without the gate is fallen back from; relists after a 410 and after a dropped watch stream again;
 * the phases are timed to the first event, to the end bookmark and to synced.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, TestClock } from "effect"
import { defaultFeatureGates, parseFeatureGatesFlag } from "../../src/api/FeatureGates.js"
import type { KObject } from "../../src/api/Object.js"
import { ConfigMaps } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ServerAdmin } from "../../src/client/ServerAdmin.js"
import { WatchListClient } from "../../src/informer/WatchListClient.js"
import { transports } from "../support/transports.js"
import { cm, eventually, newTap, run, series, settle, start, storeMatchesServer } from "./reflectorHarness.js"

const watchListOn = { featureGates: Either.getOrThrow(parseFeatureGatesFlag(defaultFeatureGates, "WatchList=true")) }
const streamRequest = { sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true } as const

/** The same history written before and while a reflector runs: creates, updates, deletes. */
const history = (phase: "before" | "during") =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    for (let i = 0; i < 6; i++) yield* api.create(ConfigMaps, cm(`${phase}${i}`), { namespace: "default" })
    yield* api.update(ConfigMaps, { ...cm(`${phase}1`), data: { v: "2" } } as KObject, { namespace: "default" })
    yield* api.delete(ConfigMaps, `${phase}2`, { namespace: "default" })
  })

describe.each(transports)("reflector in WatchList mode over %s", (transport) => {
  it.effect("one streaming watch syncs and stays the live watch: no LIST; the phases are timed", () =>
    run(
      transport,
      Effect.gen(function* () {
        yield* history("before")
        const tap = newTap()
        const reflector = yield* start(tap, { resource: ConfigMaps, namespace: "default", watchList: true })
        yield* reflector.synced
        expect(tap.lists).toHaveLength(0)
        expect(tap.watches).toHaveLength(1)
        expect(tap.watches[0]).toMatchObject({ ...streamRequest, resourceVersion: "", namespace: "default" })
        expect(yield* storeMatchesServer(reflector, ConfigMaps, "default")).toBe(true)
        yield* history("during")
        yield* eventually("store equals server", storeMatchesServer(reflector, ConfigMaps, "default"))
        const stats = yield* reflector.stats
        expect(tap.watches).toHaveLength(1)
        expect(stats).toMatchObject({ watchListSyncs: 1, watchListFallbacks: 0, relists: 0 })
        const initial = yield* series("initial_list")
        for (const phase of ["first_response", "pages", "replace", "total"]) expect(initial[phase]?.count, phase).toBe(1)
      }),
      watchListOn
    ))

  it.effect("a reflector that does not choose follows the run's WatchListClient gate: on, it streams; off (the default), it lists", () =>
    run(
      transport,
      Effect.gen(function* () {
        yield* history("before")
        const gated = newTap()
        const streaming = yield* Effect.provideService(start(gated, { resource: ConfigMaps, namespace: "default" }), WatchListClient, true)
        yield* streaming.synced
        expect(gated.lists).toHaveLength(0)
        expect(gated.watches[0]).toMatchObject({ ...streamRequest, resourceVersion: "" })
        // its own choice wins over the gate
        const own = newTap()
        const listing = yield* Effect.provideService(start(own, { resource: ConfigMaps, namespace: "default", watchList: false }), WatchListClient, true)
        yield* listing.synced
        expect(own.lists).toHaveLength(1)
        const plain = newTap()
        const byDefault = yield* start(plain, { resource: ConfigMaps, namespace: "default" })
        yield* byDefault.synced
        expect(plain.lists).toHaveLength(1)
        expect(plain.watches.every((w) => w.sendInitialEvents === undefined)).toBe(true)
        expect((yield* streaming.stats).watchListSyncs).toBe(1)
      }),
      watchListOn
    ))

  it.effect("the same history ends in the same store as LIST + WATCH", () =>
    run(
      transport,
      Effect.gen(function* () {
        yield* history("before")
        const streamed = yield* start(newTap(), { resource: ConfigMaps, namespace: "default", watchList: true })
        const listed = yield* start(newTap(), { resource: ConfigMaps, namespace: "default" })
        yield* Effect.all([streamed.synced, listed.synced])
        yield* history("during")
        yield* eventually("both equal the server", Effect.zipWith(storeMatchesServer(streamed, ConfigMaps, "default"), storeMatchesServer(listed, ConfigMaps, "default"), (a, b) => a && b))
        const byName = (items: ReadonlyArray<KObject>) => JSON.stringify(items.map((o) => [o.metadata.name, o.metadata.resourceVersion, o.data]).sort())
        expect(byName(streamed.cache.list())).toBe(byName(listed.cache.list()))
      }),
      watchListOn
    ))

  it.effect("a server without the gate: the 422 is fallen back from with LIST + WATCH, and tried again at the next sync", () =>
    run(
      transport,
      Effect.gen(function* () {
        const admin = yield* ServerAdmin
        yield* history("before")
        const tap = newTap()
        const reflector = yield* start(tap, { resource: ConfigMaps, namespace: "default", watchList: true })
        yield* reflector.synced
        expect(yield* storeMatchesServer(reflector, ConfigMaps, "default")).toBe(true)
        expect(tap.watches[0]).toMatchObject(streamRequest)
        expect(tap.lists[0]).toMatchObject({ resourceVersion: "0", limit: 500 })
        yield* eventually("live watch opened", Effect.sync(() => tap.watches.length === 2))
        expect(tap.watches[1]!.sendInitialEvents).toBeUndefined()
        // the refused stream is the designed fallback, not a failed watch (the run's outcome counts those)
        expect((yield* reflector.stats)).toMatchObject({ watchListSyncs: 0, watchListFallbacks: 1, failedWatchOpens: 0 })
        // A 410 relists: the stream is asked again, refused again, listed again.
        yield* Effect.flatMap(ApiClient, (api) => api.create(ConfigMaps, cm("x"), { namespace: "default" }))
        yield* admin.compact
        yield* admin.dropWatches
        yield* eventually("store equals server", storeMatchesServer(reflector, ConfigMaps, "default"))
      })
    ))

  it.effect("a dropped watch re-watches from the last rv (no stream); a 410 on the re-watch relists by streaming from the last rv", () =>
    run(
      transport,
      Effect.gen(function* () {
        const api = yield* ApiClient
        const admin = yield* ServerAdmin
        yield* history("before")
        const tap = newTap()
        const reflector = yield* start(tap, { resource: ConfigMaps, namespace: "default", watchList: true })
        yield* reflector.synced
        yield* admin.dropWatches
        yield* eventually("watched again", Effect.sync(() => tap.watches.length === 2))
        expect(tap.watches[1]!.sendInitialEvents).toBeUndefined()
        expect(tap.watches[1]!.resourceVersion).toBe((yield* reflector.stats).lastSyncedRv)
        // The next re-watch is answered 410: the relist streams from the last rv (NotOlderThan: no 410 there).
        yield* api.create(ConfigMaps, cm("late"), { namespace: "default" })
        yield* eventually("late seen", storeMatchesServer(reflector, ConfigMaps, "default"))
        const rvBefore = (yield* reflector.stats).lastSyncedRv
        tap.failNextWatch = Status.expired("too old resource version: 1 (2)")
        yield* TestClock.adjust("2 seconds")
        yield* admin.dropWatches
        yield* eventually("HTTP 410", Effect.map(reflector.stats, (s) => s.expired.watchHttp === 1))
        yield* settle(20)
        yield* TestClock.adjust("1600 millis")
        yield* eventually("relisted", Effect.map(reflector.stats, (s) => s.relists === 1))
        yield* api.delete(ConfigMaps, "before0", { namespace: "default" })
        yield* eventually("store equals server", storeMatchesServer(reflector, ConfigMaps, "default"))
        // The first stream, then the relist's stream from the rv the dropped watch had reached (NotOlderThan: no 410).
        const streamed = tap.watches.filter((w) => w.sendInitialEvents === true)
        expect(streamed.map((w) => w.resourceVersion)).toEqual(["", rvBefore])
        expect(tap.lists).toHaveLength(0)
        expect(yield* reflector.stats).toMatchObject({ watchListSyncs: 2, relists: 1 })
      }),
      watchListOn
    ))
})

/**
 * The reflector under an informer, over every transport (client-go `reflector.go`): list, watch, re-watch,
 * relist on 410, paging rules, and the relist phases the load generator records (`loadgen/ReflectorMetrics.ts`).
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer, Random, TestClock } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { ConfigMaps, Events } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ServerAdmin } from "../../src/client/ServerAdmin.js"
import { LatencyRecorder, nowMillis } from "../../src/loadgen/LatencyRecorder.js"
import { writtenAtAnnotation } from "../../src/loadgen/ReflectorMetrics.js"
import { httpServer, transports } from "../support/transports.js"
import { cm, event, eventually, newTap, run, series, settle, start, storeMatchesServer, watching } from "./reflectorHarness.js"

// ---- the loop, on both transports -----------------------------------------------------------------------

describe.each(transports)("reflector over %s", (transport) => {
  it.effect("initial list at rv 0 (pages of 500), watch from the list rv; the store follows the server under writes", () =>
    run(
      transport,
      Effect.gen(function* () {
        const api = yield* ApiClient
        for (let i = 0; i < 5; i++) yield* api.create(ConfigMaps, cm(`pre${i}`), { namespace: "default" })
        const tap = newTap()
        const reflector = yield* start(tap, { resource: ConfigMaps, namespace: "default" })
        yield* reflector.synced
        expect(tap.lists[0]).toMatchObject({ resourceVersion: "0", limit: 500, namespace: "default" })
        expect(yield* storeMatchesServer(reflector, ConfigMaps, "default")).toBe(true)

        yield* eventually("watch opened", Effect.sync(() => tap.watches.length === 1))
        const listRv = (yield* reflector.stats).lastSyncedRv
        const watch = tap.watches[0]!
        expect(watch).toMatchObject({ resourceVersion: listRv, allowWatchBookmarks: true })
        expect(watch.timeoutSeconds).toBeGreaterThanOrEqual(300)
        expect(watch.timeoutSeconds).toBeLessThanOrEqual(600)

        // concurrent writers: creates (stamped for watch-event latency), updates, deletes
        yield* Effect.forEach(
          Array.from({ length: 30 }, (_, i) => i),
          (i) =>
            Effect.flatMap(nowMillis, (t) =>
              api.create(ConfigMaps, cm(`w${i}`, {}, { [writtenAtAnnotation]: String(t) }), { namespace: "default" })
            ),
          { concurrency: 4 }
        )
        yield* Effect.forEach([0, 1, 2], (i) => api.update(ConfigMaps, { ...cm(`w${i}`), data: { v: "2" } } as KObject, { namespace: "default" }))
        yield* Effect.forEach([3, 4], (i) => api.delete(ConfigMaps, `w${i}`, { namespace: "default" }))
        yield* api.delete(ConfigMaps, "pre0", { namespace: "default" })

        yield* eventually("store equals server", storeMatchesServer(reflector, ConfigMaps, "default"))
        const stats = yield* reflector.stats
        expect(stats.relists).toBe(0)
        expect(stats.events).toBe(30 + 3 + 3)
        expect(stats.items).toBe(5 + 30 - 3)
        expect(tap.lists).toHaveLength(1)
        expect(tap.watches).toHaveLength(1)

        const initial = yield* series("initial_list")
        for (const phase of ["first_response", "pages", "replace", "total"]) expect(initial[phase]?.count).toBe(1)
        const watchEvents = yield* series("watch_event")
        expect(watchEvents["ADDED"]?.count).toBe(30)
        expect(watchEvents["ADDED"]?.key).toEqual({ metric: "watch_event", operation: "ADDED", resource: "configmaps", scope: "namespace" })
      })
    ))

  it.effect("clean watch close (server drop, server timeout) → watch again from the last rv, no relist", () =>
    run(
      transport,
      Effect.gen(function* () {
        const api = yield* ApiClient
        const admin = yield* ServerAdmin
        yield* api.create(ConfigMaps, cm("a"), { namespace: "default" })
        const { tap, reflector } = yield* watching({ resource: ConfigMaps, namespace: "default" })
        yield* api.create(ConfigMaps, cm("b"), { namespace: "default" })
        yield* eventually("event b", Effect.map(reflector.stats, (s) => s.events === 1))
        const rvAfterB = (yield* reflector.stats).lastSyncedRv

        yield* TestClock.adjust("2 seconds") // not a "very short watch"
        yield* admin.dropWatches
        yield* eventually("re-watch", Effect.sync(() => tap.watches.length === 2))
        expect(tap.watches[1]!.resourceVersion).toBe(rvAfterB)

        // the server ends the watch at its timeoutSeconds (≤ 600 s): again a re-watch
        yield* settle(20)
        yield* TestClock.adjust("601 seconds")
        yield* eventually("re-watch after timeout", Effect.sync(() => tap.watches.length === 3))

        yield* api.create(ConfigMaps, cm("c"), { namespace: "default" })
        yield* eventually("store equals server", storeMatchesServer(reflector, ConfigMaps, "default"))
        const stats = yield* reflector.stats
        expect(stats.rewatches).toBe(2)
        expect(stats.relists).toBe(0)
        expect(stats.bookmarks).toBeGreaterThan(0) // bookmarks every minute of the 601 s
        expect(tap.lists).toHaveLength(1)
      })
    ))

  it.effect("in-stream 410 after compaction → exactly one relist after 0.8–1.6 s, at the last rv, unpaginated; phases recorded", () =>
    run(
      transport,
      Effect.gen(function* () {
        const api = yield* ApiClient
        const admin = yield* ServerAdmin
        yield* api.create(ConfigMaps, cm("mine", { app: "watched" }), { namespace: "default" })
        const { tap, reflector } = yield* watching({ resource: ConfigMaps, namespace: "default", labelSelector: "app=watched" })
        const listRv = (yield* reflector.stats).lastSyncedRv
        // writes the reflector does not see move the revision past its last rv; then compact
        yield* api.create(ConfigMaps, cm("other", { app: "other" }), { namespace: "default" })
        yield* admin.compact
        yield* TestClock.adjust("2 seconds")
        yield* admin.dropWatches

        yield* eventually("in-stream 410", Effect.map(reflector.stats, (s) => s.expired.watchStream === 1))
        expect(tap.watches[1]!.resourceVersion).toBe(listRv)
        yield* settle(20)
        yield* TestClock.adjust("799 millis")
        yield* settle(50)
        expect((yield* reflector.stats).relists).toBe(0)
        expect(tap.lists).toHaveLength(1)
        yield* TestClock.adjust("801 millis") // 1.6 s after the 410: the backoff has surely ended
        yield* eventually("relist", Effect.map(reflector.stats, (s) => s.relists === 1))

        expect(tap.lists).toHaveLength(2)
        expect(tap.lists[1]!.resourceVersion).toBe(listRv)
        expect(tap.lists[1]!.limit).toBeUndefined()
        yield* eventually("watch after relist", Effect.sync(() => tap.watches.length === 3))
        yield* settle(50)
        const stats = yield* reflector.stats
        expect(stats).toMatchObject({ relists: 1, expired: { watchHttp: 0, watchStream: 1, list: 0 }, triggers: { "watch-stream-410": 1 } })
        expect(yield* storeMatchesServer(reflector, ConfigMaps, "default", "app=watched")).toBe(true)

        const relist = yield* series("relist")
        for (const phase of ["backoff", "first_response", "pages", "replace", "total"]) expect(relist[phase]?.count).toBe(1)
        const backoffMs = relist["backoff"]!.latency.maxValue / 1000
        expect(backoffMs).toBeGreaterThanOrEqual(800)
        expect(backoffMs).toBeLessThanOrEqual(1600)
        expect(relist["total"]!.latency.maxValue / 1000).toBeGreaterThanOrEqual(backoffMs)
        expect((yield* series("relist_trigger"))["watch-stream-410"]?.count).toBe(1)
      })
    ))

  it.effect("HTTP 410 on the watch request → relist (counted as watch-http)", () =>
    run(
      transport,
      Effect.gen(function* () {
        const api = yield* ApiClient
        const admin = yield* ServerAdmin
        yield* api.create(ConfigMaps, cm("a"), { namespace: "default" })
        const { tap, reflector } = yield* watching({ resource: ConfigMaps, namespace: "default" })
        tap.failNextWatch = Status.expired("too old resource version: 1 (2)")
        yield* TestClock.adjust("2 seconds")
        yield* admin.dropWatches
        yield* eventually("HTTP 410", Effect.map(reflector.stats, (s) => s.expired.watchHttp === 1))
        yield* settle(20)
        yield* TestClock.adjust("1600 millis")
        yield* eventually("relist", Effect.map(reflector.stats, (s) => s.relists === 1))
        const stats = yield* reflector.stats
        expect(stats.expired).toEqual({ watchHttp: 1, watchStream: 0, list: 0 })
        expect(stats.triggers).toEqual({ "watch-http-410": 1 })
      })
    ))

  it.effect("a very short watch (< 1 s, no events) relists; 429 on the watch backs off and re-watches without relisting", () =>
    run(
      transport,
      Effect.gen(function* () {
        const admin = yield* ServerAdmin
        const { tap, reflector } = yield* watching({ resource: ConfigMaps, namespace: "default" })
        tap.failNextWatch = Status.tooManyRequests("slow down", 1)
        yield* admin.dropWatches // at once, no events: very short watch
        yield* eventually("short watch", Effect.map(reflector.stats, (s) => s.triggers["short-watch"] === 1))
        yield* settle(20)
        yield* TestClock.adjust("1600 millis")
        yield* eventually("relist", Effect.map(reflector.stats, (s) => s.relists === 1))
        // the watch after that relist gets the 429: backoff (second step, 1.6–3.2 s), then a plain re-watch
        yield* eventually("429", Effect.map(reflector.stats, (s) => s.watchRetries === 1))
        yield* settle(20)
        yield* TestClock.adjust("3200 millis")
        yield* eventually("re-watch", Effect.sync(() => tap.watches.length === 3))
        const stats = yield* reflector.stats
        expect(stats.relists).toBe(1)
        expect(tap.lists).toHaveLength(2)
      })
    ))

  it.effect("Events page for real; an expired continue token on page 2 → one full unpaginated list at the same rv", () =>
    run(
      transport,
      Effect.gen(function* () {
        const api = yield* ApiClient
        const admin = yield* ServerAdmin
        for (let i = 0; i < 5; i++) yield* api.create(Events, event(`e${i}`), { namespace: "default" })
        const tap = newTap()
        // between page 1 and page 2: a write, then compaction past the token's revision
        tap.beforeFirstContinue = Effect.asVoid(
          Effect.zipRight(Effect.orDie(api.create(Events, event("late"), { namespace: "default" })), Effect.orDie(admin.compact))
        )
        const reflector = yield* start(tap, { resource: Events, namespace: "default", pageSize: 2 })
        yield* reflector.synced
        expect(tap.lists.map((o) => ({ rv: o.resourceVersion, limit: o.limit, continue: o.continue !== undefined }))).toEqual([
          { rv: "0", limit: 2, continue: false },
          { rv: undefined, limit: 2, continue: true },
          { rv: "0", limit: undefined, continue: false }
        ])
        const stats = yield* reflector.stats
        expect(stats.expiredContinue).toBe(1)
        expect(stats.items).toBe(6)
        expect(yield* storeMatchesServer(reflector, Events, "default")).toBe(true)
      })
    ))

  it.effect("paged type keeps paging on relist; 410 on that LIST → quorum list (rv \"\") paginated", () =>
    run(
      transport,
      Effect.gen(function* () {
        const api = yield* ApiClient
        const admin = yield* ServerAdmin
        for (let i = 0; i < 5; i++) yield* api.create(Events, event(`e${i}`), { namespace: "default" })
        const tap = newTap()
        const reflector = yield* start(tap, { resource: Events, namespace: "default", pageSize: 2 })
        yield* reflector.synced
        expect(tap.lists).toHaveLength(3) // 2 + 2 + 1
        yield* eventually("watch opened", Effect.sync(() => tap.watches.length === 1))
        const listRv = (yield* reflector.stats).lastSyncedRv
        // Events have no watch cache: a paged relist at rv N is an exact read, which compaction makes 410
        yield* api.create(ConfigMaps, cm("bump"), { namespace: "default" })
        yield* admin.compact
        tap.failNextWatch = Status.internal("boom")
        yield* TestClock.adjust("2 seconds")
        yield* admin.dropWatches
        yield* eventually("watch error", Effect.map(reflector.stats, (s) => s.triggers["watch-error"] === 1))
        yield* settle(20)
        yield* TestClock.adjust("1600 millis")
        yield* eventually("relist", Effect.map(reflector.stats, (s) => s.relists === 1))
        const relistCalls = tap.lists.slice(3).map((o) => ({ rv: o.resourceVersion, limit: o.limit, continue: o.continue !== undefined }))
        expect(relistCalls).toEqual([
          { rv: listRv, limit: 2, continue: false }, // 410: too old for an exact read
          { rv: "", limit: 2, continue: false },
          { rv: undefined, limit: 2, continue: true },
          { rv: undefined, limit: 2, continue: true }
        ])
        const stats = yield* reflector.stats
        expect(stats.expired.list).toBe(1)
        expect(yield* storeMatchesServer(reflector, Events, "default")).toBe(true)
      })
    ))
})

// ---- a real HTTP 410 on the watch request ---------------------------------------------------------------

/** Forwards to `target`; answers the next `failWatches` watch requests with a 410 Status instead. */
const wireProxy = (target: string) =>
  Effect.acquireRelease(
    Effect.async<{ url: string; server: http.Server; failWatches: number; watchRequests: number }>((resume) => {
      const state = { url: "", server: undefined as unknown as http.Server, failWatches: 0, watchRequests: 0 }
      state.server = http.createServer((req, res) => {
        const isWatch = /[?&]watch=true/.test(req.url ?? "")
        if (isWatch) state.watchRequests++
        if (state.failWatches > 0 && isWatch) {
          state.failWatches--
          res.writeHead(410, { "content-type": "application/json" })
          res.end(JSON.stringify(Status.expired("too old resource version: 1 (2)").status))
          return
        }
        const upstream = http.request(target + (req.url ?? "/"), { method: req.method, headers: req.headers, agent: false }, (up) => {
          res.writeHead(up.statusCode ?? 502, up.headers)
          res.flushHeaders() // watch headers go out before the first event
          up.pipe(res)
        })
        upstream.on("error", () => res.destroy())
        res.on("close", () => upstream.destroy())
        req.pipe(upstream)
      })
      state.server.listen(0, "127.0.0.1", () => {
        state.url = `http://127.0.0.1:${(state.server.address() as AddressInfo).port}`
        resume(Effect.succeed(state))
      })
    }),
    (p) =>
      Effect.async<void>((resume) => {
        p.server.closeAllConnections()
        p.server.close(() => resume(Effect.void))
      })
  )

describe("reflector over the wire", () => {
  it.effect("stops with its scope while a watch waits for response headers (server paused)", () =>
    run(
      "http",
      Effect.gen(function* () {
        const admin = yield* ServerAdmin
        const { tap } = yield* watching({ resource: ConfigMaps, namespace: "default" })
        yield* settle(20)
        yield* admin.pause("60 seconds")
        yield* TestClock.adjust("2 seconds")
        yield* admin.dropWatches // the re-watch now waits in the paused server, without headers
        yield* eventually("re-watch sent", Effect.sync(() => tap.watches.length === 2))
        yield* settle(20)
      })
    ), 10_000)

  it.effect("a 410 status answering the watch request → relist, counted as watch-http", () =>
    Effect.gen(function* () {
      const target = yield* httpServer()
      const proxy = yield* wireProxy(target)
      const tap = newTap()
      const body = Effect.gen(function* () {
        const admin = yield* ServerAdmin
        const reflector = yield* start(tap, { resource: ConfigMaps, namespace: "default" })
        yield* reflector.synced
        yield* eventually("watch reached the server", Effect.sync(() => proxy.watchRequests === 1))
        yield* settle(20)
        proxy.failWatches = 1
        yield* TestClock.adjust("2 seconds")
        yield* admin.dropWatches
        yield* eventually("HTTP 410", Effect.map(reflector.stats, (s) => s.expired.watchHttp === 1))
        yield* settle(20)
        yield* TestClock.adjust("1600 millis")
        yield* eventually("relist", Effect.map(reflector.stats, (s) => s.relists === 1))
        yield* eventually("watch after relist", Effect.sync(() => tap.watches.length === 3))
        const stats = yield* reflector.stats
        expect(stats.expired).toEqual({ watchHttp: 1, watchStream: 0, list: 0 })
        expect(stats.triggers).toEqual({ "watch-http-410": 1 })
      })
      yield* body.pipe(
        Effect.scoped,
        Effect.provide(Layer.mergeAll(ApiClient.layerHttp({ baseUrl: proxy.url }), ServerAdmin.layerHttp(target), LatencyRecorder.layer()))
      )
    }).pipe(Effect.scoped, Effect.withRandom(Random.make(42))))
})

/** Contract tests of part 2: watches, resource-version tables, history window, expiry — both layers. */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Option, Stream, TestClock } from "effect"
import type { WatchEvent } from "../../src/api/Object.js"
import { ConfigMaps, Events, Leases, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ServerAdmin } from "../../src/client/ServerAdmin.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { clientLayer, transports } from "../support/transports.js"
import { serverAnswer } from "../support/serverAnswer.js"

const collect = (stream: Stream.Stream<WatchEvent, unknown>, n: number) =>
  Effect.map(Stream.runCollect(Stream.take(stream, n)), Chunk.toArray)

const summary = (events: ReadonlyArray<WatchEvent>) =>
  events.map((e) => `${e.type} ${e.type === "ERROR" || e.type === "BOOKMARK" ? "" : e.object.metadata.name}`.trim())

const cm = (name: string, labels: Record<string, string> = {}) => ({ metadata: { name, labels }, data: { v: "1" } })

describe.each(transports)("watch over %s", (transport) => {
  const layer = (config = {}) => Effect.provide(clientLayer(transport, config))

  it.effect("rv unset: synthetic ADDED for current state, then live events", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      yield* api.create(ConfigMaps, cm("a"), { namespace: "default" })
      yield* api.create(ConfigMaps, cm("b"), { namespace: "default" })
      const fiber = yield* Effect.fork(collect(api.watch(ConfigMaps, { namespace: "default" }), 4))
      yield* waitForClockSleepers()
      yield* api.update(ConfigMaps, { ...cm("a"), data: { v: "2" } }, { namespace: "default" })
      yield* api.delete(ConfigMaps, "b", { namespace: "default" })
      const events = yield* Fiber.join(fiber)
      expect(summary(events)).toEqual(["ADDED a", "ADDED b", "MODIFIED a", "DELETED b"])
      expect(events[0]!.object.kind).toBe("ConfigMap")
      expect(events[0]!.object.apiVersion).toBe("v1")
    }).pipe(layer()))

  it.effect("rv N: only changes after N, no synthetic events; DELETED carries the deletion revision", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      yield* api.create(ConfigMaps, cm("old"), { namespace: "default" })
      const list = yield* api.list(ConfigMaps, { namespace: "default" })
      yield* api.create(ConfigMaps, cm("new"), { namespace: "default" })
      const deleted = yield* api.delete(ConfigMaps, "old", { namespace: "default" })
      expect(deleted.code).toBe(200)
      const events = yield* collect(api.watch(ConfigMaps, { namespace: "default", resourceVersion: list.metadata.resourceVersion }), 2)
      expect(summary(events)).toEqual(["ADDED new", "DELETED old"])
      expect(Number(events[1]!.object.metadata.resourceVersion)).toBe(Number(events[0]!.object.metadata.resourceVersion) + 1)
      expect(events[1]!.object.data).toEqual({ v: "1" })
    }).pipe(layer()))

  it.effect("list-then-watch misses no event under concurrent writes", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const writer = yield* Effect.fork(
        Effect.forEach(Array.from({ length: 60 }, (_, i) => i), (i) => api.create(ConfigMaps, cm(`w${i}`), { namespace: "default" }), {
          concurrency: 4
        })
      )
      yield* Effect.yieldNow()
      const list = yield* api.list(ConfigMaps, { namespace: "default" })
      const seen = new Set(list.items.map((i) => i.metadata.name))
      const missing = 60 - seen.size
      yield* Fiber.join(writer)
      const events = missing === 0 ? [] : yield* collect(api.watch(ConfigMaps, { namespace: "default", resourceVersion: list.metadata.resourceVersion }), missing)
      for (const e of events) {
        expect(e.type).toBe("ADDED")
        expect(seen.has(e.object.metadata.name!)).toBe(false)
        seen.add(e.object.metadata.name!)
      }
      expect(seen.size).toBe(60)
    }).pipe(layer()))

  it.effect("selector transitions: stop matching is DELETED, start matching is ADDED", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const start = yield* api.create(ConfigMaps, cm("x", { app: "web" }), { namespace: "default" })
      const rv = start.object.metadata.resourceVersion
      yield* api.patch(ConfigMaps, "x", "merge", { metadata: { labels: { app: "db" } } }, { namespace: "default" })
      yield* api.patch(ConfigMaps, "x", "merge", { metadata: { labels: { app: "web" } } }, { namespace: "default" })
      yield* api.patch(ConfigMaps, "x", "merge", { data: { v: "9" } }, { namespace: "default" })
      const events = yield* collect(api.watch(ConfigMaps, { namespace: "default", labelSelector: "app=web", resourceVersion: rv }), 3)
      expect(summary(events)).toEqual(["DELETED x", "ADDED x", "MODIFIED x"])
      expect(events[0]!.object.metadata.labels).toEqual({ app: "web" })
    }).pipe(layer()))

  it.effect("single-object watch via fieldSelector=metadata.name", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const first = yield* api.create(ConfigMaps, cm("one"), { namespace: "default" })
      yield* api.create(ConfigMaps, cm("two"), { namespace: "default" })
      yield* api.patch(ConfigMaps, "two", "merge", { data: { v: "2" } }, { namespace: "default" })
      yield* api.patch(ConfigMaps, "one", "merge", { data: { v: "2" } }, { namespace: "default" })
      const events = yield* collect(
        api.watch(ConfigMaps, { namespace: "default", fieldSelector: "metadata.name=one", resourceVersion: first.object.metadata.resourceVersion }),
        1
      )
      expect(summary(events)).toEqual(["MODIFIED one"])
    }).pipe(layer()))

  it.effect("watch from a compacted rv: one in-stream 410 ERROR, then the stream ends", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const admin = yield* ServerAdmin
      const first = yield* api.create(Leases, { metadata: { name: "l" }, spec: { leaseDurationSeconds: 10 } }, { namespace: "default" })
      yield* api.create(Leases, { metadata: { name: "m" }, spec: { leaseDurationSeconds: 10 } }, { namespace: "default" })
      const compacted = yield* admin.compact
      const asked = Number(first.object.metadata.resourceVersion) - 1
      const events = yield* Effect.map(Stream.runCollect(api.watch(Leases, { namespace: "default", resourceVersion: String(asked) })), Chunk.toArray)
      expect(events).toEqual([
        {
          type: "ERROR",
          object: {
            kind: "Status",
            apiVersion: "v1",
            metadata: {},
            status: "Failure",
            message: `too old resource version: ${asked} (${compacted})`,
            reason: "Expired",
            code: 410
          }
        }
      ])
      // Events have no watch cache: the storage text.
      const ev = yield* Effect.map(Stream.runCollect(api.watch(Events, { namespace: "default", resourceVersion: "1" })), Chunk.toArray)
      expect(ev[0]!.object).toMatchObject({ message: "The resourceVersion for the provided watch is too old.", code: 410 })
    }).pipe(layer()))

  it.effect("history window on the Clock: continue tokens expire with 410 and a fresh rv:-1 token", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      for (const n of ["a", "b", "c"]) yield* api.create(ConfigMaps, cm(n), { namespace: "default" })
      const page = yield* api.list(ConfigMaps, { namespace: "default", limit: 1 })
      // The page's revision is superseded by the next write; 6 minutes later it has left the 5-minute window.
      yield* api.create(ConfigMaps, cm("d"), { namespace: "default" })
      const stillValid = yield* api.list(ConfigMaps, { namespace: "default", limit: 1, continue: page.metadata.continue })
      expect(stillValid.items.map((i) => i.metadata.name)).toEqual(["b"])
      yield* TestClock.adjust("6 minutes")
      const err = yield* serverAnswer(api.list(ConfigMaps, { namespace: "default", limit: 1, continue: page.metadata.continue }))
      expect(err.code).toBe(410)
      expect(err.reason).toBe("Expired")
      expect(err.message).toBe(
        "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
      )
      const fresh = JSON.parse(Buffer.from(err.status.metadata.continue!, "base64url").toString())
      expect(fresh).toEqual({ v: "meta.platform/v1", rv: -1, start: "a\u0000" })
      const rest = yield* api.list(ConfigMaps, { namespace: "default", limit: 10, continue: err.status.metadata.continue })
      expect(rest.items.map((i) => i.metadata.name)).toEqual(["b", "c", "d"])
    }).pipe(layer()))

  it.effect("a too-large resource version waits 3 s on the Clock, then 504 with retryAfterSeconds 1", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const list = yield* api.list(ConfigMaps)
      const future = String(Number(list.metadata.resourceVersion) + 100)
      const fiber = yield* Effect.fork(serverAnswer(api.get(ConfigMaps, "x", { namespace: "default", resourceVersion: future })))
      yield* waitForClockSleepers()
      yield* TestClock.adjust("3100 millis")
      const err = yield* Fiber.join(fiber)
      expect(err.status).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: `Timeout: Too large resource version: ${future}, current: ${list.metadata.resourceVersion}`,
        reason: "Timeout",
        details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
        code: 504
      })
    }).pipe(layer()))

  it.effect("bookmarks on the virtual clock: every interval and 2 s before the deadline, then a clean end", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const created = yield* api.create(Leases, { metadata: { name: "b" }, spec: { leaseDurationSeconds: 10 } }, { namespace: "default" })
      const fiber = yield* Effect.fork(
        Effect.map(
          Stream.runCollect(api.watch(Leases, { namespace: "default", resourceVersion: created.object.metadata.resourceVersion, allowWatchBookmarks: true, timeoutSeconds: 150 })),
          Chunk.toArray
        )
      )
      yield* waitForClockSleepers()
      yield* TestClock.adjust("60 seconds")
      yield* waitForClockSleepers()
      yield* TestClock.adjust("60 seconds")
      yield* waitForClockSleepers()
      yield* TestClock.adjust("28 seconds")
      yield* waitForClockSleepers()
      yield* TestClock.adjust("2 seconds")
      const events = yield* Fiber.join(fiber)
      expect(events.map((e) => e.type)).toEqual(["BOOKMARK", "BOOKMARK", "BOOKMARK"])
      expect(events[0]!.object).toEqual({
        kind: "Lease",
        apiVersion: "coordination.platform/v1",
        metadata: { resourceVersion: created.object.metadata.resourceVersion, creationTimestamp: null },
        spec: {}
      })
    }).pipe(layer()))

  it.effect("resourceVersionMatch misuse: 422 ListOptions with every problem", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const noRv = yield* serverAnswer(api.list(Pods, { resourceVersionMatch: "Exact" }))
      expect(noRv.status).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'ListOptions.meta.platform "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
        reason: "Invalid",
        details: {
          group: "meta.platform",
          kind: "ListOptions",
          causes: [{ reason: "FieldValueForbidden", message: "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided", field: "resourceVersionMatch" }]
        },
        code: 422
      })
      const exactZero = yield* serverAnswer(api.list(Pods, { resourceVersion: "0", resourceVersionMatch: "Exact" }))
      expect(exactZero.message).toBe('ListOptions.meta.platform "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"')
      const foo = yield* serverAnswer(api.list(Pods, { resourceVersion: "1", resourceVersionMatch: "foo" }))
      expect(foo.message).toBe('ListOptions.meta.platform "" is invalid: resourceVersionMatch: Unsupported value: "foo": supported values: "Exact", "NotOlderThan", ""')
      const several = yield* serverAnswer(api.list(Pods, { resourceVersionMatch: "foo", continue: "x" }))
      expect(several.message).toBe(
        'ListOptions.meta.platform "" is invalid: [resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided, resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided, resourceVersionMatch: Unsupported value: "foo": supported values: "Exact", "NotOlderThan", ""]'
      )
      const watchMatch = yield* serverAnswer(Stream.runDrain(api.watch(Pods, { resourceVersion: "1", resourceVersionMatch: "NotOlderThan" })))
      expect(watchMatch.message).toBe('ListOptions.meta.platform "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided')
    }).pipe(layer()))

  it.effect("list table: Exact at an old revision shows that state; rv=0 ignores limit; compacted Exact is 410", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const admin = yield* ServerAdmin
      yield* api.create(ConfigMaps, cm("a"), { namespace: "default" })
      const before = yield* api.list(ConfigMaps, { namespace: "default" })
      yield* api.create(ConfigMaps, cm("b"), { namespace: "default" })
      yield* api.delete(ConfigMaps, "a", { namespace: "default" })
      const exact = yield* api.list(ConfigMaps, { namespace: "default", resourceVersion: before.metadata.resourceVersion, resourceVersionMatch: "Exact" })
      expect(exact.metadata.resourceVersion).toBe(before.metadata.resourceVersion)
      expect(exact.items.map((i) => i.metadata.name)).toEqual(["a"])
      const legacy = yield* api.list(ConfigMaps, { namespace: "default", resourceVersion: before.metadata.resourceVersion, limit: 5 })
      expect(legacy.items.map((i) => i.metadata.name)).toEqual(["a"])
      const any = yield* api.list(ConfigMaps, { namespace: "default", resourceVersion: "0", limit: 1 })
      expect(any.items.map((i) => i.metadata.name)).toEqual(["b"])
      expect(any.metadata.continue).toBeUndefined()
      const notOlder = yield* api.list(ConfigMaps, { namespace: "default", resourceVersion: before.metadata.resourceVersion })
      expect(notOlder.items.map((i) => i.metadata.name)).toEqual(["b"])
      expect(Number(notOlder.metadata.resourceVersion)).toBeGreaterThan(Number(before.metadata.resourceVersion))
      yield* admin.compact
      const gone = yield* serverAnswer(api.list(ConfigMaps, { namespace: "default", resourceVersion: before.metadata.resourceVersion, resourceVersionMatch: "Exact" }))
      expect([gone.code, gone.reason, gone.message]).toEqual([410, "Expired", "The resourceVersion for the provided list is too old."])
      const future = yield* serverAnswer(api.list(ConfigMaps, { namespace: "default", resourceVersion: "999999", resourceVersionMatch: "NotOlderThan", limit: 5 }))
      expect(future.code).toBe(504)
      expect(future.status.details?.retryAfterSeconds).toBeUndefined()
    }).pipe(layer()))

  it.effect("finalizers: two-phase deletion, repeat DELETE is a no-op, last finalizer removes", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const created = yield* api.create(ConfigMaps, { metadata: { name: "f", finalizers: ["example.com/hold"] } }, { namespace: "default" })
      const rv0 = created.object.metadata.resourceVersion
      const first = yield* api.delete(ConfigMaps, "f", { namespace: "default" })
      expect(first.code).toBe(200)
      expect(first.object!.metadata.deletionTimestamp).toBe("1970-01-01T00:00:00Z")
      expect(first.object!.metadata.deletionGracePeriodSeconds).toBe(0)
      const second = yield* api.delete(ConfigMaps, "f", { namespace: "default" })
      expect(second.object!.metadata.resourceVersion).toBe(first.object!.metadata.resourceVersion)
      const adding = yield* serverAnswer(
        api.patch(ConfigMaps, "f", "merge", { metadata: { finalizers: ["example.com/hold", "example.com/x"] } }, { namespace: "default" })
      )
      expect(adding.code).toBe(422)
      expect(adding.message).toBe(
        'ConfigMap "f" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"example.com/x"}'
      )
      const removed = yield* api.patch(ConfigMaps, "f", "merge", { metadata: { finalizers: null } }, { namespace: "default" })
      expect(removed.code).toBe(200)
      const gone = yield* serverAnswer(api.get(ConfigMaps, "f", { namespace: "default" }))
      expect(gone.code).toBe(404)
      const events = yield* collect(api.watch(ConfigMaps, { namespace: "default", resourceVersion: rv0 }), 2)
      expect(summary(events)).toEqual(["MODIFIED f", "DELETED f"])
    }).pipe(layer()))

  it.effect("propagationPolicy: Orphan/Foreground finalizers are collected; bad values are 422", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const owner = yield* api.create(ConfigMaps, cm("owner"), { namespace: "default" })
      const ref = { apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.object.metadata.uid! }
      yield* api.create(ConfigMaps, { metadata: { name: "dep", ownerReferences: [ref] } }, { namespace: "default" })
      const fg = yield* api.delete(ConfigMaps, "owner", { namespace: "default", propagationPolicy: "Foreground" })
      expect(fg.object!.metadata.finalizers).toEqual(["foregroundDeletion"])
      const left = yield* api.list(ConfigMaps, { namespace: "default" })
      expect(left.items.map((i) => i.metadata.name)).toEqual([])
      const bad = yield* serverAnswer(api.delete(ConfigMaps, "x", { namespace: "default", propagationPolicy: "Sideways" }))
      expect(bad.message).toBe(
        'DeleteOptions.meta.platform "" is invalid: propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan", "nil"'
      )
    }).pipe(layer()))
})

describe("slow watchers", () => {
  it.effect("a watcher that falls behind its buffer is closed; memory stays bounded", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const api = yield* ApiClient
      const events = yield* Effect.scoped(
        Effect.gen(function* () {
          const stream = yield* server.watch(ConfigMaps, { namespace: "default", resourceVersion: String(server.store.revision) })
          expect(server.hub.size).toBe(1)
          for (let i = 0; i < 50; i++) yield* api.create(ConfigMaps, cm(`s${i}`), { namespace: "default" })
          expect(server.hub.size).toBe(0)
          return yield* Effect.map(Stream.runCollect(stream), Chunk.toArray)
        })
      )
      expect(events).toHaveLength(10)
      expect(summary(events).at(-1)).toBe("ADDED s9")
    }).pipe(Effect.provide(clientLayer("in-process", { watchBufferSize: 10 }))))

  it.effect("pullWatch hands over what watch does, everything waiting in one batch; a dropped watcher's pull ends", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const api = yield* ApiClient
      const names = (batch: Chunk.Chunk<WatchEvent>) => Chunk.toArray(batch).map((e) => `${e.type} ${e.object.metadata.name}`)
      yield* Effect.scoped(
        Effect.gen(function* () {
          const pull = yield* server.pullWatch(ConfigMaps, { namespace: "default", resourceVersion: String(server.store.revision) })
          for (let i = 0; i < 3; i++) yield* api.create(ConfigMaps, cm(`p${i}`), { namespace: "default" })
          yield* api.delete(ConfigMaps, "p1", { namespace: "default" })
          expect(names(yield* pull)).toEqual(["ADDED p0", "ADDED p1", "ADDED p2", "DELETED p1"])
          for (let i = 3; i < 20; i++) yield* api.create(ConfigMaps, cm(`p${i}`), { namespace: "default" })
          expect(server.hub.size).toBe(0)
          expect(names(yield* pull)).toEqual(Array.from({ length: 10 }, (_, i) => `ADDED p${i + 3}`))
          expect(yield* serverAnswer(pull)).toEqual(Option.none())
        })
      )
    }).pipe(Effect.provide(clientLayer("in-process", { watchBufferSize: 10 }))))

  it.effect("the starting state and replayed history are not limited by the buffer: only live events are", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const api = yield* ApiClient
      const start = String(server.store.revision)
      for (let i = 0; i < 30; i++) yield* api.create(ConfigMaps, cm(`h${i}`), { namespace: "default" })
      const names = (events: ReadonlyArray<WatchEvent>) => events.map((e) => e.object.metadata.name)
      const expected = Array.from({ length: 30 }, (_, i) => `h${i}`)
      const collectAll = (resourceVersion: string | undefined) =>
        Effect.scoped(
          Effect.gen(function* () {
            const stream = yield* server.watch(ConfigMaps, { namespace: "default", ...(resourceVersion ? { resourceVersion } : {}) })
            expect(server.hub.size).toBe(1)
            return yield* collect(stream, 30)
          })
        )
      const replayed = yield* collectAll(start)
      expect(replayed.map((e) => e.type)).toEqual(Array(30).fill("ADDED"))
      expect(names(replayed)).toEqual(expected)
      // rv unset: the synthetic ADDED events of the current state, in key order (h0, h1, h10, …)
      expect(names(yield* collectAll(undefined))).toEqual([...expected].sort())
    }).pipe(Effect.provide(clientLayer("in-process", { watchBufferSize: 10 }))))
})

/** Lets forked fibers reach their sleeps before the test clock moves. */
const waitForClockSleepers = () => Effect.promise(() => new Promise((r) => setTimeout(r, 50)))

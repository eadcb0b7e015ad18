/**
 * WatchList (issue 40; KEP-3157, upstream `cacher.go` with `sendInitialEvents`): validation with upstream's exact
 * messages (the table of `apis/meta/internalversion/validation/validation_test.go`), and the stream — the state as
 * ADDED events, one BOOKMARK annotated `k8s.io/initial-events-end: "true"`, then live events — over every transport.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Fiber, Stream } from "effect"
import { parseFeatureGatesFlag, defaultFeatureGates } from "../../src/api/FeatureGates.js"
import type { WatchEvent } from "../../src/api/Object.js"
import { ConfigMaps, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ServerAdmin } from "../../src/client/ServerAdmin.js"
import { validateListOptions, type ReadOptions } from "../../simulator/apiserver/ResourceVersion.js"
import { clientLayer, transports } from "../support/transports.js"

const messageOf = (opts: ReadOptions & { watch?: boolean }, gate: boolean) => validateListOptions(opts, opts.watch === true, gate)?.message

const invalid = (...errors: ReadonlyArray<string>) =>
  `ListOptions.meta.platform "" is invalid: ${errors.length === 1 ? errors[0] : `[${errors.join(", ")}]`}`

describe("ListOptions validation with WatchList (upstream's table)", () => {
  const notOlder = "NotOlderThan"
  it("valid: watch default, sendInitialEvents on/off with NotOlderThan (gate on), without bookmarks, lists as before", () => {
    expect(messageOf({}, false)).toBeUndefined()
    expect(messageOf({ watch: true }, false)).toBeUndefined()
    expect(messageOf({ watch: true, sendInitialEvents: true, resourceVersionMatch: notOlder }, true)).toBeUndefined()
    expect(messageOf({ watch: true, sendInitialEvents: false, resourceVersionMatch: notOlder }, true)).toBeUndefined()
    expect(messageOf({ resourceVersion: "1", resourceVersionMatch: "Exact" }, false)).toBeUndefined()
    expect(messageOf({ resourceVersion: "0", resourceVersionMatch: notOlder }, false)).toBeUndefined()
  })

  it("invalid combinations: every message, in upstream's order", () => {
    const gateOff = "sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"
    const needsNotOlder = "resourceVersionMatch: Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"
    expect(messageOf({ sendInitialEvents: true }, true)).toBe(invalid("sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list"))
    expect(messageOf({ watch: true, resourceVersionMatch: notOlder }, true)).toBe(
      invalid("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")
    )
    expect(messageOf({ watch: true, sendInitialEvents: true }, false)).toBe(invalid(needsNotOlder, gateOff))
    expect(messageOf({ watch: true, sendInitialEvents: false }, false)).toBe(invalid(needsNotOlder, gateOff))
    expect(messageOf({ watch: true, sendInitialEvents: true, resourceVersionMatch: "Exact" }, true)).toBe(
      invalid(needsNotOlder, 'resourceVersionMatch: Unsupported value: "Exact": supported values: "NotOlderThan"')
    )
    expect(messageOf({ watch: true, sendInitialEvents: true, resourceVersionMatch: "incorrect" }, true)).toBe(
      invalid(needsNotOlder, 'resourceVersionMatch: Unsupported value: "incorrect": supported values: "NotOlderThan"')
    )
    expect(messageOf({ watch: true, sendInitialEvents: true, resourceVersionMatch: notOlder }, false)).toBe(invalid(gateOff))
    expect(messageOf({ resourceVersion: "0", resourceVersionMatch: "Exact" }, false)).toBe(
      invalid('resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"')
    )
  })
})

const watchListOn = { featureGates: Either.getOrThrow(parseFeatureGatesFlag(defaultFeatureGates, "WatchList=true")) }
const cm = (name: string) => ({ metadata: { name }, data: { v: "1" } })
const collect = (stream: Stream.Stream<WatchEvent, unknown>, n: number) => Effect.map(Stream.runCollect(Stream.take(stream, n)), Chunk.toArray)
const summary = (events: ReadonlyArray<WatchEvent>) =>
  events.map((e) =>
    e.type === "BOOKMARK"
      ? `BOOKMARK ${e.object.metadata.resourceVersion} ${JSON.stringify(e.object.metadata.annotations ?? {})}`
      : `${e.type} ${e.object.metadata.name}`
  )
const settle = () => Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
const streaming = { namespace: "default", sendInitialEvents: true, resourceVersionMatch: "NotOlderThan", allowWatchBookmarks: true } as const

describe.each(transports)("WatchList over %s", (transport) => {
  it.effect("the state as ADDED, the initial-events-end bookmark at the state's revision, then live events", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      for (const name of ["b", "a", "c"]) yield* api.create(ConfigMaps, cm(name), { namespace: "default" })
      const list = yield* api.list(ConfigMaps, { namespace: "default" })
      const fiber = yield* Effect.fork(collect(api.watch(ConfigMaps, streaming), 6))
      yield* settle()
      yield* api.create(ConfigMaps, cm("d"), { namespace: "default" })
      yield* api.delete(ConfigMaps, "a", { namespace: "default" })
      const events = yield* Fiber.join(fiber)
      expect(summary(events)).toEqual([
        "ADDED a",
        "ADDED b",
        "ADDED c",
        `BOOKMARK ${list.metadata.resourceVersion} {"k8s.io/initial-events-end":"true"}`,
        "ADDED d",
        "DELETED a"
      ])
      expect(events[3]!.object.kind).toBe("ConfigMap")
    }).pipe(Effect.provide(clientLayer(transport, watchListOn))))

  it.effect("rv N is 'not older than N': a compacted N is no 410, the state is sent; without bookmarks no end bookmark", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const admin = yield* ServerAdmin
      const first = yield* api.create(ConfigMaps, cm("a"), { namespace: "default" })
      yield* api.create(ConfigMaps, cm("b"), { namespace: "default" })
      yield* admin.compact
      const events = yield* collect(
        api.watch(ConfigMaps, { ...streaming, allowWatchBookmarks: false, resourceVersion: first.object.metadata.resourceVersion }),
        2
      )
      expect(summary(events)).toEqual(["ADDED a", "ADDED b"])
      const fiber = yield* Effect.fork(collect(api.watch(ConfigMaps, { ...streaming, allowWatchBookmarks: false }), 3))
      yield* settle()
      yield* api.create(ConfigMaps, cm("c"), { namespace: "default" })
      expect(summary(yield* Fiber.join(fiber))).toEqual(["ADDED a", "ADDED b", "ADDED c"])
    }).pipe(Effect.provide(clientLayer(transport, watchListOn))))

  it.effect("sendInitialEvents=false with rv unset starts now: no state, no bookmark, only what happens next", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      yield* api.create(ConfigMaps, cm("before"), { namespace: "default" })
      const fiber = yield* Effect.fork(collect(api.watch(ConfigMaps, { ...streaming, sendInitialEvents: false }), 1))
      yield* settle()
      yield* api.create(ConfigMaps, cm("after"), { namespace: "default" })
      expect(summary(yield* Fiber.join(fiber))).toEqual(["ADDED after"])
    }).pipe(Effect.provide(clientLayer(transport, watchListOn))))

  it.effect("a kind with status (pods) streams the same way; a list naming sendInitialEvents is 422", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      yield* api.create(Pods, { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx" }] } }, { namespace: "default" })
      const events = yield* collect(api.watch(Pods, streaming), 2)
      expect(events.map((e) => e.type)).toEqual(["ADDED", "BOOKMARK"])
      expect(events[1]!.object.metadata.annotations).toEqual({ "k8s.io/initial-events-end": "true" })
      const listed = yield* Effect.flip(api.list(Pods, { namespace: "default", sendInitialEvents: true }))
      expect(listed).toMatchObject({ code: 422, message: invalid("sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list") })
    }).pipe(Effect.provide(clientLayer(transport, watchListOn))))

  it.effect("a continue token: with resourceVersionMatch a 422 (validateWatchOptions), on a plain watch ignored as upstream's Store.Watch does", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const refused = yield* Effect.flip(Stream.runDrain(api.watch(ConfigMaps, { ...streaming, continue: "abc" })))
      expect(refused).toMatchObject({ code: 422, message: invalid("resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided") })
      const fiber = yield* Effect.fork(collect(api.watch(ConfigMaps, { namespace: "default", continue: "abc" }), 1))
      yield* settle()
      yield* api.create(ConfigMaps, cm("after"), { namespace: "default" })
      expect(summary(yield* Fiber.join(fiber))).toEqual(["ADDED after"])
    }).pipe(Effect.provide(clientLayer(transport, watchListOn))))

  it.effect("without the gate: 422 naming the gate, as upstream", () =>
    Effect.gen(function* () {
      const api = yield* ApiClient
      const refused = yield* Effect.flip(Stream.runDrain(api.watch(ConfigMaps, streaming)))
      expect(refused).toMatchObject({
        code: 422,
        message: invalid("sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled")
      })
    }).pipe(Effect.provide(clientLayer(transport))))
})

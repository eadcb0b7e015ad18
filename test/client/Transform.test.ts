/** `transform`: a decorator sees every verb and both watch paths, and nothing goes around it. */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Option, Stream } from "effect"
import type { KObject, WatchEvent } from "../../src/api/Object.js"
import { ConfigMaps } from "../../src/api/Resources.js"
import * as Status from "../../src/api/Status.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { hasImmediateView, hasVariants, hasWatchPulls, isMeasuring, type InProcessClientService } from "../../src/client/Capabilities.js"
import { transform, type Call } from "../../src/client/Transform.js"
import { openWatchPull, readWatch } from "../../src/client/WatchPull.js"
import { serverAnswer } from "../support/serverAnswer.js"

const object: KObject = { metadata: { name: "a", namespace: "default" } }
const event = (name: string): WatchEvent => ({ type: "ADDED", object: { metadata: { name } } })

/** A client of every capability, each verb answering its own name. */
const everything = (): InProcessClientService & Record<string, unknown> => {
  const verbs: ApiClientService = {
    get: () => Effect.succeed(object),
    list: () => Effect.succeed({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "1" }, items: [] }),
    create: () => Effect.succeed({ code: 201, object, warnings: [] }),
    update: () => Effect.succeed({ code: 200, object, warnings: [] }),
    patch: () => Effect.succeed({ code: 200, object, warnings: [] }),
    delete: () => Effect.succeed({ code: 200, object }),
    deleteCollection: () => Effect.succeed({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "1" }, items: [] }),
    watch: () => Stream.make(event("streamed"))
  }
  const pulled = Chunk.of(event("pulled"))
  let given = false
  return {
    ...verbs,
    pullWatch: () => Effect.succeed(Effect.suspend(() => (given ? Effect.fail(Option.none()) : ((given = true), Effect.succeed(pulled))))),
    at: () => ({ ...verbs, pullWatch: () => Effect.die("not here") }),
    measure: () => Effect.die("around the wrapper"),
    directMeasure: () => Effect.die("around the wrapper"),
    variant: () => Effect.die("around the wrapper")
  }
}

describe("transform", () => {
  it.effect("every verb goes through the decorator's request function, with its verb, resource, options and body", () =>
    Effect.gen(function* () {
      const seen: Array<Call> = []
      const client = transform(everything(), { request: (call, send) => Effect.zipRight(Effect.sync(() => seen.push(call)), send()) })
      const opts = { namespace: "default" }
      yield* client.get(ConfigMaps, "a", opts)
      yield* client.list(ConfigMaps, opts)
      yield* client.create(ConfigMaps, object, opts)
      yield* client.update(ConfigMaps, object, opts)
      yield* client.patch(ConfigMaps, "a", "merge", { data: {} }, opts)
      yield* client.delete(ConfigMaps, "a", opts)
      yield* client.deleteCollection(ConfigMaps, opts)
      expect(seen.map((c) => c.verb)).toEqual(["get", "list", "create", "update", "patch", "delete", "deletecollection"])
      expect(seen.every((c) => c.resource === ConfigMaps && c.opts === opts)).toBe(true)
      expect(seen.map((c) => c.body)).toEqual([undefined, undefined, object, object, { data: {} }, undefined, undefined])
    })
  )

  it.effect("a refusal before the watch opens and the events' mapping apply to the stream and to the pulls alike", () =>
    Effect.gen(function* () {
      const opened: Array<string> = []
      const renamed = (e: WatchEvent): WatchEvent => ({ ...e, object: { metadata: { name: `seen-${e.object.metadata.name}` } } })
      const client = transform(everything(), { request: (_call, send) => send(), beforeWatch: (call) => Effect.sync(() => void opened.push(call.verb)), event: renamed })
      expect(hasWatchPulls(client)).toBe(true)
      const streamed = yield* Stream.runCollect(client.watch(ConfigMaps))
      expect(Chunk.toArray(streamed).map((e) => e.object.metadata.name)).toEqual(["seen-streamed"])
      const pulled: Array<string> = []
      yield* Effect.scoped(Effect.flatMap(openWatchPull(client, ConfigMaps), (pull) => readWatch(pull, (b) => Effect.sync(() => (pulled.push(...Chunk.toArray(b).map((e) => e.object.metadata.name ?? "")), true)))))
      expect(pulled).toEqual(["seen-pulled"])
      expect(opened).toEqual(["watch", "watch"])

      const refused = transform(everything(), { request: (_call, send) => send(), beforeWatch: () => Effect.fail(Status.forbidden(undefined, "", "no")) })
      expect((yield* serverAnswer(Stream.runCollect(refused.watch(ConfigMaps)))).code).toBe(403)
      expect((yield* serverAnswer(Effect.scoped(openWatchPull(refused, ConfigMaps)))).code).toBe(403)
    })
  )

  it("keeps no capability that would go around it: no immediate view, no measuring, no variants", () => {
    const client = transform(everything(), { request: (_call, send) => send() })
    expect([hasImmediateView(client), isMeasuring(client), hasVariants(client)]).toEqual([false, false, false])
    expect(Object.keys(client).sort()).toEqual(["create", "delete", "deleteCollection", "get", "list", "patch", "pullWatch", "update", "watch"])
    // a decorator of the whole stream: its readers read the stream, so there are no pulls to go around it
    const streamed = transform(everything(), { request: (_call, send) => send(), watchStream: (_call, stream) => stream })
    expect(hasWatchPulls(streamed)).toBe(false)
  })
})

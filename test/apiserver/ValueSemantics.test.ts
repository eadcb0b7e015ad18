/**
 * What crosses the in-process client can never change the store (docs/architecture.md "Value semantics"): bodies
 * are copied on the way in; results are shared and read-only, which the frozen test client enforces.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Either, Stream } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { ConfigMaps, Deployments } from "../../src/api/Resources.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { copyOf, inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { frozenClient } from "../support/frozenClient.js"

const inDefault = { namespace: "default" }
const configMap = (name: string) => ({ metadata: { name, labels: { app: "a" } }, data: { k: "1" } })

describe("value semantics of the in-process client", () => {
  it.effect("changing a create, update or patch body after the call changes nothing stored", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const client = inProcessClient(server)
      const body = configMap("a")
      const created = yield* client.create(ConfigMaps, body, inDefault)
      body.data.k = "changed"
      body.metadata.labels.app = "changed"
      const update = { ...configMap("a"), data: { k: "2" } }
      yield* client.update(ConfigMaps, update, inDefault)
      update.data.k = "changed"
      const patch = { metadata: { annotations: { nested: "3" } } }
      yield* client.patch(ConfigMaps, "a", "merge", patch, inDefault)
      patch.metadata.annotations.nested = "changed"
      const stored = yield* client.get(ConfigMaps, "a", inDefault)
      expect(stored.data).toEqual({ k: "2" })
      expect(stored.metadata.annotations).toEqual({ nested: "3" })
      expect(stored.metadata.labels).toEqual({ app: "a" })
      expect(Number(stored.metadata.resourceVersion)).toBe(Number(created.object.metadata.resourceVersion) + 2)
    }).pipe(Effect.provide(ApiServer.layer()))
  )

  it.effect("get, list, watch and write results are frozen by the test client: changing one throws, the store stays", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const client = frozenClient(inProcessClient(server))
      const created = yield* client.create(ConfigMaps, configMap("a"), inDefault)
      const got = yield* client.get(ConfigMaps, "a", inDefault)
      const listed = yield* client.list(ConfigMaps, inDefault)
      const events = yield* Stream.runCollect(Stream.take(client.watch(ConfigMaps, inDefault), 1)).pipe(Effect.scoped)
      const attempts = [
        () => ((created.object.data as Record<string, string>).k = "x"),
        () => ((got.data as Record<string, string>).k = "x"),
        () => ((got.metadata.labels as Record<string, string>).app = "x"),
        () => ((listed.items[0]!.data as Record<string, string>).k = "x"),
        () => ((Chunk.unsafeHead(events).object.data as Record<string, string>).k = "x")
      ]
      for (const attempt of attempts) expect(attempt).toThrow(TypeError)
      expect(server.store.get(ConfigMaps, "default/a")!.data).toEqual({ k: "1" })
    }).pipe(Effect.provide(ApiServer.layer()))
  )

  it.effect("the immediate view (at) is frozen by the test client too, and stays immediate", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const now = frozenClient(inProcessClient(server)).at!(0)!
      const body = configMap("a")
      const created = now.create(ConfigMaps, body, inDefault)
      expect(Either.isEither(created)).toBe(true)
      expect(() => (body.data.k = "x")).toThrow(TypeError)
      const got = Either.getOrThrow(now.get(ConfigMaps, "a", inDefault) as unknown as Either.Either<KObject, unknown>)
      expect(() => ((got.data as Record<string, string>).k = "x")).toThrow(TypeError)
    }).pipe(Effect.provide(ApiServer.layer()))
  )

  it.effect("a Deployment sent back as read, with a new spec: the generation goes up in the new version only", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const client = frozenClient(inProcessClient(server))
      const deployment = { metadata: { name: "web" }, spec: { replicas: 1, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "c", image: "i" }] } } } }
      yield* client.create(Deployments, deployment, inDefault)
      const read = yield* client.get(Deployments, "web", inDefault)
      // The read object's own metadata goes back unchanged: the server must not write the new generation into it.
      const updated = yield* client.update(Deployments, { ...read, spec: { ...(read.spec as object), replicas: 3 } }, inDefault)
      expect(updated.object.metadata.generation).toBe(2)
      expect(read.metadata.generation).toBe(1)
    }).pipe(Effect.provide(ApiServer.layer()))
  )

  it("copyOf copies deeply and keeps an own __proto__ key as data", () => {
    const source = JSON.parse("{\"a\":{\"b\":[1,{\"c\":2}]},\"__proto__\":{\"polluted\":true}}") as Record<string, unknown>
    const copy = copyOf(source) as Record<string, unknown>
    expect(copy).toEqual(source)
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype)
    expect(Object.hasOwn(copy, "__proto__")).toBe(true)
    expect(copy.a).not.toBe(source.a)
    expect((copy.a as { b: unknown[] }).b[1]).not.toBe((source.a as { b: unknown[] }).b[1])
  })
})

/** The in-process client's immediate view (`at`): the same answers as its effects, given at once, or none while paused. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { ConfigMaps } from "../../src/api/Resources.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serverAnswer } from "../support/serverAnswer.js"

const configMap = (name: string, data: Record<string, string>) => ({ metadata: { name, namespace: "default" }, data })
const inDefault = { namespace: "default" }

/** The answer an immediate verb gave, which must be an Either (a verb that has to wait gives an effect). */
const answer = <A, E>(result: Effect.Effect<A, E>): Either.Either<A, E> => {
  expect(Either.isEither(result)).toBe(true)
  return result as unknown as Either.Either<A, E>
}

describe("inProcessClient(server).at", () => {
  it.effect("answers create, get, update and patch at once, as Eithers equal to the effects' answers", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const client = inProcessClient(server)
      const now = client.at!(0)!
      expect(Either.getOrThrow(answer(now.create(ConfigMaps, configMap("a", { k: "1" }), inDefault))).code).toBe(201)
      expect(Either.getOrThrow(answer(now.get(ConfigMaps, "a", inDefault)))).toEqual(yield* client.get(ConfigMaps, "a", inDefault))

      // A stale resourceVersion: the same 409 Conflict either way.
      const stale = { ...configMap("a", { k: "2" }), metadata: { name: "a", namespace: "default", resourceVersion: "1" } }
      const conflict = answer(now.update(ConfigMaps, stale, inDefault))
      const viaEffect = yield* serverAnswer(client.update(ConfigMaps, stale, inDefault))
      expect(Either.isLeft(conflict) && conflict.left._tag === "ApiError" && conflict.left.status).toEqual(viaEffect.status)
      expect(viaEffect.status.code).toBe(409)

      const patched = answer(now.patch(ConfigMaps, "a", "merge", { data: { k: "3" } }, inDefault))
      expect(Either.getOrThrow(patched).object.data).toEqual({ k: "3" })
      expect((yield* client.get(ConfigMaps, "a", inDefault)).data).toEqual({ k: "3" })
    }).pipe(Effect.provide(ApiServer.layer()))
  )

  it.effect("leaves a read that must wait for a newer revision an effect", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const client = inProcessClient(server)
      const future = String(server.store.revision + 5)
      const read = client.at!(0)!.get(ConfigMaps, "missing", { namespace: "default", resourceVersion: future })
      expect(Either.isEither(read)).toBe(false)
    }).pipe(Effect.provide(ApiServer.layer()))
  )

  it.effect("has no immediate view while the server is paused", () =>
    Effect.gen(function* () {
      const server = yield* ApiServer
      const client = inProcessClient(server)
      expect(client.at!(0)).toBeDefined()
      yield* server.pause(1_000)
      expect(client.at!(0)).toBeUndefined()
    }).pipe(Effect.provide(ApiServer.layer()))
  )
})

/** The HTTP client's load-generator facets: `measure` (status and bytes, no decoding) and `variant` (encoding, bytes). */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Either, Layer } from "effect"
import { request } from "undici"
import { ConfigMaps } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import type { TrafficCounter } from "../../src/client/HttpTransport.js"
import { httpServer } from "../support/transports.js"

const withClient = <A, E>(f: (api: ApiClient["Type"], base: string, traffic: TrafficCounter) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const base = yield* httpServer()
      const traffic: TrafficCounter = { bytesIn: 0, bytesOut: 0 }
      const api = Context.get(yield* Layer.build(ApiClient.layerHttp({ baseUrl: base, traffic })), ApiClient)
      return yield* f(api, base, traffic)
    })
  )

const rawGet = (url: string) =>
  Effect.promise(async () => {
    const res = await request(url)
    return Buffer.from(await res.body.arrayBuffer())
  })

describe("HTTP client measure and variant", () => {
  it.live("measure: a GET's status and body size without decoding; a missing object fails with its Status", () =>
    withClient((api, base) =>
      Effect.gen(function* () {
        yield* api.create(ConfigMaps, { metadata: { name: "m" }, data: { k: "v".repeat(100) } }, { namespace: "default" })
        const body = yield* rawGet(`${base}/api/v1/namespaces/default/configmaps/m`)
        const got = yield* api.measure!("GET", ConfigMaps, "m", { namespace: "default" })
        expect(got).toEqual({ code: 200, bytesIn: body.length, bytesOut: 0 })
        const missing = yield* Effect.either(api.measure!("GET", ConfigMaps, "nope", { namespace: "default" }))
        expect(Either.isLeft(missing)).toBe(true)
        const status = Either.isLeft(missing) ? missing.left.status : undefined
        expect(status?.code).toBe(404)
        expect(status?.reason).toBe("NotFound")
        expect(status?.message).toBe('configmaps "nope" not found')
        const deleted = yield* api.measure!("DELETE", ConfigMaps, "m", { namespace: "default" })
        expect(deleted.code).toBe(200)
        const after = yield* Effect.either(api.get(ConfigMaps, "m", { namespace: "default" }))
        expect(Either.isLeft(after) && after.left.status.code).toBe(404)
      })
    )
  )

  it.live("variant: protobuf answers decode to the same object; its bytes count in its own counter and the client's", () =>
    withClient((api, _base, traffic) =>
      Effect.gen(function* () {
        const created = yield* api.create(ConfigMaps, { metadata: { name: "p" }, data: { k: "v" } }, { namespace: "default" })
        const before = { ...traffic }
        const own: TrafficCounter = { bytesIn: 0, bytesOut: 0 }
        const proto = api.variant!({ encoding: "protobuf", traffic: own })
        const viaProto = yield* proto.get(ConfigMaps, "p", { namespace: "default" })
        expect(viaProto.metadata.resourceVersion).toBe(created.object.metadata.resourceVersion)
        expect(viaProto.data).toEqual({ k: "v" })
        expect(own.bytesIn).toBeGreaterThan(0)
        expect(traffic.bytesIn - before.bytesIn).toBe(own.bytesIn)
        const json: TrafficCounter = { bytesIn: 0, bytesOut: 0 }
        yield* api.variant!({ traffic: json }).get(ConfigMaps, "p", { namespace: "default" })
        // the protobuf envelope is the smaller answer for the same object
        expect(own.bytesIn).toBeLessThan(json.bytesIn)
        yield* proto.create(ConfigMaps, { metadata: { name: "q" }, data: { k: "v" } }, { namespace: "default" })
        expect(own.bytesOut).toBeGreaterThan(0)
      })
    )
  )
})

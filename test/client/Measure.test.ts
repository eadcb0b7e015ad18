/** The HTTP client's load-generator facets: `measure` (status and bytes, no decoding) and `variant` (encoding, bytes). */
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Either, Exit, Layer, Scope } from "effect"
import { request } from "undici"
import { ConfigMaps } from "../../src/api/Resources.js"
import type { ClientError } from "../../src/client/TransportError.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import type { DirectMeasure, HttpClientService } from "../../src/client/Capabilities.js"
import { isConnectionFailure } from "../../src/loadgen/ConnectionFailure.js"
import type { TrafficCounter } from "../../src/client/HttpTransport.js"
import { httpServer } from "../support/transports.js"

const withClient = <A, E>(f: (api: HttpClientService, base: string, traffic: TrafficCounter) => Effect.Effect<A, E>) =>
  Effect.scoped(
    Effect.gen(function* () {
      const base = yield* httpServer()
      const traffic: TrafficCounter = { bytesIn: 0, bytesOut: 0 }
      const api = Context.get(yield* Layer.build(ApiClient.layerHttp({ baseUrl: base, traffic })), ApiClient)
      // the HTTP layer's client: the HTTP transport, with its capabilities
      return yield* f(api as HttpClientService, base, traffic)
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
        const status = Either.isLeft(missing) && missing.left._tag === "ApiError" ? missing.left.status : undefined
        expect(status?.code).toBe(404)
        expect(status?.reason).toBe("NotFound")
        expect(status?.message).toBe('configmaps "nope" not found')
        const deleted = yield* api.measure!("DELETE", ConfigMaps, "m", { namespace: "default" })
        expect(deleted.code).toBe(200)
        const after = yield* Effect.either(api.get(ConfigMaps, "m", { namespace: "default" }))
        expect(Either.isLeft(after) && after.left._tag === "ApiError" && after.left.status.code).toBe(404)
      })
    )
  )

  it.live("directMeasure: the same request as a plain call — status, Status of a failure, bytes counted, connection errors", () =>
    withClient((api, base, traffic) =>
      Effect.gen(function* () {
        yield* api.create(ConfigMaps, { metadata: { name: "d" }, data: { k: "v".repeat(100) } }, { namespace: "default" })
        const body = yield* rawGet(`${base}/api/v1/namespaces/default/configmaps/d`)
        const get = (yield* api.directMeasure!("GET", ConfigMaps, { namespace: "default" }))!
        const call = (m: DirectMeasure, name: string) => Effect.async<ClientError | undefined>((resume) => m(name, (failure) => resume(Effect.succeed(failure))))
        const before = traffic.bytesIn
        expect(yield* call(get, "d")).toBeUndefined()
        expect(traffic.bytesIn - before).toBe(body.length)
        // the path follows the name; a missing object fails with the server's Status
        const missing = yield* call(get, "nope")
        expect(missing?._tag === "ApiError" && missing.status).toMatchObject({ code: 404, reason: "NotFound", message: 'configmaps "nope" not found' })
        expect(yield* call(get, "d")).toBeUndefined()
        const del = (yield* api.directMeasure!("DELETE", ConfigMaps, { namespace: "default" }))!
        expect(yield* call(del, "d")).toBeUndefined()
        expect(Either.isLeft(yield* Effect.either(api.get(ConfigMaps, "d", { namespace: "default" })))).toBe(true)
      })
    )
  )

  it.live("directMeasure: a server gone is the transport's connection error; no direct form without names or with credentials", () =>
    Effect.scoped(
      Effect.gen(function* () {
        const serverScope = yield* Scope.make()
        const base = yield* Scope.extend(httpServer(), serverScope)
        const api = Context.get(yield* Layer.build(ApiClient.layerHttp({ baseUrl: base })), ApiClient) as HttpClientService
        const get = (yield* api.directMeasure!("GET", ConfigMaps, { namespace: "default" }))!
        yield* Scope.close(serverScope, Exit.void)
        const failure = yield* Effect.async<ClientError | undefined>((resume) => get("x", (f) => resume(Effect.succeed(f))))
        expect(isConnectionFailure(failure)).toBe(true)
        // no answer, so no Status: the transport's error, saying what happened and where (never a made-up 503)
        expect(failure).toMatchObject({ _tag: "TransportError", reason: "Transport", errorCode: "ECONNREFUSED", url: base })
        expect(failure?.message).toBe(`connection refused: ${base}`)
        // a target whose names could not be discovered: the Effect form, which tries discovery again
        const unreachable = Context.get(yield* Layer.build(ApiClient.layerHttp({ baseUrl: base })), ApiClient) as HttpClientService
        expect(yield* unreachable.directMeasure!("GET", ConfigMaps, { namespace: "default" })).toBeUndefined()
        // a credential source is consulted per request: the Effect form
        const withToken = Context.get(yield* Layer.build(ApiClient.layerHttp({ baseUrl: base, token: "t" })), ApiClient) as HttpClientService
        expect(yield* withToken.directMeasure!("GET", ConfigMaps, { namespace: "default" })).toBeUndefined()
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

/** The ApiClient layers every contract test runs against, each over a fresh simulated server. */
import { Clock, Effect, Layer, Stream } from "effect"
import { ApiServer, type ApiServerConfig } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"
import type { InProcessClientService, WatchPulls } from "../../src/client/Capabilities.js"
import { ServerAdmin } from "../../src/client/ServerAdmin.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { frozenClient, layerFrozen } from "./frozenClient.js"

/**
 * `http-protobuf`: the HTTP client asking for and sending the protobuf envelope; `immediate`: the in-process client's
 * immediate view (`ImmediateView`, what the node agents send through), asked at the Clock's time for every call.
 */
export type Transport = "in-process" | "immediate" | "http" | "http-protobuf"

/**
 * Every call through `client`'s immediate view as the server stands at the Clock's time; its effectful verbs only
 * while the server holds requests (an admin pause: the view is undefined then, as the node agents find it).
 */
export const immediateViewClient = (client: InProcessClientService): ApiClientService & WatchPulls => {
  const view = Effect.map(Clock.currentTimeMillis, (now) => client.at(now) ?? client)
  return {
    get: (...a) => Effect.flatMap(view, (v) => v.get(...a)),
    list: (...a) => Effect.flatMap(view, (v) => v.list(...a)),
    create: (...a) => Effect.flatMap(view, (v) => v.create(...a)),
    update: (...a) => Effect.flatMap(view, (v) => v.update(...a)),
    patch: (...a) => Effect.flatMap(view, (v) => v.patch(...a)),
    delete: (...a) => Effect.flatMap(view, (v) => v.delete(...a)),
    deleteCollection: (...a) => Effect.flatMap(view, (v) => v.deleteCollection(...a)),
    watch: (...a) => Stream.unwrap(Effect.map(view, (v) => v.watch(...a))),
    pullWatch: (...a) => Effect.flatMap(view, (v) => v.pullWatch(...a))
  }
}

/** The immediate view of the in-process client, frozen as `layerFrozen` is. */
const layerImmediate: Layer.Layer<ApiClient, never, ApiServer> = Layer.effect(
  ApiClient,
  Effect.map(ApiServer, (server) => immediateViewClient(frozenClient(InProcessClient.inProcessClient(server))))
)

/** A fresh server plus a client of the given transport; the HTTP one listens on a free loopback port. */
export const clientLayer = (
  transport: Transport,
  config: Partial<ApiServerConfig> = {}
): Layer.Layer<ApiClient | ServerAdmin | ApiServer> => {
  const server = ApiServer.layer(config)
  // In-process values are deep-frozen on both sides, so a hidden mutation fails the test that makes it.
  if (transport === "in-process") return Layer.provideMerge(Layer.merge(layerFrozen, InProcessClient.layerAdmin), server)
  if (transport === "immediate") return Layer.provideMerge(Layer.merge(layerImmediate, InProcessClient.layerAdmin), server)
  const http = Layer.unwrapScoped(
    Effect.map(Effect.orDie(serveHttp({ host: "127.0.0.1", port: 0, admin: true })), (s) =>
      Layer.merge(ApiClient.layerHttp({ baseUrl: s.url, encoding: transport === "http-protobuf" ? "protobuf" : "json" }), ServerAdmin.layerHttp(s.url))
    )
  )
  return Layer.provideMerge(http, server)
}

export const transports: ReadonlyArray<Transport> = ["in-process", "immediate", "http", "http-protobuf"]

/** Base URL of a fresh HTTP server, for raw-wire tests (status codes, headers). */
export const httpServer = (config: Partial<ApiServerConfig> = {}) =>
  Effect.map(Effect.orDie(serveHttp({ host: "127.0.0.1", port: 0, admin: true })), (s) => s.url).pipe(
    Effect.provide(ApiServer.layer(config))
  )

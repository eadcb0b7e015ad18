/** The two ApiClient layers every contract test runs against, each over a fresh simulated server. */
import { Effect, Layer } from "effect"
import { ApiServer, type ApiServerConfig } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { ServerAdmin } from "../../src/client/ServerAdmin.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { layerFrozen } from "./frozenClient.js"

/** `http-protobuf`: the HTTP client asking for and sending the protobuf envelope. */
export type Transport = "in-process" | "http" | "http-protobuf"

/** A fresh server plus a client of the given transport; the HTTP one listens on a free loopback port. */
export const clientLayer = (
  transport: Transport,
  config: Partial<ApiServerConfig> = {}
): Layer.Layer<ApiClient | ServerAdmin | ApiServer> => {
  const server = ApiServer.layer(config)
  // In-process values are deep-frozen on both sides, so a hidden mutation fails the test that makes it.
  if (transport === "in-process") return Layer.provideMerge(Layer.merge(layerFrozen, InProcessClient.layerAdmin), server)
  const http = Layer.unwrapScoped(
    Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: true }), (s) =>
      Layer.merge(ApiClient.layerHttp({ baseUrl: s.url, encoding: transport === "http-protobuf" ? "protobuf" : "json" }), ServerAdmin.layerHttp(s.url))
    )
  )
  return Layer.provideMerge(http, server)
}

export const transports: ReadonlyArray<Transport> = ["in-process", "http", "http-protobuf"]

/** Base URL of a fresh HTTP server, for raw-wire tests (status codes, headers). */
export const httpServer = (config: Partial<ApiServerConfig> = {}) =>
  Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: true }), (s) => s.url).pipe(
    Effect.provide(ApiServer.layer(config))
  )

/**
 * A run's target turned into its client layer (./target.ts resolves which target): the target's identity for the
 * artifact, its admin hooks when it has them, and the client's credential source. Its own module: it builds
 * simulated servers, which a run against a URL that does not answer never loads (app/cli/run.ts).
 */
import { Context, Effect, Layer } from "effect"
import { ApiServer, type ApiServerConfig } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import type { HttpClientOptions, TrafficCounter } from "../../src/client/HttpTransport.js"
import { hasAdminHooks } from "../../src/client/AdminProbe.js"
import { fetchServerVersion, type ProbeTarget } from "../../src/client/Probe.js"
import { ServerAdmin, type ServerAdminService } from "../../src/client/ServerAdmin.js"
import { credentialSourceFor } from "../../src/client/auth/ClientCredentials.js"
import type { CredentialSource } from "../../src/client/auth/Credential.js"
import type { TargetIdentity } from "../../src/loadgen/Artifact.js"
import type { Scenario } from "../scenario/Scenario.js"
import { serverSettings } from "../scenario/Simulated.js"
import { ServerProcessError, startServerProcess } from "./ServerProcess.js"
import { hasExpireTokens } from "../scenario/Run.js"
import { credentialedClient } from "../../simulator/apiserver/auth/CredentialedClient.js"
import { generatorCredentials } from "./generatorCredentials.js"
import type { TargetFlag } from "./target.js"

/**
 * What the run talks to: identity for the artifact, the admin hooks when the target has them, and the client's
 * credential source when it has one (the `expire-tokens` step acts on it).
 */
export class Target extends Context.Tag("clustersim/cli/Target")<
  Target,
  { readonly identity: TargetIdentity; readonly admin: ServerAdminService | undefined; readonly credentials?: CredentialSource }
>() {}

const serverConfig = (scenario: Scenario, seed: number): Partial<ApiServerConfig> => ({ ...serverSettings(scenario), seed })

/** Client and identity of a server at `url` with the admin hooks (a `clustersim serve --admin`). */
const embeddedAt = (url: string, traffic: TrafficCounter | undefined, pool: { readonly connections?: number }, credentials?: CredentialSource) =>
  Effect.gen(function* () {
    const version = yield* fetchServerVersion({ baseUrl: url })
    const admin = yield* Effect.provide(ServerAdmin, ServerAdmin.layerHttp(url))
    const withCredentials = credentials ? { credentials } : {}
    return Layer.merge(
      ApiClient.layerHttp({ baseUrl: url, traffic, ...pool, ...withCredentials }),
      Layer.succeed(Target, { identity: { kind: "embedded" as const, url, ...(version ? { version } : {}) }, admin, ...withCredentials })
    )
  })

export const targetLayer = (t: TargetFlag, scenario: Scenario, seed: number, traffic?: TrafficCounter): Layer.Layer<ApiClient | Target, ServerProcessError> => {
  const server = ApiServer.layer(serverConfig(scenario, seed))
  // a real-time cluster's keep-alive pool (cluster.driver.connections), else the client's default
  const connections = scenario.cluster?.driver?.connections
  const pool = connections !== undefined ? { connections } : {}
  switch (t._tag) {
    case "in-process":
      if (hasExpireTokens(scenario))
        return Layer.provide(
          Layer.unwrapEffect(
            Effect.gen(function* () {
              const api = yield* ApiServer
              const credentials = yield* generatorCredentials(api)
              const admin = yield* Effect.provide(ServerAdmin, InProcessClient.layerAdmin)
              return Layer.merge(
                Layer.succeed(ApiClient, credentialedClient(api, credentials)),
                Layer.succeed(Target, { identity: { kind: "in-process" as const }, admin, credentials })
              )
            })
          ),
          server
        )
      return Layer.provide(
        Layer.merge(
          InProcessClient.layer,
          Layer.effect(Target, Effect.map(ServerAdmin, (admin) => ({ identity: { kind: "in-process" as const }, admin })).pipe(Effect.provide(InProcessClient.layerAdmin)))
        ),
        server
      )
    case "embedded":
      // A scenario that expires tokens has the generator's issued by the server itself: that server runs here.
      if (t.serverProcess === "own" && !hasExpireTokens(scenario)) {
        const settings = serverConfig(scenario, seed)
        return Layer.unwrapScoped(
          Effect.flatMap(
            startServerProcess({
              seed,
              ...(settings.historyWindowMs !== undefined ? { historyWindowMs: settings.historyWindowMs } : {}),
              ...(settings.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: settings.bookmarkIntervalMs } : {}),
              ...(settings.watchBufferSize !== undefined ? { watchBufferSize: settings.watchBufferSize } : {}),
              ...(settings.featureGates !== undefined ? { featureGates: settings.featureGates.toString() } : {})
            }),
            (s) => embeddedAt(s.url, traffic, pool)
          )
        )
      }
      return Layer.provide(
        Layer.unwrapScoped(
          Effect.gen(function* () {
            const s = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: true }).pipe(Effect.mapError((e) => new ServerProcessError({ message: `the in-process server: ${e.message}` })))
            const credentials = hasExpireTokens(scenario) ? yield* generatorCredentials(yield* ApiServer) : undefined
            return yield* embeddedAt(s.url, traffic, pool, credentials)
          })
        ),
        server
      )
    case "url":
      return Layer.unwrapEffect(
        Effect.gen(function* () {
          const credentials = t.options.credentials ?? credentialSourceFor({ ...t.options, hasClientCertificate: t.options.tls?.cert !== undefined })
          // the probes go out with the client's credential too (a server may refuse anonymous requests)
          const probeTarget = yield* probeTargetOf(t.options, credentials)
          const version = yield* fetchServerVersion(probeTarget)
          // a `clustersim serve --admin` URL has the failure hooks too
          const admin = (yield* hasAdminHooks(t.options.baseUrl, probeTarget))
            ? yield* Effect.provide(ServerAdmin, ServerAdmin.layerHttp(t.options.baseUrl, probeTarget))
            : undefined
          return Layer.merge(
            ApiClient.layerHttp({ ...t.options, traffic, ...pool, ...(credentials ? { credentials } : {}) }),
            Layer.succeed(Target, {
              identity: { kind: "url", url: t.options.baseUrl, ...(version ? { version } : {}), ...(t.context ? { context: t.context } : {}) },
              admin,
              ...(credentials ? { credentials } : {})
            })
          )
        })
      )
  }
}

/** The target's address and TLS material with the credential the client would send now (none if it has none yet). */
export const probeTargetOf = (options: HttpClientOptions, credentials: CredentialSource | undefined): Effect.Effect<ProbeTarget> =>
  Effect.gen(function* () {
    const credential = credentials ? yield* Effect.option(credentials.current) : undefined
    const held = credential?._tag === "Some" ? credential.value : undefined
    const cert = held?.clientCertificate
    return {
      baseUrl: options.baseUrl,
      ...(held?.token ? { token: held.token } : {}),
      ...(options.tls || cert ? { tls: { ...options.tls, ...(cert ? { cert: cert.cert, key: cert.key } : {}) } } : {})
    }
  })


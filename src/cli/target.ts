/**
 * What a run talks to: `--target embedded|in-process|URL` or `--kubeconfig FILE [--context C]` resolved to a flag,
 * and the flag turned into the client layer with the target's identity and admin hooks (when it has them).
 */
import { Context, Effect, Layer } from "effect"
import { ApiServer, type ApiServerConfig } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import * as InProcessClient from "../../simulator/apiserver/InProcessClient.js"
import { ApiClient } from "../client/ApiClient.js"
import type { HttpClientOptions, TrafficCounter } from "../client/HttpTransport.js"
import { hasAdminHooks } from "../client/AdminProbe.js"
import { fetchServerVersion } from "../client/Probe.js"
import { loadKubeconfigContext } from "../client/Kubeconfig.js"
import { ServerAdmin, type ServerAdminService } from "../client/ServerAdmin.js"
import type { TargetIdentity } from "../scenario/Artifact.js"
import type { Scenario } from "../scenario/Scenario.js"
import { serverSettings } from "../scenario/Simulated.js"
import { ServerProcessError, startServerProcess } from "./ServerProcess.js"

export type TargetFlag =
  | {
      readonly _tag: "embedded"
      /**
       * `own` (what `--target embedded` gives): the server in a process of its own (./ServerProcess.ts); `shared`
       * (the default when a caller builds the flag, e.g. tests): the server in this process, on a loopback port.
       */
      readonly serverProcess?: "own" | "shared"
    }
  | { readonly _tag: "in-process" }
  | { readonly _tag: "url"; readonly options: HttpClientOptions; readonly context?: string }

/** Whether the target's server runs on this machine (its share of the cores is not the generator's). */
export const isLocalTarget = (t: TargetFlag): boolean =>
  t._tag !== "url" || /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:|\/|$)/.test(t.options.baseUrl)

/** What the run talks to: identity for the artifact and the admin hooks, when the target has them. */
export class Target extends Context.Tag("clustersim/cli/Target")<Target, { readonly identity: TargetIdentity; readonly admin: ServerAdminService | undefined }>() {}

const serverConfig = (scenario: Scenario, seed: number): Partial<ApiServerConfig> => ({ ...serverSettings(scenario), seed })

/** Client and identity of a server at `url` with the admin hooks (a `clustersim serve --admin`). */
const embeddedAt = (url: string, traffic: TrafficCounter | undefined) =>
  Effect.gen(function* () {
    const version = yield* fetchServerVersion({ baseUrl: url })
    const admin = yield* Effect.provide(ServerAdmin, ServerAdmin.layerHttp(url))
    return Layer.merge(
      ApiClient.layerHttp({ baseUrl: url, traffic }),
      Layer.succeed(Target, { identity: { kind: "embedded" as const, url, ...(version ? { version } : {}) }, admin })
    )
  })

export const targetLayer = (t: TargetFlag, scenario: Scenario, seed: number, traffic?: TrafficCounter): Layer.Layer<ApiClient | Target, ServerProcessError> => {
  const server = ApiServer.layer(serverConfig(scenario, seed))
  switch (t._tag) {
    case "in-process":
      return Layer.provide(
        Layer.merge(
          InProcessClient.layer,
          Layer.effect(Target, Effect.map(ServerAdmin, (admin) => ({ identity: { kind: "in-process" as const }, admin })).pipe(Effect.provide(InProcessClient.layerAdmin)))
        ),
        server
      )
    case "embedded":
      if (t.serverProcess === "own") {
        const settings = serverConfig(scenario, seed)
        return Layer.unwrapScoped(
          Effect.flatMap(
            startServerProcess({
              seed,
              ...(settings.historyWindowMs !== undefined ? { historyWindowMs: settings.historyWindowMs } : {}),
              ...(settings.bookmarkIntervalMs !== undefined ? { bookmarkIntervalMs: settings.bookmarkIntervalMs } : {}),
              ...(settings.watchBufferSize !== undefined ? { watchBufferSize: settings.watchBufferSize } : {})
            }),
            (s) => embeddedAt(s.url, traffic)
          )
        )
      }
      return Layer.provide(Layer.unwrapScoped(Effect.flatMap(serveHttp({ host: "127.0.0.1", port: 0, admin: true }), (s) => embeddedAt(s.url, traffic))), server)
    case "url":
      return Layer.unwrapEffect(
        Effect.gen(function* () {
          const version = yield* fetchServerVersion(t.options)
          // a `clustersim serve --admin` URL has the failure hooks too
          const admin = (yield* hasAdminHooks(t.options.baseUrl, t.options)) ? yield* Effect.provide(ServerAdmin, ServerAdmin.layerHttp(t.options.baseUrl)) : undefined
          return Layer.merge(
            ApiClient.layerHttp({ ...t.options, traffic }),
            Layer.succeed(Target, {
              identity: { kind: "url", url: t.options.baseUrl, ...(version ? { version } : {}), ...(t.context ? { context: t.context } : {}) },
              admin
            })
          )
        })
      )
  }
}

export class RunUsageError extends Error {}

/** `--kubeconfig FILE [--context C]`: bearer token, client certificates and CA data as kubeconfig gives them. */
const loadKubeconfigTarget = (path: string, context: string | undefined): Effect.Effect<TargetFlag, RunUsageError> =>
  loadKubeconfigContext(path, { context }).pipe(
    Effect.map((r): TargetFlag => ({ _tag: "url", options: r.client, context: r.context })),
    Effect.mapError((e) => new RunUsageError(`--kubeconfig ${e.file}: ${e.detail}`))
  )

/** `--target` or `--kubeconfig [--context]` → what the run talks to. */
export const resolveTarget = (values: { readonly target?: string | undefined; readonly kubeconfig?: string | undefined; readonly context?: string | undefined }) =>
  Effect.gen(function* () {
    if (values.kubeconfig !== undefined && values.target !== undefined) {
      return yield* Effect.fail(new RunUsageError("--target and --kubeconfig are mutually exclusive"))
    }
    if (values.context !== undefined && values.kubeconfig === undefined) return yield* Effect.fail(new RunUsageError("--context needs --kubeconfig"))
    if (values.kubeconfig !== undefined) return yield* loadKubeconfigTarget(values.kubeconfig, values.context)
    return yield* parseTargetText(values.target)
  })

/** `embedded`, `in-process` or an http(s) URL. */
export const parseTargetText = (text: string | undefined): Effect.Effect<TargetFlag, RunUsageError> => {
  if (text === undefined || text === "embedded") return Effect.succeed({ _tag: "embedded", serverProcess: "own" })
  if (text === "in-process") return Effect.succeed({ _tag: "in-process" })
  if (/^https?:\/\//.test(text)) return Effect.succeed({ _tag: "url", options: { baseUrl: text } })
  return Effect.fail(new RunUsageError(`--target: expected embedded, in-process or an http(s):// URL, got "${text}"`))
}

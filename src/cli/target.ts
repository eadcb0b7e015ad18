/**
 * What a run talks to: `--target embedded|in-process|URL` or `--kubeconfig FILE [--context C]` resolved to a flag,
 * and the flag turned into the client layer with the target's identity and admin hooks (when it has them).
 */
import { readFileSync } from "node:fs"
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
import { credentialSourceFor } from "../client/auth/ClientCredentials.js"
import type { CredentialSource } from "../client/auth/Credential.js"
import type { TargetIdentity } from "../scenario/Artifact.js"
import type { Scenario } from "../scenario/Scenario.js"
import { serverSettings } from "../scenario/Simulated.js"

/** `explicit`: `--target embedded` was given (a cluster scenario then runs in real time, not in virtual time). */
export type TargetFlag = { readonly _tag: "embedded"; readonly explicit?: boolean } | { readonly _tag: "in-process" } | { readonly _tag: "url"; readonly options: HttpClientOptions; readonly context?: string }

/**
 * What the run talks to: identity for the artifact, the admin hooks when the target has them, and the client's
 * credential source when it has one (the `expire-tokens` step acts on it).
 */
export class Target extends Context.Tag("clustersim/cli/Target")<
  Target,
  { readonly identity: TargetIdentity; readonly admin: ServerAdminService | undefined; readonly credentials?: CredentialSource }
>() {}

const serverConfig = (scenario: Scenario, seed: number): Partial<ApiServerConfig> => ({ ...serverSettings(scenario), seed })

export const targetLayer = (t: TargetFlag, scenario: Scenario, seed: number, traffic?: TrafficCounter): Layer.Layer<ApiClient | Target> => {
  const server = ApiServer.layer(serverConfig(scenario, seed))
  // a real-time cluster's keep-alive pool (cluster.driver.connections), else the client's default
  const connections = scenario.cluster?.driver?.connections
  const pool = connections !== undefined ? { connections } : {}
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
      return Layer.provide(
        Layer.unwrapScoped(
          Effect.gen(function* () {
            const s = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: true })
            const version = yield* fetchServerVersion({ baseUrl: s.url })
            const admin = yield* Effect.provide(ServerAdmin, ServerAdmin.layerHttp(s.url))
            return Layer.merge(
              ApiClient.layerHttp({ baseUrl: s.url, traffic, ...pool }),
              Layer.succeed(Target, { identity: { kind: "embedded", url: s.url, ...(version ? { version } : {}) }, admin })
            )
          })
        ),
        server
      )
    case "url":
      return Layer.unwrapEffect(
        Effect.gen(function* () {
          const version = yield* fetchServerVersion(t.options)
          // a `clustersim serve --admin` URL has the failure hooks too
          const admin = (yield* hasAdminHooks(t.options.baseUrl, t.options)) ? yield* Effect.provide(ServerAdmin, ServerAdmin.layerHttp(t.options.baseUrl)) : undefined
          const credentials = t.options.credentials ?? credentialSourceFor({ ...t.options, hasClientCertificate: t.options.tls?.cert !== undefined })
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

export class RunUsageError extends Error {}

/** `--kubeconfig FILE [--context C]`: bearer token, client certificates and CA data as kubeconfig gives them. */
const loadKubeconfigTarget = (path: string, context: string | undefined): Effect.Effect<TargetFlag, RunUsageError> =>
  loadKubeconfigContext(path, { context }).pipe(
    Effect.map((r): TargetFlag => ({ _tag: "url", options: r.client, context: r.context })),
    Effect.mapError((e) => new RunUsageError(`--kubeconfig ${e.file}: ${e.detail}`))
  )

/** Credentials and TLS material for `--target URL`, as kubectl's flags of the same names. */
export interface UrlCredentialFlags {
  readonly token?: string | undefined
  /** A file: the CA bundle that verifies the server. */
  readonly ca?: string | undefined
  readonly clientCert?: string | undefined
  readonly clientKey?: string | undefined
  readonly insecureSkipTlsVerify?: boolean | undefined
}

const flagNames: Record<keyof UrlCredentialFlags, string> = {
  token: "--token",
  ca: "--ca",
  clientCert: "--client-cert",
  clientKey: "--client-key",
  insecureSkipTlsVerify: "--insecure-skip-tls-verify"
}

const readFlagFile = (flag: string, file: string) =>
  Effect.try({
    try: () => readFileSync(file, "utf8"),
    catch: (e) => new RunUsageError(`${flag}: cannot read ${file}: ${(e as Error).message}`)
  })

/** `--target URL` with `--token`, `--ca`, `--client-cert/--client-key`, `--insecure-skip-tls-verify`. */
const withUrlCredentials = (target: TargetFlag, flags: UrlCredentialFlags): Effect.Effect<TargetFlag, RunUsageError> =>
  Effect.gen(function* () {
    const given = (Object.keys(flagNames) as Array<keyof UrlCredentialFlags>).filter((k) => flags[k] !== undefined && flags[k] !== false)
    if (given.length === 0) return target
    const names = given.map((k) => flagNames[k]).join(", ")
    if (target._tag !== "url" || target.context !== undefined)
      return yield* Effect.fail(new RunUsageError(`${names}: only with --target URL (a kubeconfig gives its own credentials; embedded and in-process need none)`))
    const https = target.options.baseUrl.startsWith("https://")
    const tlsFlags = given.filter((k) => k !== "token")
    if (tlsFlags.length > 0 && !https) return yield* Effect.fail(new RunUsageError(`${tlsFlags.map((k) => flagNames[k]).join(", ")}: only with an https:// target`))
    if ((flags.clientCert === undefined) !== (flags.clientKey === undefined))
      return yield* Effect.fail(new RunUsageError("--client-cert and --client-key go together"))
    if (flags.ca !== undefined && flags.insecureSkipTlsVerify)
      return yield* Effect.fail(new RunUsageError("--ca, --insecure-skip-tls-verify: specifying a root certificates file with the insecure flag is not allowed"))
    const ca = flags.ca !== undefined ? yield* readFlagFile("--ca", flags.ca) : undefined
    const cert = flags.clientCert !== undefined ? yield* readFlagFile("--client-cert", flags.clientCert) : undefined
    const key = flags.clientKey !== undefined ? yield* readFlagFile("--client-key", flags.clientKey) : undefined
    const tls = {
      ...(ca !== undefined ? { ca } : {}),
      ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
      ...(flags.insecureSkipTlsVerify ? { insecureSkipVerify: true } : {})
    }
    return {
      ...target,
      options: { ...target.options, ...(flags.token !== undefined ? { token: flags.token } : {}), ...(Object.keys(tls).length > 0 ? { tls } : {}) }
    }
  })

/** `--target` (with its credential flags) or `--kubeconfig [--context]` → what the run talks to. */
export const resolveTarget = (
  values: { readonly target?: string | undefined; readonly kubeconfig?: string | undefined; readonly context?: string | undefined } & UrlCredentialFlags
) =>
  Effect.gen(function* () {
    if (values.kubeconfig !== undefined && values.target !== undefined) {
      return yield* Effect.fail(new RunUsageError("--target and --kubeconfig are mutually exclusive"))
    }
    if (values.context !== undefined && values.kubeconfig === undefined) return yield* Effect.fail(new RunUsageError("--context needs --kubeconfig"))
    const target = values.kubeconfig !== undefined ? yield* loadKubeconfigTarget(values.kubeconfig, values.context) : yield* parseTargetText(values.target)
    return yield* withUrlCredentials(target, values)
  })

/** `embedded`, `in-process` or an http(s) URL. */
export const parseTargetText = (text: string | undefined): Effect.Effect<TargetFlag, RunUsageError> => {
  if (text === undefined) return Effect.succeed({ _tag: "embedded" })
  if (text === "embedded") return Effect.succeed({ _tag: "embedded", explicit: true })
  if (text === "in-process") return Effect.succeed({ _tag: "in-process" })
  if (/^https?:\/\//.test(text)) return Effect.succeed({ _tag: "url", options: { baseUrl: text } })
  return Effect.fail(new RunUsageError(`--target: expected embedded, in-process or an http(s):// URL, got "${text}"`))
}

/**
 * Kubeconfig files (`--kubeconfig FILE [--context C]`): the server, credentials and TLS material of one
 * context, as `HttpClientOptions` for `ApiClient.layerHttp`. Follows client-go `tools/clientcmd`: relative
 * paths (and an exec `command` with a `/`) are relative to the file's directory, `*-data` fields (base64) win over
 * their path fields, a CA together with `insecure-skip-tls-verify` is refused, and an exec user is validated as
 * `validateAuthInfo` does. A user clustersim cannot authenticate as (basic auth, `auth-provider`, impersonation)
 * is an error: a run must never go out anonymous in its place.
 */
import { readFile } from "node:fs/promises"
import * as nodePath from "node:path"
import { Data, Effect, Either, ParseResult, Schema } from "effect"
import { parse as parseYaml } from "yaml"
import type { HttpClientOptions } from "./HttpTransport.js"
import { ExecApiVersions, InteractiveModes, type ExecApiVersion, type ExecClusterInfo, type ExecConfig, type InteractiveMode } from "./auth/ExecCredential.js"

/** A kubeconfig problem; the message names the file and the field. */
export class KubeconfigError extends Data.TaggedError("KubeconfigError")<{ readonly file: string; readonly detail: string }> {
  override get message(): string {
    return `kubeconfig ${this.file}: ${this.detail}`
  }
}

const ClusterFields = {
  server: Schema.optional(Schema.String),
  "certificate-authority": Schema.optional(Schema.String),
  "certificate-authority-data": Schema.optional(Schema.String),
  "insecure-skip-tls-verify": Schema.optional(Schema.Boolean)
}

const UserFields = {
  token: Schema.optional(Schema.String),
  tokenFile: Schema.optional(Schema.String),
  "client-certificate": Schema.optional(Schema.String),
  "client-certificate-data": Schema.optional(Schema.String),
  "client-key": Schema.optional(Schema.String),
  "client-key-data": Schema.optional(Schema.String),
  username: Schema.optional(Schema.String),
  password: Schema.optional(Schema.String),
  exec: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        command: Schema.optional(Schema.String),
        args: Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
        env: Schema.optional(Schema.NullOr(Schema.Array(Schema.Struct({ name: Schema.optional(Schema.String), value: Schema.optional(Schema.String) })))),
        apiVersion: Schema.optional(Schema.String),
        installHint: Schema.optional(Schema.String),
        provideClusterInfo: Schema.optional(Schema.Boolean),
        interactiveMode: Schema.optional(Schema.String)
      })
    )
  ),
  "auth-provider": Schema.optional(Schema.NullOr(Schema.Struct({ name: Schema.optional(Schema.String) }))),
  as: Schema.optional(Schema.String),
  "as-uid": Schema.optional(Schema.String),
  "as-groups": Schema.optional(Schema.NullOr(Schema.Array(Schema.String))),
  "as-user-extra": Schema.optional(Schema.Unknown)
}

const ContextFields = {
  cluster: Schema.String,
  user: Schema.optional(Schema.String),
  namespace: Schema.optional(Schema.String)
}

const NullableArray = <S extends Schema.Schema.Any>(item: S) => Schema.optional(Schema.NullOr(Schema.Array(item)))

/** The subset of `kind: Config` clustersim reads; unknown keys (extensions, preferences) are ignored. */
export const KubeconfigFile = Schema.Struct({
  "current-context": Schema.optional(Schema.String),
  clusters: NullableArray(Schema.Struct({ name: Schema.String, cluster: Schema.Struct(ClusterFields) })),
  users: NullableArray(Schema.Struct({ name: Schema.String, user: Schema.Struct(UserFields) })),
  contexts: NullableArray(Schema.Struct({ name: Schema.String, context: Schema.Struct(ContextFields) }))
})
export type KubeconfigFile = typeof KubeconfigFile.Type

type UserEntry = Schema.Struct.Type<typeof UserFields>

/** What one context resolves to. */
export interface ResolvedKubeconfig {
  readonly file: string
  readonly context: string
  /** The context's default namespace, if it names one. */
  readonly namespace?: string
  readonly client: HttpClientOptions
}

const describeError = (e: unknown): string => {
  const err = e as NodeJS.ErrnoException
  return err?.code ? `${err.code}${err.message ? `: ${err.message.replace(/^\w+: /, "")}` : ""}` : String(e)
}

/** Resolves one context of an already parsed file. `read` reads referenced files (paths already absolute). */
export const resolveKubeconfig = (
  file: string,
  config: KubeconfigFile,
  options: { readonly context?: string | undefined; readonly read?: (path: string) => Promise<string> } = {}
): Effect.Effect<ResolvedKubeconfig, KubeconfigError> =>
  Effect.gen(function* () {
    const fail = (detail: string) => Effect.fail(new KubeconfigError({ file, detail }))
    const read = options.read ?? ((p: string) => readFile(p, "utf8"))
    const dir = nodePath.dirname(file)
    const contextName = options.context ?? config["current-context"]
    if (!contextName) return yield* fail("no context given and current-context is not set")
    const context = (config.contexts ?? []).find((c) => c.name === contextName)?.context
    if (!context) return yield* fail(`context "${contextName}" not found`)
    const cluster = (config.clusters ?? []).find((c) => c.name === context.cluster)?.cluster
    if (!cluster) return yield* fail(`context "${contextName}": cluster "${context.cluster}" not found`)
    let user: UserEntry = {}
    if (context.user) {
      const found = (config.users ?? []).find((u) => u.name === context.user)?.user
      if (!found) return yield* fail(`context "${contextName}": user "${context.user}" not found`)
      user = found
    }
    const where = (kind: "cluster" | "user", name: string, field: string) => `${kind} "${name}": ${field}`

    /** `<field>-data` (base64) or `<field>` (a path, relative to the kubeconfig's directory). */
    const material = (kind: "cluster" | "user", name: string, field: string, data: string | undefined, path: string | undefined) =>
      Effect.gen(function* () {
        if (data !== undefined && data !== "") {
          if (!/^[A-Za-z0-9+/=\s_-]*$/.test(data)) return yield* fail(`${where(kind, name, `${field}-data`)}: not base64`)
          return Buffer.from(data, "base64").toString("utf8")
        }
        if (path === undefined || path === "") return undefined
        const absolute = nodePath.resolve(dir, path)
        return yield* Effect.tryPromise({
          try: () => read(absolute),
          catch: (e) => new KubeconfigError({ file, detail: `${where(kind, name, field)}: cannot read ${absolute}: ${describeError(e)}` })
        })
      })

    const server = cluster.server
    if (!server) return yield* fail(`${where("cluster", context.cluster, "server")}: missing`)
    if (!/^https?:\/\//.test(server)) return yield* fail(`${where("cluster", context.cluster, "server")}: "${server}" is not an http(s) URL`)
    const ca = yield* material("cluster", context.cluster, "certificate-authority", cluster["certificate-authority-data"], cluster["certificate-authority"])
    const insecure = cluster["insecure-skip-tls-verify"] === true
    if (insecure && ca !== undefined)
      return yield* fail(`${where("cluster", context.cluster, "insecure-skip-tls-verify")}: specifying a root certificates file with the insecure flag is not allowed`)

    const userName = context.user ?? ""
    const cert = yield* material("user", userName, "client-certificate", user["client-certificate-data"], user["client-certificate"])
    const key = yield* material("user", userName, "client-key", user["client-key-data"], user["client-key"])
    if ((cert === undefined) !== (key === undefined))
      return yield* fail(`${where("user", userName, cert === undefined ? "client-certificate" : "client-key")}: missing (client certificate and key go together)`)

    const exec = user.exec ? yield* execConfigOf(user.exec, userName, dir, user["auth-provider"] != null, fail) : undefined
    if (user.username || user.password)
      return yield* fail(
        `${where("user", userName, "username/password")}: basic authentication is not supported (API servers dropped it in 1.19); use a token, a client certificate or an exec plugin`
      )
    if (user["auth-provider"])
      return yield* fail(
        `${where("user", userName, "auth-provider")}: "${user["auth-provider"].name ?? ""}" is not supported; use an exec credential plugin (client.authentication.k8s.io), as kubectl does since 1.26`
      )
    if (user.as || user["as-uid"] || (user["as-groups"] ?? []).length > 0 || user["as-user-extra"] !== undefined)
      return yield* fail(`${where("user", userName, "as")}: impersonation is not supported`)

    // clientcmd reads a tokenFile at once when there is no inline token; the transport re-reads it (TokenFile.ts)
    let token = user.token || undefined
    const tokenFile = user.tokenFile ? nodePath.resolve(dir, user.tokenFile) : undefined
    if (!token && tokenFile) {
      const text = yield* Effect.tryPromise({
        try: () => read(tokenFile),
        catch: (e) => new KubeconfigError({ file, detail: `${where("user", userName, "tokenFile")}: cannot read ${tokenFile}: ${describeError(e)}` })
      })
      token = text.trim()
      if (token === "") return yield* fail(`${where("user", userName, "tokenFile")}: ${tokenFile} is empty`)
    }

    const https = server.startsWith("https://")
    const tls =
      https && (ca !== undefined || cert !== undefined || insecure)
        ? {
            ...(ca !== undefined ? { ca } : {}),
            ...(cert !== undefined ? { cert } : {}),
            ...(key !== undefined ? { key } : {}),
            ...(insecure ? { insecureSkipVerify: true } : {})
          }
        : undefined
    const clusterInfo: ExecClusterInfo = {
      server,
      ...(ca !== undefined ? { "certificate-authority-data": Buffer.from(ca).toString("base64") } : {}),
      ...(insecure ? { "insecure-skip-tls-verify": true } : {})
    }
    const client: HttpClientOptions = {
      baseUrl: server,
      ...(token ? { token } : {}),
      ...(tokenFile ? { tokenFile } : {}),
      ...(exec ? { exec: { config: exec, ...(exec.provideClusterInfo ? { cluster: clusterInfo } : {}) } } : {}),
      ...(tls ? { tls } : {})
    }
    return { file, context: contextName, ...(context.namespace ? { namespace: context.namespace } : {}), client }
  })

type ExecEntry = NonNullable<UserEntry["exec"]>

/** A kubeconfig `exec` user checked as client-go's `validateAuthInfo` and `newAuthenticator` do, with their texts. */
const execConfigOf = (
  exec: ExecEntry,
  userName: string,
  dir: string,
  hasAuthProvider: boolean,
  fail: (detail: string) => Effect.Effect<never, KubeconfigError>
): Effect.Effect<ExecConfig, KubeconfigError> => {
  const problem = (text: string) => fail(`user "${userName}": exec: ${text}`)
  if (hasAuthProvider) return problem(`authProvider cannot be provided in combination with an exec plugin for ${userName}`)
  if (!exec.command) return problem(`command must be specified for ${userName} to use exec authentication plugin`)
  if (!exec.apiVersion) return problem(`apiVersion must be specified for ${userName} to use exec authentication plugin`)
  if ((exec.env ?? []).some((e) => !e.name)) return problem(`env variable name must be specified for ${userName} to use exec authentication plugin`)
  // clientcmd's v1 defaulting: v1beta1 users that name no mode get IfAvailable; v1 users must name one
  const mode = exec.interactiveMode || (exec.apiVersion === "client.authentication.k8s.io/v1beta1" ? "IfAvailable" : "")
  if (mode === "") return problem(`interactiveMode must be specified for ${userName} to use exec authentication plugin`)
  if (!(InteractiveModes as ReadonlyArray<string>).includes(mode)) return problem(`invalid interactiveMode for ${userName}: "${mode}"`)
  if (!(ExecApiVersions as ReadonlyArray<string>).includes(exec.apiVersion)) return problem(`exec plugin: invalid apiVersion "${exec.apiVersion}"`)
  return Effect.succeed({
    // a command with a path separator is relative to the kubeconfig; a bare name is looked up in PATH
    command: exec.command.includes("/") ? nodePath.resolve(dir, exec.command) : exec.command,
    args: exec.args ?? [],
    env: (exec.env ?? []).map((e) => ({ name: e.name!, value: e.value ?? "" })),
    apiVersion: exec.apiVersion as ExecApiVersion,
    interactiveMode: mode as InteractiveMode,
    ...(exec.installHint ? { installHint: exec.installHint } : {}),
    provideClusterInfo: exec.provideClusterInfo === true
  })
}

/** Parses kubeconfig YAML text; errors carry the field path. */
export const parseKubeconfig = (file: string, text: string): Either.Either<KubeconfigFile, KubeconfigError> => {
  let value: unknown
  try {
    value = parseYaml(text) ?? {}
  } catch (e) {
    return Either.left(new KubeconfigError({ file, detail: `invalid YAML: ${(e as Error).message.split("\n")[0]}` }))
  }
  return Either.mapLeft(Schema.decodeUnknownEither(KubeconfigFile, { onExcessProperty: "ignore" })(value), (e) => {
    const first = ParseResult.ArrayFormatter.formatErrorSync(e)[0]
    const path = first ? first.path.map(String).join(".") : ""
    return new KubeconfigError({ file, detail: `${path ? `${path}: ` : ""}${first?.message ?? "invalid"}` })
  })
}

/** Reads `file` and resolves `context` (default: current-context) to client options. */
export const loadKubeconfigContext = (
  file: string,
  options: { readonly context?: string | undefined } = {}
): Effect.Effect<ResolvedKubeconfig, KubeconfigError> =>
  Effect.gen(function* () {
    const absolute = nodePath.resolve(file)
    const text = yield* Effect.tryPromise({
      try: () => readFile(absolute, "utf8"),
      catch: (e) => new KubeconfigError({ file: absolute, detail: `cannot read: ${describeError(e)}` })
    })
    const config = yield* parseKubeconfig(absolute, text)
    return yield* resolveKubeconfig(absolute, config, options)
  })

/** `--kubeconfig FILE [--context C]` → options for `ApiClient.layerHttp`. */
export const loadKubeconfig = (
  file: string,
  options: { readonly context?: string | undefined } = {}
): Effect.Effect<HttpClientOptions, KubeconfigError> => Effect.map(loadKubeconfigContext(file, options), (r) => r.client)

/**
 * Kubeconfig files (`--kubeconfig FILE [--context C]`): the server, credentials and TLS material of one
 * context, as `HttpClientOptions` for `ApiClient.layerHttp`. Follows client-go `tools/clientcmd`: relative
 * paths are relative to the file's directory, `token` wins over `tokenFile`, `*-data` fields (base64) win over
 * their path fields, and a CA together with `insecure-skip-tls-verify` is refused.
 */
import { readFile } from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Data, Effect, Either, ParseResult, Schema } from "effect"
import { parse as parseYaml } from "yaml"
import type { HttpClientOptions } from "./HttpTransport.js"

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
  password: Schema.optional(Schema.String)
}

const ContextFields = {
  cluster: Schema.String,
  user: Schema.optional(Schema.String),
  namespace: Schema.optional(Schema.String)
}

const NullableArray = <S extends Schema.Schema.Any>(item: S) => Schema.optional(Schema.NullOr(Schema.Array(item)))

/** The subset of `kind: Config` clustersim reads; unknown keys (exec, auth-provider, extensions) are ignored. */
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

/** `$KUBECONFIG` (its first entry) or `~/.kube/config`. */
export const defaultKubeconfigPath = (env: NodeJS.ProcessEnv = process.env): string => {
  const fromEnv = (env.KUBECONFIG ?? "").split(nodePath.delimiter).find((p) => p !== "")
  return fromEnv ?? nodePath.join(os.homedir(), ".kube", "config")
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

    let token = user.token
    if (!token && user.tokenFile) {
      const tokenPath = nodePath.resolve(dir, user.tokenFile)
      const text = yield* Effect.tryPromise({
        try: () => read(tokenPath),
        catch: (e) => new KubeconfigError({ file, detail: `${where("user", userName, "tokenFile")}: cannot read ${tokenPath}: ${describeError(e)}` })
      })
      token = text.trim()
      if (token === "") return yield* fail(`${where("user", userName, "tokenFile")}: ${tokenPath} is empty`)
    }
    const basic =
      !token && user.username !== undefined
        ? { authorization: `Basic ${Buffer.from(`${user.username}:${user.password ?? ""}`).toString("base64")}` }
        : undefined

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
    const client: HttpClientOptions = {
      baseUrl: server,
      ...(token ? { token } : {}),
      ...(basic ? { headers: basic } : {}),
      ...(tls ? { tls } : {})
    }
    return { file, context: contextName, ...(context.namespace ? { namespace: context.namespace } : {}), client }
  })

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

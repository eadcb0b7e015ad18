/**
 * What a run talks to: `--target embedded|in-process|URL` or a kubeconfig context (client-go's loading rules,
 * src/client/KubeconfigLoading.ts) resolved to a flag. The flag becomes a client layer in ./TargetLayer.ts.
 */
import { readFileSync } from "node:fs"
import { Effect } from "effect"
import type { HttpClientOptions } from "../../src/client/HttpTransport.js"
import { loadKubeconfigFiles, type LoadingEnvironment, processEnvironment, resolveLoadedContext } from "../../src/client/KubeconfigLoading.js"
import { inCluster, inClusterConfig, inClusterEnvironment } from "../../src/client/InClusterConfig.js"

export type TargetFlag =
  | {
      readonly _tag: "embedded"
      /** `--target embedded` was given (a cluster scenario then runs in real time, not in virtual time). */
      readonly explicit?: boolean
      /**
       * `own` (what `--target embedded` gives): the server in a process of its own (./ServerProcess.ts); `shared`
       * (the default when a caller builds the flag, e.g. tests): the server in this process, on a loopback port.
       */
      readonly serverProcess?: "own" | "shared"
    }
  | { readonly _tag: "in-process" }
  | {
      readonly _tag: "url"
      readonly options: HttpClientOptions
      readonly context?: string
      /** Where a kubeconfig context came from: `--kubeconfig`, `$KUBECONFIG` or `~/.kube/config`; or `in-cluster`. */
      readonly from?: string
      /** In a pod: its namespace (the service account's `namespace` file). */
      readonly podNamespace?: string
    }

/** Whether the target's server runs on this machine (its share of the cores is not the generator's). */
export const isLocalTarget = (t: TargetFlag): boolean =>
  t._tag !== "url" || /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:|\/|$)/.test(t.options.baseUrl)

export class RunUsageError extends Error {}

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

/** The target flags as given (each undefined when absent). */
export type TargetValues = {
  readonly target?: string | undefined
  readonly kubeconfig?: string | undefined
  readonly context?: string | undefined
} & UrlCredentialFlags

/**
 * `--target` (with its credential flags), else a kubeconfig context: `--kubeconfig FILE`, else `$KUBECONFIG`, else
 * `~/.kube/config` (client-go's loading rules), `--context` picking one of its contexts; else the embedded server.
 * An explicit `--target` (embedded and in-process too) wins over a kubeconfig found in the environment.
 * `ambient: false` (`start`): no kubeconfig unless `--kubeconfig` or `--context` asks for one. `warn` gets
 * client-go's "Config not found" line when every file `$KUBECONFIG` names is missing.
 */
export const resolveTarget = (
  values: TargetValues,
  options: { readonly env?: LoadingEnvironment; readonly ambient?: boolean; readonly warn?: (line: string) => void } = {}
) =>
  Effect.gen(function* () {
    if (values.kubeconfig !== undefined && values.target !== undefined) {
      return yield* Effect.fail(new RunUsageError("--target and --kubeconfig are mutually exclusive"))
    }
    if (values.context !== undefined && values.target !== undefined) {
      return yield* Effect.fail(new RunUsageError("--target and --context are mutually exclusive (a context comes from a kubeconfig)"))
    }
    const wantsKubeconfig = values.kubeconfig !== undefined || values.context !== undefined
    if (values.target === "in-cluster") return yield* withUrlCredentials(yield* inClusterTarget(options.warn), values)
    const target =
      values.target !== undefined || (!wantsKubeconfig && options.ambient === false)
        ? yield* parseTargetText(values.target)
        : yield* kubeconfigTarget(values.kubeconfig, values.context, options.env ?? processEnvironment(), options.warn)
    return yield* withUrlCredentials(target, values)
  })

/** The context the loading rules give, or the embedded server when they load no file and no context was asked for. */
const kubeconfigTarget = (explicit: string | undefined, context: string | undefined, env: LoadingEnvironment, warn: ((line: string) => void) | undefined) =>
  Effect.gen(function* () {
    const loaded = yield* loadKubeconfigFiles(explicit, env).pipe(Effect.mapError((e) => new RunUsageError(`${explicit !== undefined ? "--kubeconfig " : "kubeconfig "}${e.file}: ${e.detail}`)))
    if (loaded.files.length === 0) {
      // client-go's WarnIfAllMissing: the files $KUBECONFIG names are all missing
      if (loaded.source === "$KUBECONFIG") warn?.(`Config not found: ${loaded.missing.join(", ")}`)
      // clientcmd's deferred loading: no kubeconfig, but in a pod — the pod's service account (as kubectl in a pod)
      if (context === undefined && explicit === undefined && inCluster(process.env)) return yield* inClusterTarget(warn)
      if (context === undefined) return yield* parseTargetText(undefined)
      return yield* Effect.fail(
        new RunUsageError(`--context: context was not found for specified context: ${context} (no kubeconfig: no --kubeconfig, ${loaded.source === "$KUBECONFIG" ? `$KUBECONFIG names no existing file` : "$KUBECONFIG unset and no ~/.kube/config"})`)
      )
    }
    const resolved = yield* resolveLoadedContext(loaded, context, env.read).pipe(
      Effect.mapError((e) => new RunUsageError(`${loaded.source === "--kubeconfig" ? "--kubeconfig " : `kubeconfig (${loaded.source}) `}${e.file}: ${e.detail}`))
    )
    return { _tag: "url", options: resolved.client, context: resolved.context, from: loaded.source } satisfies TargetFlag as TargetFlag
  })

/** The API server of the pod this process runs in (src/client/InClusterConfig.ts). */
const inClusterTarget = (warn: ((line: string) => void) | undefined): Effect.Effect<TargetFlag, RunUsageError> =>
  Effect.map(
    Effect.mapError(inClusterConfig(inClusterEnvironment()), (e) => new RunUsageError(`--target in-cluster: ${e}`)),
    (c): TargetFlag => {
      for (const w of c.warnings) warn?.(w)
      return { _tag: "url", options: c.options, from: "in-cluster", ...(c.namespace !== undefined ? { podNamespace: c.namespace } : {}) }
    }
  )

/** The line a run prints first: which server it targets and why. */
export const describeTarget = (t: TargetFlag): string => {
  switch (t._tag) {
    case "embedded":
      return `target: embedded simulated server${t.explicit ? "" : " (no --target, no kubeconfig)"}`
    case "in-process":
      return "target: in-process simulated server"
    case "url":
      if (t.from === "in-cluster") return `target: ${t.options.baseUrl} (in-cluster: the pod's service account${t.podNamespace !== undefined ? ` in namespace ${t.podNamespace}` : ""})`
      return `target: ${t.options.baseUrl}${t.context !== undefined ? ` (context ${t.context} from ${t.from ?? "--kubeconfig"})` : " (--target)"}`
  }
}

/** `embedded`, `in-process` or an http(s) URL. */
export const parseTargetText = (text: string | undefined): Effect.Effect<TargetFlag, RunUsageError> => {
  if (text === undefined) return Effect.succeed({ _tag: "embedded", serverProcess: "own" })
  if (text === "embedded") return Effect.succeed({ _tag: "embedded", explicit: true, serverProcess: "own" })
  if (text === "in-process") return Effect.succeed({ _tag: "in-process" })
  if (/^https?:\/\//.test(text))
    // a URL that does not parse (a port out of range, a space) is the flag's error, not the run's
    return URL.canParse(text) ? Effect.succeed({ _tag: "url", options: { baseUrl: text } }) : Effect.fail(new RunUsageError(`--target: not a valid URL: "${text}"`))
  return Effect.fail(new RunUsageError(`--target: expected embedded, in-process, in-cluster or an http(s):// URL, got "${text}"`))
}

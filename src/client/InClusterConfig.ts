/**
 * The configuration of a client running in a pod, as client-go's `rest.InClusterConfig` builds it: the API server at
 * `https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT`, the service account's token file — re-read as it
 * rotates (./auth/TokenFile.ts, client-go's cached file token source) — and its `ca.crt`. The pod's namespace is the
 * `namespace` file beside them. The directory is the one kubelet mounts; `CLUSTERSIM_SERVICEACCOUNT_DIR` moves it,
 * for running the same command outside a pod (docs/distributed.md "On Kubernetes").
 */
import { Effect } from "effect"
import { join } from "node:path"
import type { HttpClientOptions } from "./HttpClientOptions.js"

/** Where kubelet mounts a pod's service-account token, CA and namespace. */
export const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

/** client-go's `ErrNotInCluster`. */
export const NotInCluster = "unable to load in-cluster configuration, KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be defined"

export interface InClusterConfig {
  readonly options: HttpClientOptions
  /** The pod's namespace, when the file is there. */
  readonly namespace?: string
  /** Read problems that did not stop the configuration (client-go logs them and goes on without a CA). */
  readonly warnings: ReadonlyArray<string>
}

export interface InClusterEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly read: (path: string) => Promise<string>
}

export const inClusterEnvironment = (): InClusterEnvironment => ({
  env: process.env,
  read: (p) => import("node:fs/promises").then((fs) => fs.readFile(p, "utf8"))
})

/** Whether this process looks like it runs in a pod (both service variables set). */
export const inCluster = (env: Readonly<Record<string, string | undefined>>): boolean => !!env.KUBERNETES_SERVICE_HOST && !!env.KUBERNETES_SERVICE_PORT

export const inClusterConfig = (e: InClusterEnvironment): Effect.Effect<InClusterConfig, string> =>
  Effect.gen(function* () {
    const host = e.env.KUBERNETES_SERVICE_HOST
    const port = e.env.KUBERNETES_SERVICE_PORT
    if (!host || !port) return yield* Effect.fail(NotInCluster)
    const dir = e.env.CLUSTERSIM_SERVICEACCOUNT_DIR || ServiceAccountDir
    const tokenFile = join(dir, "token")
    // client-go reads the token once here and fails without it; the transport then re-reads the file as it rotates
    yield* Effect.tryPromise({ try: () => e.read(tokenFile), catch: (err) => `open ${tokenFile}: ${(err as NodeJS.ErrnoException).code === "ENOENT" ? "no such file or directory" : (err as Error).message}` })
    const caFile = join(dir, "ca.crt")
    const ca = yield* Effect.either(Effect.tryPromise(() => e.read(caFile)))
    const namespace = yield* Effect.either(Effect.tryPromise(() => e.read(join(dir, "namespace"))))
    // net.JoinHostPort: an IPv6 address in brackets
    const hostPort = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`
    return {
      options: { baseUrl: `https://${hostPort}`, tokenFile, ...(ca._tag === "Right" ? { tls: { ca: ca.right } } : {}) },
      ...(namespace._tag === "Right" && namespace.right.trim() !== "" ? { namespace: namespace.right.trim() } : {}),
      warnings: ca._tag === "Left" ? [`Expected to load root CA config from ${caFile}, but got err: ${String(ca.left)}`] : []
    }
  })

/**
 * Which kubeconfig files a command reads and how they merge: client-go `tools/clientcmd/loader.go`
 * (`NewDefaultClientConfigLoadingRules`, `ClientConfigLoadingRules.Load`, `ResolveLocalPaths`).
 *
 * - `--kubeconfig FILE`: that file only; a missing one is an error.
 * - else `$KUBECONFIG` (a `:`-separated list, duplicates dropped, empty entries and missing files skipped);
 *   `~/.kube/config` is not read then, even when every listed file is missing.
 * - else `~/.kube/config` (skipped when missing).
 * Merging: the first file to name a cluster, user or context wins that name; `current-context` comes from the first
 * file that sets one. Relative paths in each file are made absolute against that file's directory before the merge.
 */
import { readFile } from "node:fs/promises"
import * as os from "node:os"
import * as nodePath from "node:path"
import { Effect, Either } from "effect"
import { KubeconfigError, type KubeconfigFile, parseKubeconfig, resolveKubeconfig, type ResolvedKubeconfig } from "./Kubeconfig.js"

/** Where the files came from, in the words a user gave them (for the "target: …" line and errors). */
export type KubeconfigSource = "--kubeconfig" | "$KUBECONFIG" | "~/.kube/config"

/** The process state the rules read; tests pass their own. */
export interface LoadingEnvironment {
  /** `$KUBECONFIG` as set (undefined or "" when unset). */
  readonly kubeconfigEnv: string | undefined
  readonly home: string
  /** Reads a file; a missing one fails with code ENOENT. */
  readonly read: (path: string) => Promise<string>
}

export const processEnvironment = (): LoadingEnvironment => ({
  kubeconfigEnv: process.env.KUBECONFIG,
  home: os.homedir(),
  read: (p) => readFile(p, "utf8")
})

/** The files the rules name, in precedence order, and where they came from. */
export const precedence = (explicit: string | undefined, env: LoadingEnvironment): { readonly source: KubeconfigSource; readonly files: ReadonlyArray<string> } => {
  if (explicit !== undefined && explicit !== "") return { source: "--kubeconfig", files: [nodePath.resolve(explicit)] }
  if (env.kubeconfigEnv !== undefined && env.kubeconfigEnv !== "") {
    const files = env.kubeconfigEnv
      .split(nodePath.delimiter)
      .filter((f) => f !== "")
      .map((f) => nodePath.resolve(f))
    return { source: "$KUBECONFIG", files: [...new Set(files)] }
  }
  return { source: "~/.kube/config", files: [nodePath.join(env.home, ".kube", "config")] }
}

/** What the rules loaded: the merged config, the files read and those skipped as missing. */
export interface LoadedKubeconfig {
  readonly source: KubeconfigSource
  readonly files: ReadonlyArray<string>
  readonly missing: ReadonlyArray<string>
  readonly config: KubeconfigFile
  /** The file each context came from (errors name it). */
  readonly contextOrigin: ReadonlyMap<string, string>
}

const isMissing = (e: unknown) => (e as NodeJS.ErrnoException)?.code === "ENOENT"
const describe = (e: unknown) => {
  const err = e as NodeJS.ErrnoException
  return err?.code ? `${err.code}${err.message ? `: ${err.message.replace(/^\w+: /, "")}` : ""}` : String(e)
}

/** `ResolveLocalPaths`: a file's relative paths (and an exec command with a `/`) against its directory. */
export const absolutePaths = (config: KubeconfigFile, file: string): KubeconfigFile => {
  const dir = nodePath.dirname(file)
  const abs = (p: string | undefined) => (p === undefined || p === "" ? p : nodePath.resolve(dir, p))
  const set = <T extends object>(o: T, k: keyof T & string, v: unknown): T => (v === undefined ? o : { ...o, [k]: v })
  return {
    ...config,
    ...(config.clusters ? { clusters: config.clusters.map((c) => ({ ...c, cluster: set(c.cluster, "certificate-authority", abs(c.cluster["certificate-authority"])) })) } : {}),
    ...(config.users
      ? {
          users: config.users.map((u) => {
            let user = u.user
            for (const k of ["client-certificate", "client-key", "tokenFile"] as const) user = set(user, k, abs(user[k]))
            if (user.exec?.command?.includes("/")) user = { ...user, exec: { ...user.exec, command: abs(user.exec.command)! } }
            return { ...u, user }
          })
        }
      : {})
  }
}

/** `Load`'s merge: the first file to set a name wins it; current-context from the first file that sets it. */
export const mergeKubeconfigs = (loaded: ReadonlyArray<{ readonly file: string; readonly config: KubeconfigFile }>): { config: KubeconfigFile; contextOrigin: Map<string, string> } => {
  const firstByName = <E extends { readonly name: string }>(pick: (c: KubeconfigFile) => ReadonlyArray<E> | null | undefined, origin?: Map<string, string>) => {
    const seen = new Map<string, E>()
    for (const { file, config } of loaded)
      for (const e of pick(config) ?? [])
        if (!seen.has(e.name)) {
          seen.set(e.name, e)
          origin?.set(e.name, file)
        }
    return [...seen.values()]
  }
  const contextOrigin = new Map<string, string>()
  const current = loaded.map((l) => l.config["current-context"]).find((c) => c !== undefined && c !== "")
  return {
    config: {
      ...(current !== undefined ? { "current-context": current } : {}),
      clusters: firstByName((c) => c.clusters),
      users: firstByName((c) => c.users),
      contexts: firstByName((c) => c.contexts, contextOrigin)
    },
    contextOrigin
  }
}

/** Reads and merges the files the rules name. */
export const loadKubeconfigFiles = (explicit: string | undefined, env: LoadingEnvironment): Effect.Effect<LoadedKubeconfig, KubeconfigError> =>
  Effect.gen(function* () {
    const { source, files } = precedence(explicit, env)
    const loaded: Array<{ file: string; config: KubeconfigFile }> = []
    const missing: Array<string> = []
    for (const file of files) {
      const text = yield* Effect.tryPromise({ try: () => env.read(file), catch: (e) => e }).pipe(
        Effect.map(Either.right),
        Effect.catchAll((e) =>
          isMissing(e) && source !== "--kubeconfig" ? Effect.succeed(Either.left(file)) : Effect.fail(new KubeconfigError({ file, detail: `cannot read: ${describe(e)}` }))
        )
      )
      if (Either.isLeft(text)) {
        missing.push(text.left)
        continue
      }
      const config = yield* parseKubeconfig(file, text.right)
      loaded.push({ file, config: absolutePaths(config, file) })
    }
    const merged = mergeKubeconfigs(loaded)
    return { source, files: loaded.map((l) => l.file), missing, config: merged.config, contextOrigin: merged.contextOrigin }
  })

/** One context (default: the merged current-context) of what the rules loaded. */
export const resolveLoadedContext = (
  loaded: LoadedKubeconfig,
  context: string | undefined,
  read?: (path: string) => Promise<string>
): Effect.Effect<ResolvedKubeconfig, KubeconfigError> => {
  const name = context ?? loaded.config["current-context"]
  const file = (name !== undefined ? loaded.contextOrigin.get(name) : undefined) ?? loaded.files.join(nodePath.delimiter)
  return resolveKubeconfig(file, loaded.config, { context, ...(read ? { read } : {}) })
}

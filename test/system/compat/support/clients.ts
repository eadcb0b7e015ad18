/**
 * What the compatibility suite drives: every kubectl on the machine (one per version), the official Python client
 * (`/usr/bin/python3` with Debian's `python3-kubernetes`), the official Node client (its own package with node@22),
 * and a simulated server on a loopback port: with the admin endpoints (compaction) on, or as `serve --tls` with RBAC.
 */
import { execFile, execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, realpathSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Exit, Scope } from "effect"
import { ApiServer } from "../../../../simulator/apiserver/ApiServer.js"
import { generatePki, writeKubeconfig, type GeneratedPki } from "../../../../simulator/apiserver/auth/Certificates.js"
import type { TokenTable } from "../../../../simulator/apiserver/auth/TokenFile.js"
import { serveHttp } from "../../../../simulator/apiserver/HttpServer.js"

export interface Kubectl {
  readonly path: string
  /** `1.32`, from `kubectl version --client`. */
  readonly version: string
}

const kubectlCandidates = (): ReadonlyArray<string> => {
  const sdk = "/usr/lib/google-cloud-sdk/bin"
  const inSdk = existsSync(sdk) ? readdirSync(sdk).filter((f) => /^kubectl(\.\d+\.\d+)?$/.test(f)).map((f) => `${sdk}/${f}`) : []
  return ["/usr/bin/kubectl", "/usr/local/bin/kubectl", ...inSdk].filter((p) => existsSync(p))
}

const versionOf = (path: string): string | undefined => {
  try {
    const out = JSON.parse(execFileSync(path, ["version", "--client", "-o", "json"], { encoding: "utf8", timeout: 10_000 })) as {
      clientVersion: { major: string; minor: string }
    }
    return `${out.clientVersion.major}.${out.clientVersion.minor.replace(/\D+$/, "")}`
  } catch {
    return undefined
  }
}

/** Every kubectl found, one per client version, oldest first. */
export const findKubectls = (): ReadonlyArray<Kubectl> => {
  const byVersion = new Map<string, Kubectl>()
  const seen = new Set<string>()
  for (const candidate of kubectlCandidates()) {
    const real = realpathSync(candidate)
    if (seen.has(real)) continue
    seen.add(real)
    const version = versionOf(candidate)
    if (version !== undefined && !byVersion.has(version)) byVersion.set(version, { path: candidate, version })
  }
  return [...byVersion.values()].sort((a, b) => Number(a.version.split(".")[1]) - Number(b.version.split(".")[1]))
}

export interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

export const run = (file: string, args: ReadonlyArray<string>, timeout = 30_000): Promise<Ran> =>
  new Promise((resolve) =>
    execFile(file, args, { timeout, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
      resolve({ code: error ? (typeof error.code === "number" ? error.code : -1) : 0, stdout, stderr })
    )
  )

export const python = "/usr/bin/python3"
export const node22 = fileURLToPath(new URL("../client-node/node_modules/node/bin/node", import.meta.url))
export const compatDir = fileURLToPath(new URL("..", import.meta.url))

/** A simulated server on a free loopback port until `close`. */
export const startServer = async (): Promise<{ readonly url: string; readonly close: () => Promise<void> }> => {
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(
    Scope.extend(Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: true }), (s) => s.url), scope).pipe(Effect.provide(ApiServer.layer({})))
  )
  return { url, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

export interface TlsRbacServer {
  readonly url: string
  /** The generated CA, serving and admin certificates, in a new directory of their own (`pki.dir`). */
  readonly pki: GeneratedPki
  /** The kubeconfig of the generated admin client certificate (`system:masters`), beside the certificates. */
  readonly adminConfig: string
  readonly close: () => Promise<void>
}

/**
 * `serve --tls` with RBAC on a free loopback port until `close`: anonymous requests off, these bearer tokens, the
 * certificates generated in a new temporary directory named from `prefix`.
 */
export const startTlsRbacServer = async (prefix: string, tokens: TokenTable): Promise<TlsRbacServer> => {
  const pki = await Effect.runPromise(generatePki(mkdtempSync(path.join(tmpdir(), prefix)), "127.0.0.1"))
  const scope = Effect.runSync(Scope.make())
  const url = await Effect.runPromise(
    Scope.extend(Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: false, tls: pki.tls }), (s) => s.url), scope).pipe(
      Effect.provide(ApiServer.layer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens } }))
    )
  )
  const adminConfig = await Effect.runPromise(writeKubeconfig(url, pki))
  return { url, pki, adminConfig, close: () => Effect.runPromise(Scope.close(scope, Exit.void)) }
}

/** A JSON request to the server (the suite's own seeding, not under test). */
export const call = async (url: string, method: string, path: string, body?: unknown): Promise<any> => {
  const res = await fetch(url + path, { method, headers: { "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text ? JSON.parse(text) : undefined
}

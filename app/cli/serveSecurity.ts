/**
 * `serve`'s security flags into the server's settings: HTTPS (`--tls` with a generated PKI, or given files),
 * authentication (`--client-ca-file`, `--token-auth-file`, `--anonymous-auth`) and authorization
 * (`--authorization-mode`). Defaults keep the loopback quick start open: plain HTTP, anonymous on, AlwaysAllow
 * (docs/auth.md).
 */
import { Effect } from "effect"
import { mkdtemp, readFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { isIPv4 } from "node:net"
import * as path from "node:path"
import { Either } from "effect"
import { defaultAuthentication, type AuthenticationConfig } from "../../simulator/apiserver/auth/Authenticator.js"
import { generatePki, type GeneratedPki, type ServingTls } from "../../simulator/apiserver/auth/Certificates.js"
import { authorizationModes, type AuthorizationMode } from "../../simulator/apiserver/auth/Authorizer.js"
import { parseTokenFile } from "../../simulator/apiserver/auth/TokenFile.js"
import { FlagError } from "./flags.js"

export interface SecurityFlags {
  readonly tls: boolean
  readonly certDir: string | undefined
  readonly tlsCertFile: string | undefined
  readonly tlsPrivateKeyFile: string | undefined
  readonly clientCaFile: string | undefined
  readonly tokenAuthFile: string | undefined
  readonly anonymousAuth: string
  readonly authorizationMode: string
}

export interface ServeSecurity {
  readonly tls: ServingTls | undefined
  /** The generated PKI of `--tls` (its kubeconfig is written once the port is known). */
  readonly pki: GeneratedPki | undefined
  readonly authentication: AuthenticationConfig
  readonly authorizationMode: AuthorizationMode
}

const readText = (flag: string, file: string) =>
  Effect.tryPromise({ try: () => readFile(file, "utf8"), catch: (e) => new FlagError(`${flag}: cannot read "${file}": ${(e as Error).message}`) })

const parseBool = (flag: string, text: string): Effect.Effect<boolean, FlagError> =>
  /^(true|1|t|T|TRUE|True)$/.test(text)
    ? Effect.succeed(true)
    : /^(false|0|f|F|FALSE|False)$/.test(text)
      ? Effect.succeed(false)
      : Effect.fail(new FlagError(`invalid argument "${text}" for "${flag}" flag: strconv.ParseBool: parsing "${text}": invalid syntax`))

/** 127.0.0.0/8, ::1 and localhost: only this machine can connect. */
export const isLoopbackHost = (host: string): boolean =>
  host === "localhost" || host === "::1" || (isIPv4(host) && host.startsWith("127.")) || /^::ffff:127\./i.test(host)

/**
 * The warning `serve` prints when anyone who can reach it may do anything: bound beyond loopback with anonymous
 * requests on and AlwaysAllow (the quick start's defaults, safe only on loopback; docs/auth.md).
 */
export const openAccessWarning = (host: string, security: Pick<ServeSecurity, "authentication" | "authorizationMode">): string | undefined =>
  isLoopbackHost(host) || !security.authentication.anonymous || security.authorizationMode !== "AlwaysAllow"
    ? undefined
    : `clustersim: warning: serving on ${host} with anonymous requests allowed everything (--anonymous-auth=true, --authorization-mode=AlwaysAllow): anyone who can reach this address can read, change and delete every object. Add --authorization-mode=RBAC or --anonymous-auth=false with --token-auth-file or --client-ca-file (docs/auth.md).`

export const resolveServeSecurity = (host: string, f: SecurityFlags): Effect.Effect<ServeSecurity, FlagError> =>
  Effect.gen(function* () {
    if ((f.tlsCertFile === undefined) !== (f.tlsPrivateKeyFile === undefined))
      return yield* Effect.fail(new FlagError("--tls-cert-file and --tls-private-key-file must be given together"))
    if (f.tls && f.tlsCertFile !== undefined) return yield* Effect.fail(new FlagError("--tls generates a certificate: do not combine it with --tls-cert-file"))
    if (!f.tls && f.tlsCertFile === undefined && f.clientCaFile !== undefined)
      return yield* Effect.fail(new FlagError("--client-ca-file needs HTTPS: add --tls or --tls-cert-file/--tls-private-key-file"))
    if (!f.tls && f.certDir !== undefined) return yield* Effect.fail(new FlagError("--cert-dir is where --tls writes its certificates: add --tls"))
    if (!authorizationModes.includes(f.authorizationMode as AuthorizationMode))
      return yield* Effect.fail(new FlagError(`--authorization-mode: unknown mode "${f.authorizationMode}", supported: ${authorizationModes.join(", ")}`))
    const anonymous = yield* parseBool("--anonymous-auth", f.anonymousAuth)
    let tokens = defaultAuthentication.tokens
    if (f.tokenAuthFile !== undefined) {
      const parsed = parseTokenFile(f.tokenAuthFile, yield* readText("--token-auth-file", f.tokenAuthFile))
      if (Either.isLeft(parsed)) return yield* Effect.fail(new FlagError(`--token-auth-file: ${parsed.left}`))
      tokens = parsed.right
    }
    let pki: GeneratedPki | undefined
    let tls: ServingTls | undefined
    if (f.tls) {
      const dir = f.certDir ?? (yield* Effect.promise(() => mkdtemp(path.join(tmpdir(), "clustersim-pki-"))))
      pki = yield* Effect.mapError(generatePki(dir, host), (e) => new FlagError(`--tls: ${e.message}`))
      tls = f.clientCaFile === undefined ? pki.tls : { ...pki.tls, clientCa: `${pki.tls.clientCa}\n${yield* readText("--client-ca-file", f.clientCaFile)}` }
    } else if (f.tlsCertFile !== undefined && f.tlsPrivateKeyFile !== undefined) {
      const cert = yield* readText("--tls-cert-file", f.tlsCertFile)
      const key = yield* readText("--tls-private-key-file", f.tlsPrivateKeyFile)
      const clientCa = f.clientCaFile === undefined ? undefined : yield* readText("--client-ca-file", f.clientCaFile)
      tls = { cert, key, ...(clientCa !== undefined ? { clientCa } : {}) }
    }
    return { tls, pki, authentication: { anonymous, tokens }, authorizationMode: f.authorizationMode as AuthorizationMode }
  })

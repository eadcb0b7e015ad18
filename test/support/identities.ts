/**
 * A server with authentication and authorization on, and clients acting as chosen identities over either transport:
 * `in-process` (credentials handed to the in-process client) or `http` (HTTPS with the test PKI: bearer tokens in
 * the header, client certificates at the handshake).
 */
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import * as path from "node:path"
import { Context, Effect, Layer, type Scope } from "effect"
import { ApiServer, type ApiServerConfig, type ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { generatePki, issueClientCertificate, type GeneratedPki } from "../../simulator/apiserver/auth/Certificates.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { ApiClient, type ApiClientService } from "../../src/client/ApiClient.js"

export type IdentityTransport = "in-process" | "http"
export const identityTransports: ReadonlyArray<IdentityTransport> = ["in-process", "http"]

/** Who a client is: a bearer token, a client certificate's CN and O, or nothing (anonymous). */
export type Identity = { readonly token: string } | { readonly user: string; readonly groups: ReadonlyArray<string> } | "anonymous"

let sharedPki: Promise<GeneratedPki> | undefined
/** One PKI for the test process (openssl takes a moment per certificate). */
export const testPki = (): Promise<GeneratedPki> =>
  (sharedPki ??= Effect.runPromise(generatePki(mkdtempSync(path.join(tmpdir(), "clustersim-test-pki-")), "127.0.0.1")))

const certificates = new Map<string, Promise<{ cert: string; key: string }>>()
const certificateFor = (pki: GeneratedPki, user: string, groups: ReadonlyArray<string>) => {
  const key = `${user}|${groups.join(",")}`
  let cert = certificates.get(key)
  if (!cert) certificates.set(key, (cert = Effect.runPromise(issueClientCertificate(pki, user, groups))))
  return cert
}

export interface AuthServer {
  readonly server: ApiServerImpl
  /** The HTTPS base URL (http transport only). */
  readonly url: string | undefined
  readonly ca: string | undefined
  readonly clientAs: (identity: Identity) => Effect.Effect<ApiClientService, never, Scope.Scope>
}

/** A fresh server with `config` (in the current scope) and a way to make clients as identities. */
export const authServer = (transport: IdentityTransport, config: Partial<ApiServerConfig>): Effect.Effect<AuthServer, never, Scope.Scope> =>
  Effect.gen(function* () {
    const context = yield* Layer.build(ApiServer.layer(config))
    const server = Context.get(context, ApiServer)
    if (transport === "in-process") {
      return {
        server,
        url: undefined,
        ca: undefined,
        clientAs: (identity) =>
          Effect.succeed(
            inProcessClient(
              server,
              identity === "anonymous"
                ? {}
                : "token" in identity
                  ? { authorization: `Bearer ${identity.token}` }
                  : { clientCertificate: { commonName: identity.user, organizations: identity.groups, verified: true } }
            )
          )
      }
    }
    const pki = yield* Effect.promise(testPki)
    const running = yield* Effect.provide(Effect.orDie(serveHttp({ host: "127.0.0.1", port: 0, admin: false, tls: pki.tls })), context)
    const ca = readFileSync(pki.caFile, "utf8")
    return {
      server,
      url: running.url,
      ca,
      clientAs: (identity) =>
        Effect.gen(function* () {
          const tls =
            identity !== "anonymous" && "user" in identity ? { ca, ...(yield* Effect.promise(() => certificateFor(pki, identity.user, identity.groups))) } : { ca }
          const token = identity !== "anonymous" && "token" in identity ? identity.token : undefined
          return Context.get(yield* Layer.build(ApiClient.layerHttp({ baseUrl: running.url, tls, ...(token ? { token } : {}) })), ApiClient)
        })
    }
  })

/**
 * A modelled exec plugin that answers with a service-account token from the server's TokenRequest API, as
 * `kubectl create token <account> --duration …` wrapped in an ExecCredential would: each run asks for a fresh
 * token and passes on its expiry, so the exec authenticator caches it until then and asks again on a 401. The
 * embedded target gives the load generator its credentials this way when a scenario expires tokens.
 */
import { Effect } from "effect"
import type { ApiClientService } from "../ApiClient.js"
import type { ResourceType } from "../../api/Resources.js"
import { CredentialError } from "./Credential.js"
import { ExecApiVersions } from "./ExecCredential.js"
import type { ExecRunner } from "./ExecPlugin.js"

export interface TokenRequestPluginOptions {
  /** Makes the TokenRequests (an identity allowed to create `serviceaccounts/token`). */
  readonly api: ApiClientService
  readonly serviceAccounts: ResourceType
  readonly namespace: string
  readonly serviceAccount: string
  readonly expirationSeconds: number
}

export const tokenRequestRunner =
  (o: TokenRequestPluginOptions): ExecRunner =>
  () =>
    o.api
      .create(
        o.serviceAccounts,
        { apiVersion: "authentication.platform/v1", kind: "TokenRequest", metadata: { name: o.serviceAccount }, spec: { expirationSeconds: o.expirationSeconds } },
        { namespace: o.namespace, subresource: "token" }
      )
      .pipe(
        Effect.map((r) => {
          const status = (r.object as { status?: { token?: string; expirationTimestamp?: string } }).status ?? {}
          return JSON.stringify({
            kind: "ExecCredential",
            apiVersion: ExecApiVersions[0],
            status: { token: status.token, ...(status.expirationTimestamp ? { expirationTimestamp: status.expirationTimestamp } : {}) }
          })
        }),
        Effect.mapError((e) => new CredentialError({ message: `exec: TokenRequest for ${o.namespace}/${o.serviceAccount}: ${e.message}` }))
      )

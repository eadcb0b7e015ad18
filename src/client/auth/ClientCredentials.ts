/**
 * Which credential source a client's settings give, in client-go's order (`transport.HTTPWrappersForConfig`,
 * `exec.Authenticator.UpdateTransportConfig`): a token or token file first; an exec plugin only when neither a
 * token nor a client certificate is set; none at all otherwise (a client certificate alone needs no source).
 */
import type { CredentialSource } from "./Credential.js"
import { staticToken } from "./Credential.js"
import { execCredentialSource, type ExecSourceOptions } from "./ExecAuthenticator.js"
import { tokenFileSource } from "./TokenFile.js"

export interface ClientCredentialSettings {
  /** Bearer token (kubeconfig `token`, `--token`). */
  readonly token?: string
  /** Kubeconfig `tokenFile`: re-read every 50 s; `token`, if set too, is used only while the file cannot be read. */
  readonly tokenFile?: string
  /** Kubeconfig `exec`: a credential plugin. */
  readonly exec?: ExecSourceOptions
  /** Whether a client certificate is configured (kubeconfig `client-certificate(-data)`). */
  readonly hasClientCertificate?: boolean
}

export const credentialSourceFor = (s: ClientCredentialSettings): CredentialSource | undefined => {
  if (s.tokenFile) return tokenFileSource({ path: s.tokenFile, ...(s.token ? { fallback: s.token } : {}) })
  if (s.token) return staticToken(s.token)
  if (s.exec && !s.hasClientCertificate) return execCredentialSource(s.exec)
  return undefined
}

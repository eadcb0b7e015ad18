/**
 * HTTPS serving: the node `https` server options for a serving certificate and an optional client CA. Client
 * certificates are asked for but never required at the handshake (upstream's `tls.VerifyClientCertIfGiven`):
 * a request without one goes on to token or anonymous authentication, and one that fails verification is
 * refused by the authenticator with a 401 rather than a TLS alert.
 */
import type * as https from "node:https"
import type { ServingTls } from "../auth/Certificates.js"

export const tlsServerOptions = (tls: ServingTls): https.ServerOptions => ({
  cert: tls.cert,
  key: tls.key,
  ...(tls.clientCa !== undefined ? { ca: tls.clientCa, requestCert: true, rejectUnauthorized: false } : {}),
  // Upstream serves TLS 1.2 and later (`--tls-min-version` default VersionTLS12).
  minVersion: "TLSv1.2"
})

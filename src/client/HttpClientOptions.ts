/**
 * How an HTTP client reaches its server: URL, credentials, TLS, connections, encoding, and the counter of its bytes.
 * Read by the transport (`HttpTransport.ts`), the probes made before a run (`Probe.ts`) and `ApiClient.layerHttp`.
 */
import type { CredentialSource } from "./auth/Credential.js"
import type { ExecSourceOptions } from "./auth/ExecAuthenticator.js"
import type { WireEncoding } from "./WireEncoding.js"

export interface HttpClientOptions {
  /** `http://127.0.0.1:6443` or `https://…`. */
  readonly baseUrl: string
  readonly headers?: Readonly<Record<string, string>>
  /** Bearer token (kubeconfig `token`, `--token`). */
  readonly token?: string
  /** Kubeconfig `tokenFile`, re-read as client-go does (`src/client/auth/TokenFile.ts`). */
  readonly tokenFile?: string
  /** Kubeconfig `exec`: a credential plugin (`src/client/auth/ExecAuthenticator.ts`). */
  readonly exec?: ExecSourceOptions
  /**
   * The credential source itself, for a caller that must reach it (the `expire-tokens` step); wins over `token`,
   * `tokenFile` and `exec`.
   */
  readonly credentials?: CredentialSource
  /** TLS material, PEM. */
  readonly tls?: { readonly ca?: string; readonly cert?: string; readonly key?: string; readonly insecureSkipVerify?: boolean }
  /** Connections per origin (default 64). */
  readonly connections?: number
  /** Counts bytes sent and received (bodies), for the load generator's health report. */
  readonly traffic?: TrafficCounter
  /** `protobuf` asks for the protobuf envelope (JSON fallback) and sends object bodies in it (default `json`). */
  readonly encoding?: WireEncoding
}

export interface TrafficCounter {
  bytesIn: number
  bytesOut: number
}

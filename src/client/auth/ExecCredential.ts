/**
 * The exec credential plugin protocol (`client.authentication.k8s.io` ExecCredential, v1 and v1beta1): what a
 * kubeconfig's `exec` user says, the `KUBERNETES_EXEC_INFO` the plugin is given, and its answer decoded with
 * client-go's checks and error texts (`plugin/pkg/client/auth/exec/exec.go`, `refreshCredsLocked`).
 */
import { X509Certificate, createPrivateKey } from "node:crypto"
import { Either, ParseResult, Schema } from "effect"
import { CredentialError, type Credential } from "./Credential.js"

export const ExecApiVersions = ["client.authentication.k8s.io/v1", "client.authentication.k8s.io/v1beta1"] as const
export type ExecApiVersion = (typeof ExecApiVersions)[number]
export const InteractiveModes = ["Never", "IfAvailable", "Always"] as const
export type InteractiveMode = (typeof InteractiveModes)[number]

/** A kubeconfig `exec` user, validated (relative commands already resolved against the kubeconfig's directory). */
export interface ExecConfig {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly env: ReadonlyArray<{ readonly name: string; readonly value: string }>
  readonly apiVersion: ExecApiVersion
  readonly interactiveMode: InteractiveMode
  readonly installHint?: string
  /** Pass the cluster (`spec.cluster`) to the plugin. */
  readonly provideClusterInfo: boolean
}

/** `spec.cluster` of the ExecCredential a plugin is given when `provideClusterInfo` is set. */
export interface ExecClusterInfo {
  readonly server: string
  readonly "certificate-authority-data"?: string
  readonly "insecure-skip-tls-verify"?: boolean
  readonly config?: unknown
}

/** The `KUBERNETES_EXEC_INFO` value: an ExecCredential with only its spec. */
export const execInfo = (config: ExecConfig, interactive: boolean, cluster: ExecClusterInfo | undefined): string =>
  JSON.stringify({
    kind: "ExecCredential",
    apiVersion: config.apiVersion,
    spec: { ...(config.provideClusterInfo && cluster ? { cluster } : {}), interactive }
  })

/** What a plugin answered: the credential, and until when it may be cached (none: until a 401). */
export interface ExecAnswer {
  readonly credential: Credential
  readonly expiresAt?: number
}

const ExecCredentialStatus = Schema.Struct({
  expirationTimestamp: Schema.optional(Schema.String),
  token: Schema.optional(Schema.String),
  clientCertificateData: Schema.optional(Schema.String),
  clientKeyData: Schema.optional(Schema.String)
})
const ExecCredentialOutput = Schema.Struct({ status: Schema.optional(Schema.NullOr(ExecCredentialStatus)) })

const fail = (message: string) => Either.left(new CredentialError({ message }))

/** An RFC 3339 time as Go's `time.Parse(time.RFC3339, …)` takes it (fraction allowed, an offset required). */
const parseRfc3339 = (text: string): number | undefined =>
  /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : undefined

/** The plugin's stdout as client-go decodes and checks it; the error texts are client-go's. */
export const decodeExecOutput = (config: ExecConfig, stdout: string): Either.Either<ExecAnswer, CredentialError> => {
  let value: unknown
  try {
    value = JSON.parse(stdout)
  } catch (e) {
    return fail(`decoding stdout: couldn't get version/kind; json parse error: ${(e as Error).message}`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return fail(`decoding stdout: couldn't get version/kind; json parse error: not an object`)
  const { kind, apiVersion } = value as { kind?: unknown; apiVersion?: unknown }
  if (typeof kind !== "string" || kind === "") return fail(`decoding stdout: Object 'Kind' is missing in '${stdout.trim()}'`)
  if (typeof apiVersion !== "string" || apiVersion === "") return fail(`decoding stdout: Object 'apiVersion' is missing in '${stdout.trim()}'`)
  if (!(ExecApiVersions as ReadonlyArray<string>).includes(apiVersion) || kind !== "ExecCredential")
    return fail(`decoding stdout: no kind "${kind}" is registered for version "${apiVersion}" in scheme`)
  if (apiVersion !== config.apiVersion) return fail(`exec plugin is configured to use API version ${config.apiVersion}, plugin returned version ${apiVersion}`)
  const decoded = Schema.decodeUnknownEither(ExecCredentialOutput)(value)
  if (Either.isLeft(decoded)) {
    const first = ParseResult.ArrayFormatter.formatErrorSync(decoded.left)[0]
    return fail(`decoding stdout: ${first ? `${first.path.join(".")}: ${first.message}` : "invalid"}`)
  }
  const status = decoded.right.status
  if (!status) return fail("exec plugin didn't return a status field")
  const token = status.token ?? ""
  const cert = status.clientCertificateData ?? ""
  const key = status.clientKeyData ?? ""
  if (token === "" && cert === "" && key === "") return fail("exec plugin didn't return a token or cert/key pair")
  if ((cert === "") !== (key === "")) return fail("exec plugin returned only certificate or key, not both")
  let expiresAt: number | undefined
  if (status.expirationTimestamp !== undefined) {
    expiresAt = parseRfc3339(status.expirationTimestamp)
    if (expiresAt === undefined || Number.isNaN(expiresAt))
      return fail(`decoding stdout: parsing time "${status.expirationTimestamp}" as RFC 3339: cannot parse`)
  }
  if (cert !== "") {
    // client-go: tls.X509KeyPair, so a plugin's bad pair fails here rather than in every TLS handshake
    try {
      if (!new X509Certificate(cert).checkPrivateKey(createPrivateKey(key))) return fail("failed parsing client key/certificate: private key does not match public key")
    } catch (e) {
      return fail(`failed parsing client key/certificate: ${(e as Error).message}`)
    }
  }
  return Either.right({
    credential: { ...(token !== "" ? { token } : {}), ...(cert !== "" ? { clientCertificate: { cert, key } } : {}) },
    ...(expiresAt !== undefined ? { expiresAt } : {})
  })
}

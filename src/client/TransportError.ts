/**
 * A request that got no answer: refused, reset, closed, timed out, a failed TLS handshake or DNS lookup, or no
 * credential to send it with. Modelled on @effect/platform's `HttpClientError.RequestError` (reason `Transport`,
 * `Encode`, `InvalidUrl`) beside its `ResponseError`, which here is `ApiError`: the Status a server answered.
 * client-go keeps the two apart the same way — a round-tripper's `*url.Error` is no `*StatusError`, so
 * `apierrors.IsServiceUnavailable` is false for a refused connection — and so does this client: a 503 is only ever
 * one a server sent.
 */
import { Data } from "effect"
import type { ApiError } from "../api/Status.js"

export class TransportError extends Data.TaggedError("TransportError")<{
  readonly reason: "Transport" | "Encode" | "InvalidUrl"
  /**
   * The server the request went to (scheme, host, port): a failure's text stays one per target, whatever the path.
   * Empty for a client without a URL (in-process).
   */
  readonly url: string
  /** What happened, in words: `connection refused`, `connection reset (ECONNRESET)`, `TLS: …`. */
  readonly description: string
  /** The system's or undici's code when there is one: `ECONNREFUSED`, `UND_ERR_SOCKET`, `DEPTH_ZERO_SELF_SIGNED_CERT`. */
  readonly errorCode?: string
  readonly cause?: unknown
}> {
  /** `connection refused: http://127.0.0.1:7999` — what the run's summary and artifact say. */
  override get message(): string {
    return this.url === "" ? this.description : `${this.description}: ${this.url}`
  }
}

/** What a client request fails with: the server's answer (a Status), or no answer at all. */
export type ClientError = ApiError | TransportError

export const isTransportError = (e: unknown): e is TransportError =>
  typeof e === "object" && e !== null && (e as { _tag?: unknown })._tag === "TransportError"

/** TLS failures by their Node/OpenSSL codes (node `tls`, OpenSSL `x509_txt.c`). */
const tlsCodes = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_SIGNATURE_FAILURE",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "ERR_SSL_WRONG_VERSION_NUMBER",
  "ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE",
  "ERR_SSL_SSLV3_ALERT_CERTIFICATE_UNKNOWN",
  "ERR_SSL_TLSV1_ALERT_UNKNOWN_CA"
])

/** Words for a code, as Go's net package says them where it has them (`connection refused`, `no such host`). */
const describe = (code: string | undefined, message: string): string => {
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused"
    case "ECONNRESET":
      return message.includes("TLS") ? `TLS handshake failed: ${message}` : "connection reset (ECONNRESET)"
    case "UND_ERR_SOCKET":
      return `connection closed (${message})`
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `no such host (${code})`
    case "ETIMEDOUT":
    case "UND_ERR_CONNECT_TIMEOUT":
      return "connection timed out"
    case "UND_ERR_HEADERS_TIMEOUT":
      return "timeout awaiting response headers"
    case "UND_ERR_BODY_TIMEOUT":
      return "timeout reading the response body"
    case "EHOSTUNREACH":
      return "no route to host"
    case "ENETUNREACH":
      return "network is unreachable"
    case "EPIPE":
      return "broken pipe (EPIPE)"
  }
  if (code !== undefined && (tlsCodes.has(code) || code.startsWith("ERR_SSL_") || code.startsWith("ERR_TLS_"))) return `TLS: ${message} (${code})`
  return code !== undefined && !message.includes(code) ? `${message} (${code})` : message
}

/** The code of an undici or Node error, looking through an `AggregateError` (each address family tried) and `cause`. */
const codeOf = (e: unknown): { readonly code: string | undefined; readonly message: string } => {
  if (!(e instanceof Error)) return { code: undefined, message: String(e) }
  const own = (e as { code?: unknown }).code
  if (typeof own === "string") return { code: own, message: e.message }
  const inner = (e as { errors?: ReadonlyArray<unknown> }).errors?.[0] ?? (e as { cause?: unknown }).cause
  return inner !== undefined ? codeOf(inner) : { code: undefined, message: e.message }
}

/** The origin of a URL (`http://127.0.0.1:7999`), or the text as given when it does not parse. */
export const originOf = (url: string): string => {
  try {
    return new URL(url).origin
  } catch {
    return url
  }
}

/** A request to `url` that failed without an answer: `e` is what undici or Node threw. */
export const transportFailure = (url: string, e: unknown): TransportError => {
  const { code, message } = codeOf(e)
  // a URL that does not parse never left the client: platform's reason InvalidUrl, the text as given
  if (code === "ERR_INVALID_URL") return new TransportError({ reason: "InvalidUrl", url, description: "invalid URL", errorCode: code, cause: e })
  return new TransportError({ reason: "Transport", url: originOf(url), description: describe(code, message), ...(code !== undefined ? { errorCode: code } : {}), cause: e })
}

/** Whether `e` is the server's answer with this HTTP status (a request without an answer has none). */
export const hasStatusCode = (e: ClientError, code: number): e is ApiError => e._tag === "ApiError" && e.status.code === code

/** A failure's key where failures are counted by kind: the HTTP status, or what happened to a request without an answer. */
export const failureKey = (e: ClientError): string => (e._tag === "ApiError" ? String(e.status.code ?? 500) : e.description)

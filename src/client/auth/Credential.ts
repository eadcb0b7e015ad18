/**
 * What authenticates a client's requests, the way client-go's transport wrappers do it
 * (`k8s.io/client-go/transport`, `plugin/pkg/client/auth/exec`): a source hands out the credential for the next
 * request and hears of every 401 a credential of its got. Sources: a static token (`StaticToken.ts`), a token
 * file re-read periodically (`TokenFile.ts`), an exec credential plugin (`ExecAuthenticator.ts`).
 */
import { Context, Data, Effect } from "effect"
import { type ClientError, originOf, TransportError } from "../TransportError.js"

export interface Credential {
  /** A bearer token for the `Authorization` header. */
  readonly token?: string
  /** A client certificate and its key (PEM), as an exec plugin may return them. */
  readonly clientCertificate?: { readonly cert: string; readonly key: string }
}

/** A source that could not produce a credential (an unreadable token file, a failing plugin); the text is client-go's. */
export class CredentialError extends Data.TaggedError("CredentialError")<{ readonly message: string }> {}

export interface CredentialSource {
  /** The credential for the next request. */
  readonly current: Effect.Effect<Credential, CredentialError>
  /** A request sent with `used` was answered 401. */
  readonly unauthorized: (used: Credential) => Effect.Effect<void>
  /**
   * The credential held now goes stale: from now on it is `expired`, a token the server refuses, until the source
   * replaces it the way its client-go counterpart would — never for a static token, at the next periodic re-read
   * for a token file, on the first 401 (or the cached answer's expiry) for an exec plugin. The client side of the
   * scenario step `expire-tokens`.
   */
  readonly expireHeld: (expired: string) => Effect.Effect<void>
  /** How the source gets its credentials, for reports: `token`, `tokenFile`, `exec`. */
  readonly kind: string
  /** Credentials fetched so far: file reads, plugin runs. */
  readonly loads: () => number
}

/** The credential source of the run's client, for the steps that act on it (`expire-tokens`). */
export class Credentials extends Context.Tag("clustersim/Credentials")<Credentials, CredentialSource>() {}

/**
 * A request made without an answer because no credential could be had: client-go fails the round trip with
 * `getting credentials: …` before anything is sent (exec.go's `RoundTrip`), a transport failure like a refused
 * connection; `url` is the target's (empty in process).
 */
export const credentialFailure = (e: CredentialError, url = ""): TransportError =>
  new TransportError({ reason: "Transport", url: url === "" ? "" : originOf(url), description: `getting credentials: ${e.message}`, cause: e })

/**
 * One request under a credential source: the credential it goes out with, and the source told of a 401 answer
 * (client-go does not retry the request; the caller sees the 401).
 */
export const withCredential = <A, R>(
  source: CredentialSource,
  send: (credential: Credential) => Effect.Effect<A, ClientError, R>,
  url = ""
): Effect.Effect<A, ClientError, R> =>
  Effect.flatMap(Effect.mapError(source.current, (e) => credentialFailure(e, url)), (credential) =>
    Effect.tapError(send(credential), (e) => (e._tag === "ApiError" && e.status.code === 401 ? source.unauthorized(credential) : Effect.void))
  )

/** A token given as it is (kubeconfig `token`, `--token`): client-go's bearerAuthRoundTripper has nothing to reload. */
export const staticToken = (token: string): CredentialSource => {
  let held: Credential = { token }
  return {
    kind: "token",
    current: Effect.sync(() => held),
    unauthorized: () => Effect.void,
    expireHeld: (expired) => Effect.sync(() => void (held = { token: expired })),
    loads: () => 0
  }
}

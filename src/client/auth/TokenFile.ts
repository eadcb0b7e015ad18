/**
 * A token file (kubeconfig `tokenFile`), read the way client-go reads it: `NewCachedFileTokenSource` caches the
 * file's trimmed content for a minute, less a 10 s leeway, so a rotated file (a projected service-account token)
 * is picked up within 50 s. A failed re-read keeps the token held; with nothing held the kubeconfig's inline
 * `token` is used (`bearerAuthRoundTripper`). A 401 does not force a re-read: the kubeconfig transport
 * (`NewBearerAuthWithRefreshRoundTripper`) never resets its source — only the period does.
 */
import { Clock, Effect } from "effect"
import { readFile } from "node:fs/promises"
import { CredentialError, type Credential, type CredentialSource } from "./Credential.js"

/** client-go `NewCachedFileTokenSource`: period 1 m, leeway 10 s. */
export const TokenFilePeriodMs = 60_000
export const TokenFileLeewayMs = 10_000

export interface TokenFileOptions {
  readonly path: string
  /** The kubeconfig's inline `token`, used while the file cannot be read and nothing is held. */
  readonly fallback?: string
  /** Reads the file (default: the file system). */
  readonly read?: (path: string) => Effect.Effect<string, Error>
}

const readFromDisk = (path: string) => Effect.tryPromise({ try: () => readFile(path, "utf8"), catch: (e) => e as Error })

/** client-go `fileTokenSource.Token`: the trimmed content, an empty file an error. */
const readToken = (options: TokenFileOptions): Effect.Effect<string, CredentialError> =>
  (options.read ?? readFromDisk)(options.path).pipe(
    Effect.mapError((e) => new CredentialError({ message: `failed to read token file "${options.path}": ${e.message}` })),
    Effect.flatMap((text) => {
      const token = text.trim()
      return token === "" ? Effect.fail(new CredentialError({ message: `read empty token from file "${options.path}"` })) : Effect.succeed(token)
    })
  )

export const tokenFileSource = (options: TokenFileOptions): CredentialSource => {
  let held: { credential: Credential; expiry: number } | undefined
  let reads = 0
  const current = Effect.flatMap(Clock.currentTimeMillis, (now) => {
    if (held && held.expiry - TokenFileLeewayMs > now) return Effect.succeed(held.credential)
    reads++
    return readToken(options).pipe(
      Effect.map((token) => {
        held = { credential: { token }, expiry: now + TokenFilePeriodMs }
        return held.credential
      }),
      Effect.catchAll((e) =>
        held ? Effect.succeed(held.credential) : options.fallback ? Effect.succeed<Credential>({ token: options.fallback }) : Effect.fail(e)
      )
    )
  })
  return {
    kind: "tokenFile",
    current,
    unauthorized: () => Effect.void,
    expireHeld: (expired) =>
      Effect.sync(() => {
        if (held) held = { credential: { token: expired }, expiry: held.expiry }
      }),
    loads: () => reads
  }
}

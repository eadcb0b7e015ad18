/**
 * The `expire-tokens` failure step and what it measures (docs/scenarios.md "Expired tokens"). Server side, the
 * tokens the simulated server issued expire (its admin hook); client side, against any server, the credential
 * the generator's client holds is swapped for one the server refuses, and the client recovers as client-go would
 * (`src/client/auth`: a static token never, a token file at its next re-read, an exec plugin on the first 401).
 *
 * Every action's client is observed: its 401 answers, the time from the expiry to its first 401 and to the first
 * success of a request sent after the expiry, and the requests lost — a load action's 401 is an operation given
 * up (client-go does not retry it); informers and watchers retry theirs, so they lose none, they only wait.
 */
import { Clock, Effect, Stream } from "effect"
import type { ApiError } from "../api/Status.js"
import type { ApiClientService } from "../client/ApiClient.js"
import type { CredentialSource } from "../client/auth/Credential.js"
import type { ServerAdminService } from "../client/ServerAdmin.js"
import type { Action } from "./Scenario.js"

/** One client's figures around the last expiry; times in ms from the expiry. */
export interface TokenRecovery {
  /** 401 answers (also any before the expiry). */
  readonly unauthorized: number
  readonly firstUnauthorizedMs?: number
  /** The first success of a request sent at or after the expiry; absent while the client has not recovered. */
  readonly recoveredMs?: number
  /** Requests given up on a 401. */
  readonly lost: number
}

interface ClientState {
  unauthorized: number
  lost: number
  firstUnauthorizedAt?: number
  recoveredAt?: number
}

/** Actions whose clients retry what a 401 refused (reflectors); the others lose each refused request. */
const retrying: ReadonlyArray<Action["type"]> = ["informers", "watch", "expire-continue-token"]

export class TokenExpiry {
  /** When the last `expire-tokens` step acted (Clock ms). */
  private expiredAt: number | undefined
  private readonly clients = new Map<string, ClientState>()

  /** `api` as `client` sees it, observed. The in-process fast path (`at`) is left out so every request is seen. */
  observe(api: ApiClientService, client: string, type: Action["type"]): ApiClientService {
    const state: ClientState = this.clients.get(client) ?? { unauthorized: 0, lost: 0 }
    this.clients.set(client, state)
    const losesRefused = !retrying.includes(type)
    const refused = (now: number) => {
      state.unauthorized++
      if (losesRefused) state.lost++
      if (this.expiredAt !== undefined && state.firstUnauthorizedAt === undefined) state.firstUnauthorizedAt = now
    }
    const succeeded = (sentAt: number) => {
      if (this.expiredAt !== undefined && state.recoveredAt === undefined && sentAt >= this.expiredAt) state.recoveredAt = sentAt
    }
    const seen = <A>(request: Effect.Effect<A, ApiError>): Effect.Effect<A, ApiError> =>
      Effect.flatMap(Clock.currentTimeMillis, (sentAt) =>
        Effect.tapBoth(request, {
          onFailure: (e) => (e.status.code === 401 ? Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => refused(now))) : Effect.void),
          onSuccess: () => Effect.sync(() => succeeded(sentAt))
        })
      )
    return {
      get: (...args) => seen(api.get(...args)),
      list: (...args) => seen(api.list(...args)),
      create: (...args) => seen(api.create(...args)),
      update: (...args) => seen(api.update(...args)),
      patch: (...args) => seen(api.patch(...args)),
      delete: (...args) => seen(api.delete(...args)),
      deleteCollection: (...args) => seen(api.deleteCollection(...args)),
      // a watch succeeds with its first event; one refused fails before it
      watch: (...args) =>
        Stream.unwrap(
          Effect.map(Clock.currentTimeMillis, (sentAt) => {
            let first = true
            return api.watch(...args).pipe(
              Stream.tap(() => (first ? ((first = false), Effect.sync(() => succeeded(sentAt))) : Effect.void)),
              Stream.tapError((e) => (e.status.code === 401 ? Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => refused(now))) : Effect.void))
            )
          })
        )
    }
  }

  /** Marks the expiry: the figures of every client start again from now. */
  markExpired(at: number): void {
    this.expiredAt = at
    for (const state of this.clients.values()) {
      delete state.firstUnauthorizedAt
      delete state.recoveredAt
    }
  }

  /** The figures of `client`, once a token expired. */
  report(client: string): TokenRecovery | undefined {
    const state = this.clients.get(client)
    if (this.expiredAt === undefined || !state) return undefined
    const expiredAt = this.expiredAt
    return {
      unauthorized: state.unauthorized,
      ...(state.firstUnauthorizedAt !== undefined ? { firstUnauthorizedMs: state.firstUnauthorizedAt - expiredAt } : {}),
      ...(state.recoveredAt !== undefined ? { recoveredMs: state.recoveredAt - expiredAt } : {}),
      lost: state.lost
    }
  }
}

/** What the step needs from the target: the admin hook (server side) or the client's credential source (client side). */
export interface ExpireTokensTarget {
  readonly admin: ServerAdminService | undefined
  readonly credentials: CredentialSource | undefined
}

export class ExpireTokensUnsupported extends Error {}

/** Carries out one `expire-tokens` step now; `counts` gets what it did. */
export const expireTokens = (
  a: Extract<Action, { type: "expire-tokens" }>,
  target: ExpireTokensTarget,
  expiry: TokenExpiry,
  expiredToken: string,
  counts: Record<string, number>
): Effect.Effect<void, ApiError | ExpireTokensUnsupported> =>
  Effect.gen(function* () {
    if ((a.side ?? "client") === "server") {
      const hook = target.admin?.expireTokens
      if (!hook) return yield* Effect.fail(new ExpireTokensUnsupported(`side: server needs a simulated server that issues tokens (target embedded, in-process, or \`clustersim serve --admin\`)`))
      counts.expiredTokens = yield* hook
    } else {
      if (!target.credentials)
        return yield* Effect.fail(
          new ExpireTokensUnsupported("side: client needs a client with credentials (--token, or a kubeconfig user with a token, tokenFile or exec plugin)")
        )
      yield* target.credentials.expireHeld(expiredToken)
      counts.credentialsExpired = 1
    }
    expiry.markExpired(yield* Clock.currentTimeMillis)
  })

/**
 * The `expire-tokens` failure step and what it measures (docs/scenarios.md "Expired tokens"). Server side, the
 * tokens the simulated server issued expire (its admin hook); client side, against any server, the credential
 * the generator's client holds is swapped for one the server refuses, and the client recovers as client-go would
 * (`src/client/auth`: a static token never, a token file at its next re-read, an exec plugin on the first 401).
 *
 * Every action's client is observed: its 401 answers since the expiry, the time from the expiry to its first 401
 * and to the first success of a request sent after the expiry once it was refused, and the requests lost — a load action's 401 is an operation given
 * up (client-go does not retry it); informers and watchers retry theirs, so they lose none, they only wait.
 */
import { Clock, Effect, Stream } from "effect"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { transform } from "../../src/client/Transform.js"
import { type ClientError, hasStatusCode } from "../../src/client/TransportError.js"
import type { CredentialSource } from "../../src/client/auth/Credential.js"
import type { ServerAdminService } from "../../src/client/ServerAdmin.js"
import { LatencyRecorder, type MetricKey } from "../../src/loadgen/LatencyRecorder.js"
import type { TokenRecovery } from "../../src/loadgen/Artifact.js"
import type { Action } from "./Scenario.js"

export const TokenRecoveryKey: MetricKey = { metric: "token_recovery", operation: "AUTH", resource: "credentials", scope: "client" }

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

  /** `api` as `client` sees it, observed (`transform`: its fast paths are left out, so every request is seen). */
  observe(api: ApiClientService, client: string, type: Action["type"]): ApiClientService {
    const state: ClientState = this.clients.get(client) ?? { unauthorized: 0, lost: 0 }
    this.clients.set(client, state)
    const losesRefused = !retrying.includes(type)
    const refused = (now: number) => {
      state.unauthorized++
      if (losesRefused) state.lost++
      if (this.expiredAt !== undefined && state.firstUnauthorizedAt === undefined) state.firstUnauthorizedAt = now
    }
    // a success counts once the client was refused: before that nothing needed recovering
    const succeeded = (sentAt: number) => {
      if (this.expiredAt !== undefined && state.firstUnauthorizedAt !== undefined && state.recoveredAt === undefined && sentAt >= this.expiredAt)
        state.recoveredAt = sentAt
    }
    const seen = <A>(request: Effect.Effect<A, ClientError>): Effect.Effect<A, ClientError> =>
      Effect.flatMap(Clock.currentTimeMillis, (sentAt) =>
        Effect.tapBoth(request, {
          onFailure: (e) => (hasStatusCode(e, 401) ? Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => refused(now))) : Effect.void),
          onSuccess: () => Effect.sync(() => succeeded(sentAt))
        })
      )
    // a watch succeeds with its first event; one refused fails before it
    return transform(api, {
      request: (_call, send) => seen(send()),
      watchStream: (_call, stream) =>
        Stream.unwrap(
          Effect.map(Clock.currentTimeMillis, (sentAt) => {
            let first = true
            return stream.pipe(
              Stream.tap(() => (first ? ((first = false), Effect.sync(() => succeeded(sentAt))) : Effect.void)),
              Stream.tapError((e) => (hasStatusCode(e, 401) ? Effect.flatMap(Clock.currentTimeMillis, (now) => Effect.sync(() => refused(now))) : Effect.void))
            )
          })
        )
    })
  }

  /** Marks the expiry: the figures of every client start again from now. */
  markExpired(at: number): void {
    this.expiredAt = at
    for (const state of this.clients.values()) {
      state.unauthorized = 0
      state.lost = 0
      delete state.firstUnauthorizedAt
      delete state.recoveredAt
    }
  }

  /**
   * The figures of `client`; for a client refused since the expiry also a `token_recovery` sample (tagged with
   * the action): the time from the expiry to its recovery, or a failed sample while it has not recovered — so
   * thresholds can judge them (`latency{metric:token_recovery}`, `errors{metric:token_recovery}`).
   */
  recordRecovery(client: string): Effect.Effect<TokenRecovery | undefined, never, LatencyRecorder> {
    const report = this.report(client)
    const expiredAt = this.expiredAt
    if (!report || expiredAt === undefined || report.firstUnauthorizedMs === undefined) return Effect.succeed(report)
    return Effect.gen(function* () {
      const recorder = yield* LatencyRecorder
      const completedAt = report.recoveredMs !== undefined ? expiredAt + report.recoveredMs : yield* Clock.currentTimeMillis
      yield* recorder.record(TokenRecoveryKey, { intendedStart: expiredAt, sentAt: expiredAt, completedAt, ok: report.recoveredMs !== undefined, model: "closed" })
      return report
    })
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
): Effect.Effect<void, ClientError | ExpireTokensUnsupported> =>
  Effect.gen(function* () {
    if ((a.side ?? "client") === "server") {
      const hook = target.admin?.expireTokens
      if (!hook) return yield* Effect.fail(new ExpireTokensUnsupported(`side: server needs a simulated server that issues tokens (target embedded, in-process, or \`clustersim serve --admin\`)`))
      // marked when the step acts: a request refused while the hook's answer travels back counts already
      expiry.markExpired(yield* Clock.currentTimeMillis)
      const done = yield* hook(a.dropWatches === true)
      counts.expiredTokens = done.expired
      if (a.dropWatches) counts.droppedWatches = done.dropped
      return
    }
    if (!target.credentials)
      return yield* Effect.fail(
        new ExpireTokensUnsupported("side: client needs a client with credentials (--token, or a kubeconfig user with a token, tokenFile or exec plugin)")
      )
    if (a.dropWatches && !target.admin) return yield* Effect.fail(new ExpireTokensUnsupported("dropWatches needs the simulated server's admin hooks"))
    expiry.markExpired(yield* Clock.currentTimeMillis)
    yield* target.credentials.expireHeld(expiredToken)
    counts.credentialsExpired = 1
    // a request refused in between may already have the client fetch a new token: the informers may then be spared
    if (a.dropWatches && target.admin) counts.droppedWatches = yield* target.admin.dropWatches
  })

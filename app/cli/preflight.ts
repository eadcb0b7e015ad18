/**
 * What a run checks of its target before the first phase, so that a run that cannot succeed ends at once instead of
 * after its full length:
 *
 * - the scenario's needs against the target's credentials (exit 2, invalid input): `expire-tokens` needs a client
 *   whose token can expire and be fetched again — an exec plugin or a token file — not a client certificate, a
 *   static token or none (docs/scenarios.md "Expired tokens");
 * - a `replay` action's logs hold a request to send (exit 2, invalid input): a replay of an empty or all-garbage log
 *   sends nothing and would pass (docs/replay.md "Bad input");
 * - whether the target answers at all (exit 1, run error): `src/client/TargetProbe.ts`.
 *
 * Simulated targets (embedded, in-process) pass both: this process starts their server and issues the generator's
 * tokens (./generatorCredentials.ts).
 */
import { Effect, Either } from "effect"
import { probeTarget } from "../../src/client/TargetProbe.js"
import type { HttpClientOptions } from "../../src/client/HttpClientOptions.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { formatPath } from "../scenario/load.js"
import type { Scenario } from "../scenario/Scenario.js"
import type { TargetFlag } from "./target.js"

export interface PreflightFailure {
  readonly exitCode: typeof ExitCode.InvalidInput | typeof ExitCode.RunError
  /** The line to print, without the `clustersim: ` prefix. */
  readonly message: string
}

/** The `expire-tokens` steps of a scenario, by path: `phases[0].actions[4] (expire-tokens side: server)`. */
const expireTokensSteps = (scenario: Scenario): ReadonlyArray<string> =>
  scenario.phases.flatMap((p, pi) =>
    p.actions.flatMap((a, ai) => (a.type === "expire-tokens" ? [`${formatPath(["phases", pi, "actions", ai])} (expire-tokens side: ${a.side ?? "client"})`] : []))
  )

/**
 * How the client authenticates, in the order client-go picks a source (src/client/auth/ClientCredentials.ts), and
 * whether that credential can expire and be fetched again.
 */
export const credentialKindOf = (o: HttpClientOptions): { readonly text: string; readonly refreshable: boolean } => {
  if (o.credentials !== undefined) return { text: `a ${o.credentials.kind} credential source`, refreshable: o.credentials.kind !== "token" }
  if (o.tokenFile) return { text: `a token file (${o.tokenFile})`, refreshable: true }
  if (o.token) return { text: "a static bearer token (kubeconfig token or --token), which client-go never fetches again", refreshable: false }
  if (o.exec && o.tls?.cert === undefined) return { text: `an exec credential plugin (${o.exec.config.command})`, refreshable: true }
  if (o.tls?.cert !== undefined) return { text: "a client certificate, which has no token to expire or fetch again", refreshable: false }
  return { text: "no credentials (anonymous requests)", refreshable: false }
}

const whereFrom = (t: Extract<TargetFlag, { _tag: "url" }>): string =>
  t.context !== undefined ? `context ${t.context} from ${t.from ?? "--kubeconfig"}` : "--target and its flags"

/** A scenario that expires the client's tokens against a target whose credentials cannot be refreshed: why, or nothing. */
export const credentialMismatch = (scenario: Scenario, t: TargetFlag): string | undefined => {
  if (t._tag !== "url") return undefined
  const steps = expireTokensSteps(scenario)
  if (steps.length === 0) return undefined
  const kind = credentialKindOf(t.options)
  if (kind.refreshable) return undefined
  return (
    `${steps.join(", ")}: expiring tokens needs a client whose token can expire and be fetched again — an exec credential ` +
    `plugin (\`clustersim serve --tls --kubeconfig-auth token\` writes such a kubeconfig) or a token file; ` +
    `the target's user (${whereFrom(t)}) authenticates with ${kind.text}`
  )
}

/** Whether the target answers: the transport's error (`connection refused: URL`) when it does not. */
export const unreachable = (t: TargetFlag): Effect.Effect<string | undefined> => {
  if (t._tag !== "url") return Effect.succeed(undefined)
  const { baseUrl, token, tls } = t.options
  return Effect.map(Effect.either(probeTarget({ baseUrl, ...(token ? { token } : {}), ...(tls ? { tls } : {}) })), (r) =>
    Either.isLeft(r) ? `cannot reach the target: ${r.left.message}` : undefined
  )
}

/**
 * A `replay` action whose logs hold no request to send (empty, all bad input, all filtered out): why, or nothing. A
 * replay of them would send nothing and pass (src/replay/Replay.ts `nothingToReplay`).
 */
export const emptyReplay = (scenario: Scenario): Effect.Effect<string | undefined> =>
  Effect.gen(function* () {
    const replays = scenario.phases.flatMap((p, pi) => p.actions.flatMap((a, ai) => (a.type === "replay" ? [{ a, path: ["phases", pi, "actions", ai], phase: p }] : [])))
    if (replays.length === 0) return undefined
    // the replay's reader only for a scenario that replays
    const { nothingToReplay } = yield* Effect.promise(() => import("../../src/replay/Replay.js"))
    const { replayConfigOf } = yield* Effect.promise(() => import("../scenario/ReplayAction.js"))
    const { ms } = yield* Effect.promise(() => import("../scenario/Run.js"))
    for (const r of replays) {
      const why = yield* nothingToReplay(replayConfigOf(r.a, ms(r.phase.duration, 0)))
      if (why !== undefined) return `${formatPath(r.path)} (replay): ${why}`
    }
    return undefined
  })

/** The checks, the scenario's first (it is invalid input whether or not the target is up). */
export const preflight = (scenario: Scenario, t: TargetFlag): Effect.Effect<PreflightFailure | undefined> =>
  Effect.gen(function* () {
    const mismatch = credentialMismatch(scenario, t)
    if (mismatch !== undefined) return { exitCode: ExitCode.InvalidInput, message: mismatch }
    const empty = yield* emptyReplay(scenario)
    if (empty !== undefined) return { exitCode: ExitCode.InvalidInput, message: empty }
    const down = yield* unreachable(t)
    return down !== undefined ? { exitCode: ExitCode.RunError, message: down } : undefined
  })

/**
 * Running a decoded scenario: setup, then phases in sequence, the actions of a phase in parallel.
 * Everything goes through `ApiClient` and the Effect `Clock`, so the same code runs in real time
 * (embedded / in-process / URL targets) and inside a simulated cluster on virtual time.
 */
import { Data, Duration, Effect, Either, Option } from "effect"
import { parseDuration } from "../../src/api/go/Duration.js"
import type { KList } from "../../src/api/Object.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { hasVariants } from "../../src/client/Capabilities.js"
import type { TrafficCounter } from "../../src/client/HttpTransport.js"
import { type ExecutionSegment, runsOnce, shareOf, wholeRun } from "../../src/loadgen/ExecutionSegment.js"
import type { ServerAdminService } from "../../src/client/ServerAdmin.js"
import { closedLoop, constantArrivalRate, rampingArrivalRate } from "../../src/loadgen/Arrival.js"
import { LatencyRecorder, nowMillis, withTags } from "../../src/loadgen/LatencyRecorder.js"
import {
  keyOf,
  makeOperation,
  namespaceFor,
  objectFromTemplate,
  errorText,
  Progress,
  resolveRequest,
  resourceOf,
  seededRandom,
  setNamePrefix,
  WriteLog,
  type RunEnv
} from "./Operations.js"
import type { Action, Phase, Scenario } from "./Scenario.js"
import { actionName, serverSideFailures } from "./Scenario.js"
import type { ActionReport } from "../../src/loadgen/Artifact.js"
import { startInformers } from "./Informers.js"
import { runWatchers } from "./Watchers.js"
import { WatchListClient } from "../../src/informer/WatchListClient.js"
import { formatPath } from "./load.js"
import { replayConfigOf } from "./ReplayAction.js"
import { expireTokens, TokenExpiry } from "./TokenExpiry.js"
import type { CredentialSource } from "../../src/client/auth/Credential.js"
import { type ClientError, hasStatusCode } from "../../src/client/TransportError.js"

export class ScenarioRunError extends Data.TaggedError("ScenarioRunError")<{ readonly message: string }> {}

/** A scenario that cannot run against this target (server-side failure steps on a real server). */
export class UnsupportedOnTarget extends Data.TaggedError("UnsupportedOnTarget")<{ readonly message: string }> {}

export const ms = (d: string | undefined, fallback: number): number => {
  if (d === undefined) return fallback
  const p = parseDuration(d)
  return Either.isRight(p) ? p.right : fallback
}

export interface RunState {
  readonly progress: Progress
  readonly actions: Array<ActionReport>
  readonly startedAtMs: number
  /** Observes the actions' clients around `expire-tokens` steps. */
  readonly tokenExpiry: TokenExpiry
}

export { actionName }

/** Names the failure steps that need a simulated server, for a target without admin hooks. */
export const checkTargetSupports = (scenario: Scenario, hasAdmin: boolean): Either.Either<void, UnsupportedOnTarget> => {
  if (hasAdmin) return Either.right(undefined)
  const bad: Array<string> = []
  scenario.phases.forEach((p, pi) =>
    p.actions.forEach((a, ai) => {
      const serverSide =
        serverSideFailures.includes(a.type) ||
        (a.type === "expire-continue-token" && a.compact === true) ||
        (a.type === "expire-tokens" && (a.side === "server" || a.dropWatches === true))
      const detail =
        a.type === "expire-continue-token" ? " with compact" : a.type === "expire-tokens" ? (a.side === "server" ? " side: server" : " with dropWatches") : ""
      if (serverSide) bad.push(`${formatPath(["phases", pi, "actions", ai])} (${a.type}${detail})`)
    })
  )
  return bad.length === 0
    ? Either.right(undefined)
    : Either.left(
        new UnsupportedOnTarget({
          message:
            `these failure steps need the simulated server's admin hooks (target embedded, in-process, or the URL of a \`clustersim serve --admin\`; ` +
            `this target has no /clustersim/ admin endpoints): ${bad.join(", ")}`
        })
      )
}

// ---------------------------------------------------------------------------------------------
// Setup
// ---------------------------------------------------------------------------------------------

const ignoreExists = <A, R>(e: Effect.Effect<A, ClientError, R>) =>
  Effect.catchIf(e, (err) => hasStatusCode(err, 409), () => Effect.void)

/** The progress phase between a setup run on its own and the first phase: the load has not begun. */
export const SetupDone = "setup done"

/** Where the errors of setup's namespace creates are counted (`Progress.error`). */
export const SetupNamespacesErrors = "setup namespaces"

/**
 * A setup step whose creates did not all succeed: the phases would measure a server without what setup makes, so
 * the run ends there, as k6 aborts a test whose `setup()` throws (`outcome.requireSetup: false` goes on instead).
 */
export class SetupFailed extends Data.TaggedError("SetupFailed")<{ readonly message: string }> {}

/** Counts a setup step's failed creates, keeping the first error's text. */
class SetupTally {
  attempted = 0
  failed = 0
  first: string | undefined
  fail(where: string, e: unknown): void {
    this.failed++
    this.first ??= `${where}: ${errorText(e)}`
  }
}

/** Fails when the step just run left creates undone and the scenario requires its setup (the default). */
const requireSetupStep = (env: RunEnv, tally: SetupTally): Effect.Effect<void, SetupFailed> =>
  tally.failed === 0 || env.scenario.outcome?.requireSetup === false
    ? Effect.void
    : Effect.fail(new SetupFailed({ message: `setup failed: ${tally.failed} of ${tally.attempted} creates failed, the first: ${tally.first}; the phases did not run` }))

const runSetup = (env: RunEnv) =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    const setup = env.scenario.setup
    if (!setup) return
    env.progress.phase = "setup"
    // counted down as creates are answered (created or failed): what is left when the run stops was never done
    env.progress.setupUnfinished = (setup.namespaces?.length ?? 0) + (setup.objects ?? []).reduce((n, set) => n + set.count, 0)
    const answered = Effect.sync(() => void env.progress.setupUnfinished--)
    const tally = new SetupTally()
    const namespaces = resourceOf("namespaces")
    for (const ns of setup.namespaces ?? []) {
      tally.attempted++
      yield* ignoreExists(api.create(namespaces, { metadata: { name: ns } })).pipe(
        Effect.catchAll((e) =>
          Effect.sync(() => {
            env.progress.error(SetupNamespacesErrors, e)
            tally.fail(`namespace ${ns}`, e)
          })
        ),
        Effect.zipRight(answered)
      )
    }
    yield* requireSetupStep(env, tally)
    for (const set of setup.objects ?? []) {
      if (set.count === 0) continue
      const resource = resourceOf(set.resource)
      const namespace = namespaceFor(resource, set.namespace)
      const key = { metric: "setup", operation: "POST", resource: resource.plural, scope: "resource" }
      const operation = (ctx: { iteration: number; markSent: Effect.Effect<void> }) =>
        Effect.zipRight(
          ctx.markSent,
          ignoreExists(api.create(resource, objectFromTemplate(set.template, `${setNamePrefix(set)}${ctx.iteration}`, namespace), { namespace }))
        ).pipe(
          Effect.tap(() => Effect.sync(() => void env.progress.ops++)),
          Effect.tapError((e) =>
            Effect.sync(() => {
              env.progress.error(`setup ${set.name}`, e)
              tally.fail(`${set.name} #${ctx.iteration}`, e)
            })
          ),
          Effect.tapBoth({ onSuccess: () => answered, onFailure: () => answered })
        )
      const concurrency = set.concurrency ?? 16
      const recorder = yield* LatencyRecorder
      yield* (set.rate === undefined
        ? closedLoop({ key, operation, workers: concurrency, iterations: set.count })
        : constantArrivalRate({
            key,
            operation,
            rate: set.rate,
            duration: Duration.millis(Math.ceil((set.count * 1000) / set.rate)),
            // a setup object must not be dropped: the cap only guards against a dead server
            maxInFlight: Math.max(concurrency, set.count),
            endsWithPlan: true
          })
      ).pipe(Effect.orDie, Effect.provideService(LatencyRecorder, withTags(recorder, { name: set.name, phase: "setup" })))
      tally.attempted += set.count
      yield* requireSetupStep(env, tally)
    }
  })

// ---------------------------------------------------------------------------------------------
// Actions
// ---------------------------------------------------------------------------------------------

const GRACEFUL_STOP_MS = 5_000

const runLoadAction = (env: RunEnv, phase: Phase, a: Action, name: string, counts: Record<string, number>) =>
  Effect.gen(function* () {
    if (a.type !== "constant-arrival-rate" && a.type !== "ramping-arrival-rate" && a.type !== "closed") return undefined
    const resolved = resolveRequest(env.scenario, a.request)
    const key = keyOf(resolved)
    // names of created objects carry the phase: two phases may have actions of the same name
    const operation = makeOperation(env, resolved, `${phase.name}-${name}`, counts)
    const phaseMs = ms(phase.duration, 0)
    const gracefulStop = Duration.millis(GRACEFUL_STOP_MS)
    const segment = env.segment
    const run =
      a.type === "constant-arrival-rate"
        ? constantArrivalRate({
            key,
            operation,
            gracefulStop,
            segment,
            rate: a.rate,
            timeUnit: Duration.millis(ms(a.timeUnit, 1000)),
            duration: Duration.millis(ms(a.duration, phaseMs)),
            maxInFlight: a.maxInFlight ?? 100
          })
        : a.type === "ramping-arrival-rate"
          ? rampingArrivalRate({
              key,
              operation,
              gracefulStop,
              segment,
              startRate: a.startRate ?? 0,
              timeUnit: Duration.millis(ms(a.timeUnit, 1000)),
              stages: a.stages.map((s) => ({ target: s.target, duration: Duration.millis(ms(s.duration, 0)) })),
              maxInFlight: a.maxInFlight ?? 100
            })
          : closedLoop({
              key,
              operation,
              gracefulStop,
              segment,
              workers: a.workers,
              iterations: a.iterations,
              duration: a.iterations !== undefined && a.duration === undefined ? undefined : Duration.millis(ms(a.duration, phaseMs))
            })
    // over HTTP the action has a client of its own encoding, counting the action's bytes (the connections are shared)
    const api = yield* ApiClient
    const traffic: TrafficCounter = { bytesIn: 0, bytesOut: 0 }
    const own = hasVariants(api) ? api.variant({ encoding: a.request.encoding ?? "json", traffic }) : undefined
    const report = yield* run.pipe(
      Effect.mapError((e) => new ScenarioRunError({ message: e.message })),
      own ? Effect.provideService(ApiClient, own) : (e) => e
    )
    if (own) {
      counts.bytesIn = traffic.bytesIn
      counts.bytesOut = traffic.bytesOut
    }
    return report
  })

/** List page 1, wait past the history window (optionally compacting), follow the token: expect 410. */
const runSlowPager = (
  env: RunEnv,
  a: Extract<Action, { type: "expire-continue-token" }>,
  name: string,
  admin: ServerAdminService | undefined,
  counts: Record<string, number>
) =>
  Effect.gen(function* () {
    const api = yield* ApiClient
    const recorder = yield* LatencyRecorder
    const resource = resourceOf(a.resource)
    const namespace = namespaceFor(resource, a.namespace)
    const scope = namespace === undefined ? "cluster" : "namespace"
    const timed = <A, E, R>(metric: string, e: Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        const t0 = yield* nowMillis
        const exit = yield* Effect.either(e)
        const t1 = yield* nowMillis
        yield* recorder.record({ metric, operation: "LIST", resource: resource.plural, scope }, {
          intendedStart: t0,
          sentAt: t0,
          completedAt: t1,
          ok: Either.isRight(exit),
          model: "closed"
        })
        return exit
      })
    for (let i = 0; i < (a.repeat ?? 1); i++) {
      const first = yield* timed("paged_list", api.list(resource, { namespace, limit: a.limit ?? 50 }))
      if (Either.isLeft(first)) {
        env.progress.error(name, first.left)
        continue
      }
      const token = first.right.metadata?.continue
      if (!token) {
        counts.singlePage = (counts.singlePage ?? 0) + 1
        continue
      }
      yield* Effect.sleep(Duration.millis(ms(a.pageDelay, 0)))
      if (a.compact && admin) {
        yield* admin.compact.pipe(Effect.catchAll((e) => Effect.sync(() => env.progress.error(name, e))))
        counts.compactions = (counts.compactions ?? 0) + 1
      }
      let cont: string | undefined = token
      while (cont) {
        const page: Either.Either<KList, ClientError> = yield* Effect.either(api.list(resource, { namespace, limit: a.limit ?? 50, continue: cont }))
        if (Either.isRight(page)) {
          cont = page.right.metadata?.continue || undefined
          continue
        }
        if (hasStatusCode(page.left, 410)) {
          counts.expired = (counts.expired ?? 0) + 1
          // client-go FullListIfExpired: one unpaginated list instead of the rest of the pages
          const full = yield* timed("full_list_after_expiry", api.list(resource, { namespace }))
          if (Either.isLeft(full)) env.progress.error(name, full.left)
        } else env.progress.error(name, page.left)
        cont = undefined
      }
      env.progress.ops++
    }
  })

const runFailure = (env: RunEnv, a: Action, name: string, admin: ServerAdminService | undefined, counts: Record<string, number>) =>
  Effect.gen(function* () {
    if (!admin) return yield* Effect.fail(new UnsupportedOnTarget({ message: `${name}: "${a.type}" needs the simulated server's admin hooks` }))
    const step =
      a.type === "compact"
        ? Effect.map(admin.compact, (rev) => void (counts.compactedRevision = rev))
        : a.type === "drop-watches"
          ? Effect.map(admin.dropWatches, (n) => void (counts.droppedWatches = (counts.droppedWatches ?? 0) + n))
          : a.type === "pause"
            ? admin.pause(Duration.millis(ms(a.for, 0)))
            : Effect.void
    yield* step.pipe(Effect.catchAll((e) => Effect.sync(() => env.progress.error(name, e))))
    counts.executed = (counts.executed ?? 0) + 1
  })

const atOf = (a: Action): number => ("at" in a ? ms(a.at, 0) : 0)

const runPhase = (env: RunEnv, state: RunState, phase: Phase, admin: ServerAdminService | undefined, credentials: CredentialSource | undefined) =>
  Effect.gen(function* () {
    env.progress.phase = phase.name
    env.progress.phaseStartedAt = yield* nowMillis
    const phaseMs = ms(phase.duration, 0)
    const untilPhaseEnd = <A, E, R>(e: Effect.Effect<A, E, R>) => Effect.raceFirst(Effect.asVoid(e), Effect.sleep(Duration.millis(phaseMs)))
    const recorder = yield* LatencyRecorder
    const api = yield* ApiClient
    const observed = hasExpireTokens(env.scenario)
    yield* Effect.forEach(
      phase.actions.map((a, i) => [a, i] as const),
      ([a, i]) =>
        Effect.gen(function* () {
          const name = actionName(a, i)
          const counts: Record<string, number> = {}
          const client = `${phase.name}/${name}`
          const tokens = Effect.map(
            Effect.suspend(() => state.tokenExpiry.recordRecovery(client)),
            (report) => (report ? { tokens: report } : {})
          )
          const base = { phase: phase.name, action: name, type: a.type }
          switch (a.type) {
            case "constant-arrival-rate":
            case "ramping-arrival-rate":
            case "closed": {
              const executor = yield* runLoadAction(env, phase, a, name, counts)
              state.actions.push({ ...base, ...(executor ? { executor } : {}), ...(Object.keys(counts).length > 0 ? { counts } : {}), ...(yield* tokens) })
              return
            }
            case "watch":
              if (shareOf(a.count, env.segment) === 0) return
              yield* untilPhaseEnd(runWatchers(env, { ...a, count: shareOf(a.count, env.segment) }, name, counts))
              state.actions.push({ ...base, counts, ...(yield* tokens) })
              return
            case "informers":
              if (shareOf(a.count, env.segment) === 0) return
              yield* Effect.scoped(
                Effect.gen(function* () {
                  const handle = yield* startInformers({ ...a, count: shareOf(a.count, env.segment) }, name, env.progress)
                  const reported = Effect.flatMap(Effect.zip(handle.report, tokens), ([report, t]) =>
                    Effect.sync(() => void state.actions.push({ ...base, informers: report, ...t }))
                  )
                  // cut short by the scenario's duration or a signal, the informers still report: one that never
                  // synced fails the run (Outcome.ts)
                  yield* Effect.sleep(Duration.millis(phaseMs)).pipe(Effect.onInterrupt(() => reported))
                  yield* reported
                })
              )
              return
            case "expire-continue-token":
              if (!runsOnce(env.segment)) return
              yield* Effect.sleep(Duration.millis(atOf(a)))
              yield* untilPhaseEnd(runSlowPager(env, a, name, admin, counts))
              state.actions.push({ ...base, counts, ...(yield* tokens) })
              return
            case "expire-tokens":
              yield* Effect.sleep(Duration.millis(atOf(a)))
              yield* expireTokens(a, { admin, credentials }, state.tokenExpiry, `${env.runTag}.expired`, counts).pipe(
                Effect.catchAll((e) => Effect.sync(() => env.progress.error(name, e)))
              )
              state.actions.push({ ...base, counts })
              return
            case "replay": {
              // the log is replayed once, by one generator: its requests are not a rate to share
              if (!runsOnce(env.segment)) return
              const { runReplay } = yield* Effect.promise(() => import("../../src/replay/Replay.js"))
              const report = yield* runReplay(
                replayConfigOf(a, ms(phase.duration, 0)),
                {
                  ok: () => void env.progress.ops++,
                  error: (e) => env.progress.error(name, e),
                  scheduled: (endAtMs) => void (env.progress.expectedEndAtMs = Math.max(env.progress.expectedEndAtMs ?? 0, endAtMs)),
                  warn: (line) => void env.progress.notices.push(`warning: ${phase.name}/${name}: ${line}`)
                },
                // cut short by a signal, the replay still reports what it replayed (as the informers do above)
                (partial) => Effect.sync(() => void state.actions.push({ ...base, replay: partial }))
              ).pipe(Effect.mapError((e) => new ScenarioRunError({ message: `${phase.name}/${name}: ${e.message}` })))
              state.actions.push({ ...base, replay: report })
              return
            }
            case "compact":
            case "drop-watches":
            case "pause":
              if (!runsOnce(env.segment)) return
              yield* Effect.sleep(Duration.millis(atOf(a)))
              yield* runFailure(env, a, name, admin, counts)
              state.actions.push({ ...base, counts })
              return
          }
        }).pipe(
          Effect.provideService(LatencyRecorder, withTags(recorder, { name: actionName(a, i), phase: phase.name })),
          Effect.provideService(ApiClient, observed ? state.tokenExpiry.observe(api, `${phase.name}/${actionName(a, i)}`, a.type) : api)
        ),
      { concurrency: "unbounded", discard: true }
    )
  })

export interface RunOptions {
  readonly seed: number
  /** The simulated server's failure hooks, when the target has them. */
  readonly admin: ServerAdminService | undefined
  /** Where progress and action reports go; pass one to read them while running or after an interrupt. */
  readonly state?: RunState
  /** This generator worker's share of the load (default: all of it; src/loadgen/ExecutionSegment.ts). */
  readonly segment?: ExecutionSegment
  /** `setup`: only the setup; `phases`: only the phases (workers, after the coordinator's setup). Default both. */
  readonly parts?: "all" | "setup" | "phases"
  /** The run's tag in created names, shared by its workers (default: from the seed and the start time). */
  readonly runTag?: string
  /** The client's credential source, when it has one (`expire-tokens` side client acts on it). */
  readonly credentials?: CredentialSource
  /** Around each phase: the target's server-side figures are read here (src/loadgen/ServerSideReader.ts). */
  readonly phaseHooks?: { readonly started: (phase: string) => Effect.Effect<void>; readonly ended: (phase: string) => Effect.Effect<void> }
}

export const runTagOf = (seed: number, startedAtMs: number): string => `r${seed}-${Math.floor(startedAtMs).toString(36)}`

export const makeRunState = (startedAtMs: number): RunState => ({ progress: new Progress(), actions: [], startedAtMs, tokenExpiry: new TokenExpiry() })

/** The scenario's client gate `WatchListClient` for `effect`'s reflectors (`src/informer/WatchListClient.ts`). */
export const withClientGates = (s: Scenario) => <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  s.clientFeatureGates?.WatchListClient === undefined ? effect : Effect.provideService(effect, WatchListClient, s.clientFeatureGates.WatchListClient)

export const hasExpireTokens = (scenario: Scenario): boolean => scenario.phases.some((p) => p.actions.some((a) => a.type === "expire-tokens"))

/** Setup and every phase; the scenario `duration` (if any) cuts the run. */
export const runScenario = (scenario: Scenario, options: RunOptions) =>
  Effect.gen(function* () {
    const state = options.state ?? makeRunState(yield* nowMillis)
    const progress = state.progress
    const startedAtMs = state.startedAtMs
    const segment = options.segment ?? wholeRun
    const parts = options.parts ?? "all"
    const env: RunEnv = {
      scenario,
      // each worker picks its own objects; the first one's picks are a single generator's
      random: seededRandom(options.seed + segment.index * 0x9e3779b9),
      writes: new WriteLog(),
      progress,
      runTag: options.runTag ?? runTagOf(options.seed, startedAtMs),
      segment
    }
    const all = Effect.gen(function* () {
      if (parts !== "phases") yield* runSetup(env)
      if (parts !== "setup") {
        for (const phase of scenario.phases) {
          if (options.phaseHooks) yield* options.phaseHooks.started(phase.name)
          yield* runPhase(env, state, phase, options.admin, options.credentials)
          if (options.phaseHooks) yield* options.phaseHooks.ended(phase.name)
        }
      }
    })
    const limit = scenario.duration === undefined ? Option.none() : Option.some(ms(scenario.duration, 0))
    const gated = withClientGates(scenario)(all)
    yield* Option.isSome(limit) ? Effect.raceFirst(gated, Effect.sleep(Duration.millis(limit.value))) : gated
    // a setup run on its own (a segment's, before the common start; a coordinator's, before its workers) has the
    // phases still to come: "done" would read as the run's end on the progress line
    progress.phase = parts === "setup" ? SetupDone : "done"
    return state
  })


/**
 * The issue-6 control-plane pieces as one workload for the cluster runner (`runSimulatedCluster({ workload })`):
 * scheduler replicas under leader election (from the default or a given configuration) and the event TTL
 * controller. Needs only `ApiClient`; randomness comes from the simulation's `SeededRandom` when present. Where the
 * simulation offers `ClientAs` (an authorizing server), the scheduler runs as `system:platform-scheduler` and event
 * expiry as the API server itself (docs/auth.md).
 */
import { Effect, Option } from "effect"
import { ApiClient } from "../../src/client/ApiClient.js"
import { apiserverCredentials, ClientAs, schedulerCredentials } from "../apiserver/auth/ComponentIdentities.js"
import { runEventTtl } from "../events/EventTtl.js"
import * as SeededRandom from "../kernel/SeededRandom.js"
import { defaultSchedulerConfiguration, type SchedulerConfiguration } from "./options/index.js"
import type { SchedulerCore } from "./Scheduler.js"
import { runSchedulerInstance } from "./SchedulerInstance.js"

export interface ControlPlaneOptions {
  /** Scheduler replicas (default 1; leader election per the configuration, on by default). */
  readonly replicas?: number
  readonly configuration?: SchedulerConfiguration
  /** Event TTL (ms), default 1 h; 0 disables the TTL controller. */
  readonly eventTtlMs?: number
  /** Seed used only when the context has no SeededRandom. */
  readonly seed?: number
  /** Sees each replica's core (stats) once it started. */
  readonly onScheduler?: (replica: number, core: SchedulerCore) => void
}

export const controlPlaneWorkload = (options: ControlPlaneOptions = {}): Effect.Effect<void, never, ApiClient> =>
  Effect.gen(function* () {
    const existing = yield* Effect.serviceOption(SeededRandom.SeededRandom)
    const random = Option.getOrElse(existing, () => SeededRandom.make(options.seed ?? 1))
    const config = options.configuration ?? defaultSchedulerConfiguration()
    const replicas = options.replicas ?? 1
    const ttl = options.eventTtlMs ?? 3_600_000
    const clientAs = yield* Effect.serviceOption(ClientAs)
    const as = (credentials: typeof schedulerCredentials) => <A, E>(effect: Effect.Effect<A, E, ApiClient>): Effect.Effect<A, E, ApiClient> =>
      Option.isSome(clientAs) ? Effect.provideService(effect, ApiClient, clientAs.value(credentials)) : effect
    const fibers: Array<Effect.Effect<unknown, never, ApiClient>> = []
    for (let r = 0; r < replicas; r++) {
      const uuid = `${String(r).padStart(8, "0")}-0000-4000-8000-000000000000`
      // A replica that lost its lease exits (upstream exit 1) and, like a restarted pod, starts again.
      const instance = Effect.scoped(
        runSchedulerInstance(config, { host: `platform-scheduler-${r}`, uuid, onStarted: (core) => options.onScheduler?.(r, core) })
      ).pipe(Effect.orDie, Effect.forever, Effect.provideService(SeededRandom.SeededRandom, random), as(schedulerCredentials))
      fibers.push(instance)
    }
    if (ttl > 0) fibers.push(runEventTtl({ ttlMs: ttl }).pipe(as(apiserverCredentials)))
    yield* Effect.all(fibers, { concurrency: "unbounded", discard: true })
  })

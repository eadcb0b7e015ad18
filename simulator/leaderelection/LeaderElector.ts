/**
 * Leader election on a `coordination.platform/v1` Lease (client-go `tools/leaderelection`):
 *
 * - acquire: `tryAcquireOrRenew` every retryPeriod × (1 + U[0, 1.2)) until it succeeds;
 * - lead: `onStartedLeading` runs while renewing; each renewal polls `tryAcquireOrRenew` every retryPeriod for at
 *   most renewDeadline, and a healthy leader writes about every retryPeriod;
 * - expiry is judged on the observer's own clock at the moment it last saw the record change, never on renewTime;
 * - losing the lease interrupts `onStartedLeading`, records `stopped leading` and ends `run` with "lost"; a
 *   requested stop (interruption) releases the lease (holder "", leaseDurationSeconds 1) when `releaseOnCancel`.
 *
 * Events: Normal `LeaderElection`, `<identity> became leader` / `<identity> stopped leading`, regarding the Lease.
 */
import { Clock, Duration, Effect, Fiber } from "effect"
import { isRecord, type KObject } from "../../src/api/Object.js"
import { Leases } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { microTime } from "../apiserver/SystemMeta.js"
import type { EventRecorderService } from "../events/EventRecorder.js"
import { SeededRandom } from "../kernel/SeededRandom.js"
import { LeaderElectionConfigError } from "./errors.js"
import { hasStatusCode } from "../../src/client/TransportError.js"

export { LeaderElectionConfigError }

/** client-go `JitterFactor`. */
export const JitterFactor = 1.2

export interface LeaderElectionConfig {
  readonly namespace: string
  readonly name: string
  readonly identity: string
  /** Milliseconds. Scheduler defaults 15 s / 10 s / 2 s. */
  readonly leaseDuration: number
  readonly renewDeadline: number
  readonly retryPeriod: number
  readonly releaseOnCancel?: boolean
  /** Where the `LeaderElection` events go; none when absent. */
  readonly recorder?: EventRecorderService
}

export const schedulerLeaderElectionDefaults = {
  namespace: "platform-system",
  name: "platform-scheduler",
  leaseDuration: 15_000,
  renewDeadline: 10_000,
  retryPeriod: 2_000,
  releaseOnCancel: true
} as const

/** The constructor checks of `NewLeaderElector`, in upstream's order. */
export const validateLeaderElectionConfig = (c: {
  readonly leaseDuration: number
  readonly renewDeadline: number
  readonly retryPeriod: number
}): string | undefined => {
  if (c.leaseDuration <= c.renewDeadline) return "leaseDuration must be greater than renewDeadline"
  if (c.renewDeadline <= JitterFactor * c.retryPeriod) return "renewDeadline must be greater than retryPeriod*JitterFactor"
  // Durations are ms here; upstream's `< 1` is in nanoseconds.
  if (c.leaseDuration < 1e-6) return "leaseDuration must be greater than zero"
  if (c.renewDeadline < 1e-6) return "renewDeadline must be greater than zero"
  if (c.retryPeriod < 1e-6) return "retryPeriod must be greater than zero"
  return undefined
}

export interface LeaderRecord {
  readonly holderIdentity: string
  readonly leaseDurationSeconds: number
  readonly acquireTime: string | undefined
  readonly renewTime: string | undefined
  readonly leaseTransitions: number
}

export const recordOf = (lease: KObject): LeaderRecord => {
  const spec = isRecord(lease.spec) ? lease.spec : {}
  return {
    holderIdentity: typeof spec.holderIdentity === "string" ? spec.holderIdentity : "",
    leaseDurationSeconds: typeof spec.leaseDurationSeconds === "number" ? spec.leaseDurationSeconds : 0,
    acquireTime: typeof spec.acquireTime === "string" ? spec.acquireTime : undefined,
    renewTime: typeof spec.renewTime === "string" ? spec.renewTime : undefined,
    leaseTransitions: typeof spec.leaseTransitions === "number" ? spec.leaseTransitions : 0
  }
}

const specOf = (r: LeaderRecord) => ({
  holderIdentity: r.holderIdentity,
  leaseDurationSeconds: r.leaseDurationSeconds,
  ...(r.acquireTime ? { acquireTime: r.acquireTime } : {}),
  ...(r.renewTime ? { renewTime: r.renewTime } : {}),
  leaseTransitions: r.leaseTransitions
})

export type RunOutcome = "lost" | "stopped"

export interface LeaderElector {
  readonly identity: string
  /** True while this instance believes it holds the lease: not once it stopped, lost the lease or crashed. */
  readonly isLeader: () => boolean
  /** Holder seen at the last read of the lease. */
  readonly observedLeader: () => string
  /**
   * Acquires, runs `onStartedLeading` while leading, returns "lost" when renewal fails. Interrupting it is a
   * requested stop (release when configured).
   */
  /** The next interruption is a crash: no event, no release (a killed process). */
  readonly crash: () => void
  readonly run: <R>(onStartedLeading: Effect.Effect<void, never, R>) => Effect.Effect<RunOutcome, never, R | ApiClient>
}

export const make = (config: LeaderElectionConfig): Effect.Effect<LeaderElector, LeaderElectionConfigError, SeededRandom> =>
  Effect.gen(function* () {
    const bad = validateLeaderElectionConfig(config)
    if (bad) return yield* Effect.fail(new LeaderElectionConfigError({ message: bad }))
    const rng = (yield* SeededRandom).split(`leaderelection/${config.identity}`)
    const leaseRef = { kind: "Lease", apiVersion: "coordination.platform/v1", name: config.name, namespace: config.namespace }
    let observedRaw = ""
    let observed: LeaderRecord | undefined
    let observedLease: KObject | undefined
    let observedTime = 0
    /** Our own successful write is the record we last observed, at the time we wrote it. */
    const remember = (record: LeaderRecord, lease: KObject, now: number) => {
      observed = record
      observedRaw = JSON.stringify(specOf(record))
      observedLease = lease
      observedTime = now
    }
    let leading = false
    let crashed = false

    // Upstream writes these through the core recorder, whose de-dup key includes the message; on the events API
    // the note is not part of the key, so the action tells the two apart (else "stopped leading" would only
    // become count 2 of "became leader").
    const event = (what: "became leader" | "stopped leading") =>
      config.recorder
        ? config.recorder.eventf(
            leaseRef,
            undefined,
            "Normal",
            "LeaderElection",
            what === "became leader" ? "BecameLeader" : "StoppedLeading",
            `${config.identity} ${what}`
          )
        : Effect.void

    /** One `tryAcquireOrRenew` (`leaderelection.go`). */
    const tryAcquireOrRenew = Effect.gen(function* () {
      const client = yield* ApiClient
      const now = yield* Clock.currentTimeMillis
      const stamp = microTime(now)
      const desired: LeaderRecord = {
        holderIdentity: config.identity,
        leaseDurationSeconds: Math.round(config.leaseDuration / 1000),
        acquireTime: stamp,
        renewTime: stamp,
        leaseTransitions: 0
      }
      const got = yield* Effect.either(client.get(Leases, config.name, { namespace: config.namespace }))
      if (got._tag === "Left") {
        if (!hasStatusCode(got.left, 404)) return false
        const created = yield* Effect.either(
          client.create(Leases, { metadata: { name: config.name, namespace: config.namespace }, spec: specOf(desired) }, { namespace: config.namespace })
        )
        if (created._tag === "Left") return false
        remember(desired, created.right.object, now)
        return true
      }
      const lease = got.right
      const old = recordOf(lease)
      const raw = JSON.stringify(specOf(old))
      if (raw !== observedRaw) {
        observedRaw = raw
        observed = old
        observedTime = now
      }
      observedLease = lease
      if (old.holderIdentity !== "" && observedTime + config.leaseDuration > now && old.holderIdentity !== config.identity)
        return false
      const record: LeaderRecord =
        old.holderIdentity === config.identity
          ? { ...desired, acquireTime: old.acquireTime, leaseTransitions: old.leaseTransitions }
          : { ...desired, leaseTransitions: old.leaseTransitions + 1 }
      const updated = yield* Effect.either(client.update(Leases, { ...lease, spec: specOf(record) }, { namespace: config.namespace }))
      if (updated._tag === "Left") return false
      remember(record, updated.right.object, now)
      return true
    })

    const jittered = () => Duration.toMillis(rng.jitter(config.retryPeriod, JitterFactor))

    const acquire = Effect.gen(function* () {
      while (!(yield* tryAcquireOrRenew)) yield* Effect.sleep(Duration.millis(jittered()))
      leading = true
      yield* event("became leader")
    })

    /** Returns when a renewal missed its deadline. */
    const renew = Effect.gen(function* () {
      while (true) {
        const start = yield* Clock.currentTimeMillis
        let ok = yield* tryAcquireOrRenew
        while (!ok) {
          const now = yield* Clock.currentTimeMillis
          if (now + config.retryPeriod - start > config.renewDeadline) break
          yield* Effect.sleep(Duration.millis(config.retryPeriod))
          ok = yield* tryAcquireOrRenew
        }
        if (!ok) return
        yield* Effect.sleep(Duration.millis(config.retryPeriod))
      }
    })

    /** Holder "" and leaseDurationSeconds 1; transitions unchanged (`leaderelection.go` `release`). */
    const release = Effect.gen(function* () {
      if (!observedLease || !observed || observed.holderIdentity !== config.identity) return
      const client = yield* ApiClient
      const now = yield* Clock.currentTimeMillis
      const stamp = microTime(now)
      const spec = specOf({ ...observed, holderIdentity: "", leaseDurationSeconds: 1, acquireTime: stamp, renewTime: stamp })
      yield* Effect.ignore(client.update(Leases, { ...observedLease, spec }, { namespace: config.namespace }))
    })

    const run = <R>(onStartedLeading: Effect.Effect<void, never, R>): Effect.Effect<RunOutcome, never, R | ApiClient> =>
      Effect.gen(function* () {
        yield* acquire
        const work = yield* Effect.fork(onStartedLeading)
        yield* renew
        leading = false
        yield* Fiber.interrupt(work)
        yield* event("stopped leading")
        if (config.releaseOnCancel) yield* release
        return "lost" as RunOutcome
      }).pipe(
        Effect.onInterrupt(() =>
          Effect.gen(function* () {
            if (!leading) return
            // a killed process leads no more (`leader_election_master_status` drops to 0), though it says nothing
            leading = false
            if (crashed) return
            yield* event("stopped leading")
            if (config.releaseOnCancel) yield* release
          })
        )
      )

    return {
      identity: config.identity,
      isLeader: () => leading,
      crash: () => {
        crashed = true
      },
      observedLeader: () => observed?.holderIdentity ?? "",
      run
    }
  })


import { Clock, Effect, Either, Fiber } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { Events, Leases } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { make as makeRecorder } from "../../simulator/events/EventRecorder.js"
import * as LeaderElector from "../../simulator/leaderelection/LeaderElector.js"
import { runSim } from "../scheduler/sim.js"

const base = { ...LeaderElector.schedulerLeaderElectionDefaults }

const lease = Effect.flatMap(ApiClient, (c) => c.get(Leases, "platform-scheduler", { namespace: "platform-system" })).pipe(
  Effect.orDie,
  Effect.map(LeaderElector.recordOf)
)

/** Starts an elector whose leading work notes the time it started. */
const start = (identity: string, log: Array<{ id: string; at: number }>) =>
  Effect.gen(function* () {
    const recorder = yield* makeRecorder({ reportingController: "default-scheduler", reportingInstance: `default-scheduler-${identity}` })
    const elector = yield* Effect.orDie(LeaderElector.make({ ...base, identity, recorder }))
    const fiber = yield* Effect.fork(
      elector.run(Effect.flatMap(Clock.currentTimeMillis, (at) => Effect.zipRight(Effect.sync(() => log.push({ id: identity, at })), Effect.never)))
    )
    return { elector, fiber, recorder }
  })

describe("LeaderElector config", () => {
  it("constructor errors in upstream order", () => {
    const v = LeaderElector.validateLeaderElectionConfig
    expect(v({ leaseDuration: 10_000, renewDeadline: 10_000, retryPeriod: 2_000 })).toBe("leaseDuration must be greater than renewDeadline")
    expect(v({ leaseDuration: 15_000, renewDeadline: 2_400, retryPeriod: 2_000 })).toBe("renewDeadline must be greater than retryPeriod*JitterFactor")
    expect(v({ leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 0 })).toBe("retryPeriod must be greater than zero")
    expect(v({ leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000 })).toBeUndefined()
  })
  it("make fails with a tagged error", () => {
    const r = runSim(Effect.either(LeaderElector.make({ ...base, identity: "a", renewDeadline: 20_000 })))
    expect(Either.isLeft(r) && r.left._tag === "LeaderElectionConfigError" && r.left.message).toBe("leaseDuration must be greater than renewDeadline")
  })
})

describe("LeaderElector", () => {
  it("two instances: one leads, the other takes over within leaseDuration + retry after the leader dies", () => {
    const r = runSim(
      Effect.gen(function* () {
        const log: Array<{ id: string; at: number }> = []
        const a = yield* start("a", log)
        yield* Effect.sleep("1 second")
        const b = yield* start("b", log)
        yield* Effect.sleep("30 seconds")
        const before = { leaders: [...log], a: a.elector.isLeader(), b: b.elector.isLeader(), lease: yield* lease }
        const killedAt = yield* Clock.currentTimeMillis
        a.elector.crash()
        yield* Fiber.interrupt(a.fiber)
        yield* Effect.sleep("40 seconds")
        const after = yield* lease
        yield* b.recorder.flush
        yield* a.recorder.flush
        const notes = (yield* Effect.orDie(Effect.flatMap(ApiClient, (c) => c.list(Events, {})))).items.map((e) => e.note)
        return { before, killedAt, log, after, notes, bLeader: b.elector.isLeader(), aLeader: a.elector.isLeader() }
      })
    )
    expect(r.before.leaders).toEqual([{ id: "a", at: 0 }])
    expect(r.before.a).toBe(true)
    expect(r.before.b).toBe(false)
    expect(r.before.lease).toMatchObject({ holderIdentity: "a", leaseDurationSeconds: 15, leaseTransitions: 0 })
    const takeover = r.log[1]!
    expect(takeover.id).toBe("b")
    // The leader renewed at most a retry period before dying; b judged expiry on its own clock.
    expect(takeover.at - r.killedAt).toBeGreaterThan(15_000 - 2_000)
    expect(takeover.at - r.killedAt).toBeLessThanOrEqual(15_000 + 4_400)
    expect(r.after).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 })
    expect(r.bLeader).toBe(true)
    // a killed process leads no more (leader_election_master_status), though it recorded nothing
    expect(r.aLeader).toBe(false)
    expect(r.notes.sort()).toEqual(["a became leader", "b became leader"])
  })

  it("a requested stop releases the lease: the other takes over within one jittered retry", () => {
    const r = runSim(
      Effect.gen(function* () {
        const log: Array<{ id: string; at: number }> = []
        const a = yield* start("a", log)
        yield* start("b", log)
        yield* Effect.sleep("20 seconds")
        const stoppedAt = yield* Clock.currentTimeMillis
        yield* Fiber.interrupt(a.fiber)
        const released = yield* lease
        yield* Effect.sleep("10 seconds")
        yield* a.recorder.flush
        const notes = (yield* Effect.orDie(Effect.flatMap(ApiClient, (c) => c.list(Events, {})))).items.map((e) => e.note)
        return { log, stoppedAt, released, after: yield* lease, notes, stats: yield* a.recorder.stats }
      })
    )
    expect(r.released).toMatchObject({ holderIdentity: "", leaseDurationSeconds: 1, leaseTransitions: 0 })
    expect(r.log[1]!.id).toBe("b")
    expect(r.log[1]!.at - r.stoppedAt).toBeLessThanOrEqual(4_400)
    expect(r.after).toMatchObject({ holderIdentity: "b", leaseTransitions: 1 })
    expect(r.notes, JSON.stringify(r.stats)).toContain("a stopped leading")
  })

  it("losing the lease (renewals fail for renewDeadline) stops the leading work and returns lost", () => {
    const r = runSim(
      Effect.gen(function* () {
        const client = yield* ApiClient
        const elector = yield* Effect.orDie(LeaderElector.make({ ...base, identity: "a" }))
        let workInterrupted = -1
        const fiber = yield* Effect.fork(
          elector.run(Effect.onInterrupt(Effect.never, () => Effect.flatMap(Clock.currentTimeMillis, (t) => Effect.sync(() => (workInterrupted = t)))))
        )
        yield* Effect.sleep("5 seconds")
        // Another writer takes the lease behind the leader's back.
        const cur = yield* Effect.orDie(client.get(Leases, "platform-scheduler", { namespace: "platform-system" }))
        const stolenAt = yield* Clock.currentTimeMillis
        yield* Effect.orDie(client.update(Leases, { ...cur, spec: { ...(cur.spec as object), holderIdentity: "intruder" } }, { namespace: "platform-system" }))
        const outcome = yield* Fiber.join(fiber)
        return { outcome, stolenAt, workInterrupted, leader: elector.isLeader() }
      })
    )
    expect(r.outcome).toBe("lost")
    expect(r.leader).toBe(false)
    expect(r.workInterrupted - r.stolenAt).toBeGreaterThanOrEqual(8_000)
    expect(r.workInterrupted - r.stolenAt).toBeLessThanOrEqual(12_000)
  })
})

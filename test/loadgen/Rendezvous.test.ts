/**
 * The segments' rendezvous through the target (src/loadgen/Rendezvous.ts) on the simulated server, and the clock
 * skew estimate from `Date` headers (src/loadgen/ClockSkew.ts).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber } from "effect"
import { ConfigMaps } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { correctionOf, estimateSkew } from "../../src/loadgen/ClockSkew.js"
import { rendezvous, rendezvousName } from "../../src/loadgen/Rendezvous.js"
import { clientLayer } from "../support/transports.js"

const plan = (index: number, count: number, id = "job-a") => ({ id, namespace: "distributed", segment: { index, count }, marginMs: 300, timeoutMs: 1500, skewMs: 0, pollMs: 20 })

describe("rendezvous", () => {
  it.live("three segments registering at different times read one start, the margin after the last arrived", () =>
    Effect.gen(function* () {
      const starts = yield* Effect.all(
        [0, 1, 2].map((i) => Effect.zipRight(Effect.sleep(i * 100), Effect.zip(rendezvous(plan(i, 3)), Effect.clockWith((c) => c.currentTimeMillis)))),
        { concurrency: "unbounded" }
      )
      const agreed = starts.map(([s]) => s.startAtMs)
      expect(new Set(agreed).size).toBe(1)
      expect(starts.map(([s]) => s.localStartAtMs)).toEqual(agreed)
      // fixed once all three were there (≥ 200 ms in), plus the margin; every segment learnt it before it came
      const returnedAt = starts.map(([, t]) => t)
      for (const t of returnedAt) expect(agreed[0]!).toBeGreaterThan(t)
      const cm = yield* (yield* ApiClient).get(ConfigMaps, rendezvousName("job-a"), { namespace: "distributed" })
      expect(Object.keys((cm as { data?: Record<string, string> }).data ?? {}).sort()).toEqual(["segment-1", "segment-2", "segment-3", "segments", "sequence", "startAt"])
      expect((cm as { data?: Record<string, string> }).data?.sequence).toBe("0,1/3,2/3,1")
    }).pipe(Effect.provide(clientLayer("in-process")))
  )

  it.live("a segment that never registers fails the others at the deadline, named; a name left by an earlier run is refused", () =>
    Effect.gen(function* () {
      const missing = yield* Effect.either(Effect.all([rendezvous(plan(0, 3, "job-b")), rendezvous(plan(2, 3, "job-b"))], { concurrency: "unbounded" }))
      expect(Either.isLeft(missing) && missing.left.message).toBe(
        "rendezvous distributed/clustersim-rendezvous-job-b: segment 2/3 did not register within 1s 500ms (registered: 1/3, 3/3)"
      )
      const again = yield* Effect.either(rendezvous(plan(0, 3, "job-b")))
      expect(Either.isLeft(again) && again.left.message).toBe(
        "rendezvous distributed/clustersim-rendezvous-job-b: segment 1/3 is registered there already: left by an earlier run? Delete it or choose another rendezvous id"
      )
      const otherPlan = yield* Effect.either(rendezvous(plan(1, 2, "job-b")))
      expect(Either.isLeft(otherPlan) && otherPlan.left.message).toBe("rendezvous distributed/clustersim-rendezvous-job-b: it is for 3 segments, this one is 2/2")
    }).pipe(Effect.provide(clientLayer("in-process")))
  )

  it.live("a segment of another --segment-sequence is refused, naming both sequences; the segments waiting there fail with it, not at the deadline", () =>
    Effect.gen(function* () {
      const part = (index: number, sequence: string | undefined) => ({ ...plan(index, 3, "job-c"), timeoutMs: 60_000, segment: { index, count: 3, ...(sequence !== undefined ? { sequence } : {}) } })
      const refusal =
        "rendezvous distributed/clustersim-rendezvous-job-c: segment 2/3 is a part of the sequence 0,1/3,2/3,1, but the segments there are parts of 0,1/4,3/4,1: give every segment of the run the same --segment-sequence"
      // 0:1/4 of 0,1/4,3/4,1 waits for the others (a minute's timeout: only the refusal ends its wait in this test)
      const waiting = yield* Effect.fork(Effect.either(rendezvous(part(0, "0,1/4,3/4,1"))))
      yield* Effect.sleep(100)
      const joiner = yield* Effect.either(rendezvous(part(1, undefined)))
      expect(Either.isLeft(joiner) && joiner.left.message).toBe(refusal)
      const waited = yield* Fiber.join(waiting)
      expect(Either.isLeft(waited) && waited.left.message).toBe(refusal)
      // a segment of the right sequence coming later is told too: the run cannot start
      const late = yield* Effect.either(rendezvous(part(2, "0,1/4,3/4,1")))
      expect(Either.isLeft(late) && late.left.message).toBe(refusal)
      const cm = yield* (yield* ApiClient).get(ConfigMaps, rendezvousName("job-c"), { namespace: "distributed" })
      expect((cm as { data?: Record<string, string> }).data?.startAt).toBeUndefined()
    }).pipe(Effect.provide(clientLayer("in-process")))
  )

  it("the ConfigMap's name is the id as a DNS subdomain", () => {
    expect(rendezvousName("Job_A/7")).toBe("clustersim-rendezvous-job-a-7")
    expect(rendezvousName("x".repeat(300)).length).toBe(253)
  })
})

describe("clock skew from Date headers", () => {
  const at = (iso: string) => Date.parse(iso)
  it("samples at different phases of the second narrow the bound around the true skew", () => {
    // our clock runs 2,300 ms ahead of the target's; answers take 10 ms and are stamped mid-flight
    const truth = 2300
    const samples = [0, 230, 460, 690, 920].map((k) => {
      const sent = at("2026-11-29T12:00:00Z") + k
      const targetAt = sent + 5 - truth
      return { sentMs: sent, receivedMs: sent + 10, date: new Date(Math.floor(targetAt / 1000) * 1000).toUTCString() }
    })
    const skew = estimateSkew(samples)!
    expect(Math.abs(skew.skewMs - truth)).toBeLessThanOrEqual(skew.uncertaintyMs)
    expect(skew.uncertaintyMs).toBeLessThanOrEqual(120)
    expect(correctionOf(skew)).toBe(skew.skewMs)
  })

  it("one sample says only ±½ s; clocks that agree within the bound are not corrected; no Date, no estimate", () => {
    const one = estimateSkew([{ sentMs: at("2026-11-29T12:00:00.400Z"), receivedMs: at("2026-11-29T12:00:00.410Z"), date: "Sun, 29 Nov 2026 12:00:00 GMT" }])!
    expect(one).toEqual({ skewMs: -95, uncertaintyMs: 505 })
    expect(correctionOf(one)).toBe(0)
    expect(estimateSkew([{ sentMs: 1, receivedMs: 2, date: "yesterday" }])).toBeUndefined()
    expect(correctionOf(undefined)).toBe(0)
  })
})

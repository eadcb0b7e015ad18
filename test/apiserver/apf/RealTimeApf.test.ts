/**
 * API Priority and Fairness in the real-time server (issue 38): requests run while their level has seats, then wait
 * in their flow's queues, leave them as fair queuing picks a queue when seats free (../../../simulator/apiserver/apf/
 * FairQueuing.ts, its own tests in ./FairQueuing.test.ts), and are rejected as upstream rejects them —
 * queue-full, time-out after the 15 s wait limit, concurrency-limit where a level has no queues, cancelled when the
 * client goes away. Every step is reported to the observer the flowcontrol metrics hang on.
 */
import { describe, expect, it } from "vitest"
import { RealTimeApf, type Admitted, type ApfObserver } from "../../../simulator/apiserver/apf/RealTimeApf.js"
import { levelSeats } from "../../../simulator/apiserver/apf/PriorityAndFairness.js"

/** A clock moved by hand and its timers. */
const fakeTimers = () => {
  let now = 0
  const timers: Array<{ at: number; f: () => void; live: boolean }> = []
  return {
    nowSeconds: () => now,
    after: (ms: number, f: () => void) => {
      const t = { at: now + ms / 1000, f, live: true }
      timers.push(t)
      return () => void (t.live = false)
    },
    advance: (seconds: number) => {
      now += seconds
      for (const t of timers) if (t.live && t.at <= now) (t.live = false), t.f()
    }
  }
}

const recorder = () => {
  const events: Array<string> = []
  const observer: ApfObserver = {
    waiting: (l, f, d) => events.push(`waiting ${l} ${f} ${d}`),
    executing: (l, f, d) => events.push(`executing ${l} ${f} ${d}`),
    waited: (l, f, e, s) => events.push(`waited ${l} ${f} ${e} ${s}`),
    dispatched: (l, f) => events.push(`dispatched ${l} ${f}`),
    rejected: (l, f, r) => events.push(`rejected ${l} ${f} ${r}`),
    executed: (l, f, w, s) => events.push(`executed ${l} ${f} ${w ? "watch" : "regular"} ${s}`)
  }
  return { events, observer }
}

const alice = { user: "alice", groups: ["system:authenticated"], verb: "get", resource: "configmaps", namespace: "default" }
const admin = { user: "admin", groups: ["system:masters", "system:authenticated"], verb: "get", resource: "configmaps", namespace: "default" }

/** A request that holds its seat until `running[i].done()`; its outcome in `outcomes`. */
const harness = (limit: number) => {
  const timers = fakeTimers()
  const { events, observer } = recorder()
  const apf = new RealTimeApf(limit, timers, observer)
  const running: Array<Admitted> = []
  const outcomes: Array<string> = []
  const send = (attributes: typeof alice, name: string, path = "/api/v1/namespaces/default/configmaps/x") =>
    apf.enter(
      {
        attributes,
        seats: 1,
        watch: false,
        execute: (a) => {
          outcomes.push(`${name} ran in ${a.level}/${a.flowSchema}`)
          running.push(a)
        },
        reject: (reason) => outcomes.push(`${name} rejected ${reason}`)
      },
      path
    )
  return { apf, timers, events, running, outcomes, send }
}

describe("RealTimeApf", () => {
  it("nominal seats: the server limit shared by the limited levels' shares", () => {
    const { apf } = harness(600)
    expect(apf.nominalSeats()).toEqual(Object.entries(levelSeats(600)).map(([level, seats]) => ({ level, seats })))
    expect(Object.fromEntries(apf.nominalSeats().map((s) => [s.level, s.seats]))["global-default"]).toBe(49)
  })

  it("runs within the seats, queues beyond them, dispatches a waiting request when a seat frees", () => {
    // 49 seats for global-default at 600; at 12, ⌈12 × 20 / 245⌉ = 1 seat
    const h = harness(12)
    expect(h.send(alice, "a")).toBeUndefined()
    const cancelB = h.send(alice, "b")
    expect(cancelB).toBeTypeOf("function")
    h.send(alice, "c")
    expect(h.outcomes).toEqual(["a ran in global-default/global-default"])
    h.timers.advance(0.25)
    h.running[0]!.done()
    h.running[0]!.done() // twice changes nothing
    expect(h.outcomes).toEqual(["a ran in global-default/global-default", "b ran in global-default/global-default"])
    expect(h.events).toEqual([
      "waited global-default global-default true 0",
      "dispatched global-default global-default",
      "executing global-default global-default 1",
      "waiting global-default global-default 1",
      "waiting global-default global-default 1",
      "executing global-default global-default -1",
      "executed global-default global-default regular 0.25",
      "waiting global-default global-default -1",
      "waited global-default global-default true 0.25",
      "dispatched global-default global-default",
      "executing global-default global-default 1"
    ])
  })

  it("exempt requests (system:masters, the health probes) never wait", () => {
    const h = harness(12)
    h.send(alice, "a")
    h.send(admin, "root")
    h.send(alice, "probe", "/healthz")
    expect(h.outcomes).toEqual(["a ran in global-default/global-default", "root ran in exempt/exempt", "probe ran in exempt/probes"])
  })

  it("rejects time-out after the 15 s wait limit, cancelled when the client goes away, concurrency-limit without queues", () => {
    const h = harness(12)
    h.send(alice, "a")
    const cancel = h.send(alice, "b")!
    h.send(alice, "c")
    cancel()
    expect(h.outcomes).toEqual(["a ran in global-default/global-default", "b rejected cancelled"])
    h.timers.advance(14.9)
    expect(h.outcomes).toHaveLength(2)
    h.timers.advance(0.2)
    expect(h.outcomes).toEqual(["a ran in global-default/global-default", "b rejected cancelled", "c rejected time-out"])
    expect(h.events.filter((e) => e.startsWith("rejected") || e.startsWith("waited global-default global-default false"))).toEqual([
      "waited global-default global-default false 0",
      "rejected global-default global-default cancelled",
      "waited global-default global-default false 15.1",
      "rejected global-default global-default time-out"
    ])
    // a user in no group matches no FlowSchema: catch-all, whose level has no queues
    const c = harness(12)
    const nobody = { user: "nobody", groups: [] as string[], verb: "get", resource: "pods", namespace: "default" }
    c.send(nobody, "x")
    c.send(nobody, "y")
    expect(c.outcomes).toEqual(["x ran in catch-all/catch-all", "y rejected concurrency-limit"])
  })

  it("rejects queue-full once every queue of the flow's hand holds 50", () => {
    const h = harness(12)
    h.send(alice, "first")
    // a hand of 6 queues of 50
    for (let i = 0; i < 300; i++) h.send(alice, `w${i}`)
    expect(h.outcomes.filter((o) => o.includes("rejected"))).toEqual([])
    h.send(alice, "one-too-many")
    expect(h.outcomes.at(-1)).toBe("one-too-many rejected queue-full")
    // another user's flow is dealt its own hand: mostly other queues, so it still queues
    const bob = { ...alice, user: "bob" }
    h.send(bob, "bob")
    expect(h.outcomes.at(-1)).toBe("one-too-many rejected queue-full")
  })
})

describe("RealTimeApf: fair queuing across a level's queues", () => {
  /**
   * The QA case on `serve`: anonymous LISTs hold all 49 seats of global-default for 3 s and fill their hand's six
   * queues (300 waiting, the rest rejected queue-full); alice asks 0.5 s later. In arrival order she would be 350th,
   * run only after the 300 and time out at 15.5 s. Fair queuing gives her queue a seat in the wave that frees at 3 s:
   * alice's queue starts at R = 0.5 s × 49 seats / 6 active queues ≈ 4.08, the noisy queues at ~0.03 until their
   * requests end and each is charged its 3 s of service — two ends per queue, twelve in all, put every noisy queue
   * past alice's virtual finish, and the 12th seat freed is hers (upstream's `findDispatchQueueToBoundLocked`).
   */
  it("a second flow's request runs when seats free at 3 s, not after the noisy flow's 300 queued requests", () => {
    const h = harness(600)
    const anonymous = { user: "system:anonymous", groups: ["system:unauthenticated"], verb: "list", resource: "configmaps", namespace: "default" }
    for (let i = 0; i < 450; i++) h.send(anonymous, `noisy${i}`, "/api/v1/namespaces/default/configmaps")
    expect(h.running).toHaveLength(49)
    expect(h.outcomes.filter((o) => o.endsWith("rejected queue-full"))).toHaveLength(101)
    h.timers.advance(0.5)
    expect(h.send(alice, "alice", "/api/v1/namespaces/default/configmaps")).toBeTypeOf("function")
    h.timers.advance(2.5)
    let freed = 0
    while (!h.outcomes.includes("alice ran in global-default/global-default")) {
      h.running.shift()!.done()
      freed++
      expect(freed).toBeLessThanOrEqual(49)
    }
    expect(freed).toBe(12)
    const aliceRun = h.running.find((a) => a.waitedSeconds === 2.5)
    expect(aliceRun).toBeDefined()
    // the gauges' deltas add up: 300 − 11 noisy requests and alice's wait ended
    const inqueue = h.events.filter((e) => e.startsWith("waiting ")).reduce((n, e) => n + Number(e.split(" ").at(-1)), 0)
    const executing = h.events.filter((e) => e.startsWith("executing ")).reduce((n, e) => n + Number(e.split(" ").at(-1)), 0)
    expect(inqueue).toBe(300 - 11)
    expect(executing).toBe(49)
    expect(h.events.filter((e) => e === "waited global-default global-default true 2.5")).toHaveLength(1)
  })
})

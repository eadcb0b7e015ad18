/**
 * API Priority and Fairness of the service-time model against hand-computed cases: shuffle sharding, the 1.26
 * classification and seat shares, LIST seats, queueing and 429s of one priority level.
 */
import { describe, expect, it } from "@effect/vitest"
import { classify, flowSchemas, type RequestAttributes } from "../../../simulator/apiserver/apf/Bootstrap.js"
import { levelSeats, PriorityAndFairness } from "../../../simulator/apiserver/apf/PriorityAndFairness.js"
import { QueueSet } from "../../../simulator/apiserver/apf/QueueSet.js"
import { dealHand } from "../../../simulator/apiserver/apf/ShuffleSharding.js"
import { listSeats } from "../../../simulator/apiserver/apf/WorkEstimate.js"
import { defaultParameters, ServiceTimeModel } from "../../../simulator/apiserver/ServiceTime.js"
import { Leases } from "../../../src/api/Resources.js"
import { nodeLeaseNamespace } from "../../../src/api/WellKnown.js"

describe("shuffle sharding (Dealer.Deal)", () => {
  it("reads the hash as mixed-radix digits and bumps each past the cards before it", () => {
    // 141 = 5 + 8 × (3 + 7 × 2): digits 5, 3, 2 — all distinct, dealt as they are
    expect(dealHand(141, 8, 3)).toEqual([5, 3, 2])
    // 130 = 2 + 8 × (2 + 7 × 2): digits 2, 2, 2 → 2, then 2 bumped past 2 → 3, then 2 bumped twice → 4
    expect(dealHand(130, 8, 3)).toEqual([2, 3, 4])
  })

  it("always deals handSize distinct queues of the deck", () => {
    for (let hash = 0; hash < 5_000; hash += 7) {
      const hand = dealHand(hash * 2654435761, 128, 6)
      expect(new Set(hand).size).toBe(6)
      for (const q of hand) expect(q >= 0 && q < 128).toBe(true)
    }
    expect(() => dealHand(1, 4, 5)).toThrow("shuffle sharding: handSize 5 not in [1, 4]")
  })
})

describe("classification and shares (1.26 defaults)", () => {
  const request = (over: Partial<RequestAttributes>): RequestAttributes => ({ user: "alice", groups: ["system:authenticated"], verb: "list", resource: "pods", namespace: "default", ...over })
  const levelOf = (r: RequestAttributes) => classify(flowSchemas, r)?.priorityLevel

  it("sends node leases and node status to node-high, the rest of a node's requests to system", () => {
    const node = { user: "system:node:n1", groups: ["system:nodes", "system:authenticated"] }
    expect(levelOf(request({ ...node, verb: "update", resource: "leases", namespace: "kube-node-lease" }))).toBe("node-high")
    expect(levelOf(request({ ...node, verb: "patch", resource: "nodes/status", namespace: undefined }))).toBe("node-high")
    expect(levelOf(request({ ...node, verb: "patch", resource: "pods/status" }))).toBe("system")
  })

  it("scheduler leader election to leader-election, its other requests to workload-high; service accounts workload-low; others global-default", () => {
    expect(levelOf(request({ user: "system:kube-scheduler", verb: "update", resource: "leases", namespace: "kube-system" }))).toBe("leader-election")
    expect(levelOf(request({ user: "system:kube-scheduler", verb: "list", resource: "pods" }))).toBe("workload-high")
    expect(levelOf(request({ user: "system:serviceaccount:ns:sa", groups: ["system:serviceaccounts", "system:authenticated"] }))).toBe("workload-low")
    expect(levelOf(request({}))).toBe("global-default")
    expect(levelOf(request({ user: "admin", groups: ["system:masters"] }))).toBe("exempt")
  })

  it("splits 600 seats by nominal shares (Σ 245): ⌈600 × share / 245⌉", () => {
    expect(levelSeats(600)).toEqual({ system: 74, "node-high": 98, "leader-election": 25, "workload-high": 98, "workload-low": 245, "global-default": 49, "catch-all": 13 })
  })
})

describe("LIST work estimate", () => {
  it("100 objects per seat, 1 to 10 seats; from the cache every stored object, from storage 2 × limit", () => {
    expect(listSeats({ stored: 150_000, limit: 500, fromCache: true, selector: false })).toBe(10)
    expect(listSeats({ stored: 150_000, limit: 500, fromCache: false, selector: false })).toBe(10)
    expect(listSeats({ stored: 150_000, limit: 200, fromCache: false, selector: false })).toBe(4)
    expect(listSeats({ stored: 350, limit: undefined, fromCache: true, selector: false })).toBe(4)
    expect(listSeats({ stored: 30, limit: 10, fromCache: false, selector: true })).toBe(1)
    expect(listSeats({ stored: 0, limit: undefined, fromCache: true, selector: false })).toBe(1)
  })
})

describe("a priority level's queues", () => {
  it("dispatches while seats are free, then queues in the shortest queue of the hand, rejects a full hand", () => {
    // 2 seats, 1 queue of 2: requests of 10 ms arriving together
    const level = new QueueSet({ seats: 2, queuing: { queues: 1, handSize: 1, queueLengthLimit: 2 }, requestWaitLimitMs: 15_000 })
    const at = (n: number) => level.book(0, "flow", 1, 10)
    expect(at(1)).toEqual({ _tag: "Dispatched", start: 0, end: 10 })
    expect(at(2)).toEqual({ _tag: "Dispatched", start: 0, end: 10 })
    expect(at(3)).toEqual({ _tag: "Dispatched", start: 10, end: 20 }) // queued behind the first
    expect(at(4)).toEqual({ _tag: "Dispatched", start: 10, end: 20 })
    expect(at(5)).toEqual({ _tag: "Rejected", reason: "queue-full", at: 0 }) // the queue holds 2
    // at 10 the two queued ones started: the queue is empty again
    expect(level.book(10, "flow", 1, 10)).toEqual({ _tag: "Dispatched", start: 20, end: 30 })
  })

  it("a LIST of 10 seats waits for 10 free seats; a wait past the limit is a 429 at the limit", () => {
    const level = new QueueSet({ seats: 10, queuing: { queues: 4, handSize: 2, queueLengthLimit: 50 }, requestWaitLimitMs: 100 })
    expect(level.book(0, "a", 1, 50)).toEqual({ _tag: "Dispatched", start: 0, end: 50 })
    expect(level.book(0, "b", 10, 30)).toEqual({ _tag: "Dispatched", start: 50, end: 80 })
    expect(level.book(1, "c", 10, 500)).toEqual({ _tag: "Dispatched", start: 80, end: 580 })
    expect(level.book(2, "d", 1, 10)).toEqual({ _tag: "Rejected", reason: "time-out", at: 102 })
  })

  it("without queuing (catch-all) whatever cannot start at once is rejected", () => {
    const level = new QueueSet({ seats: 1, queuing: undefined, requestWaitLimitMs: 15_000 })
    expect(level.book(0, "x", 1, 5)._tag).toBe("Dispatched")
    expect(level.book(1, "x", 1, 5)).toEqual({ _tag: "Rejected", reason: "concurrency-limit", at: 1 })
    expect(level.book(5, "x", 1, 5)._tag).toBe("Dispatched")
  })

  it("a heavy flow fills its own hand and is rejected, a light flow of the same level still queues", () => {
    const level = new QueueSet({ seats: 1, queuing: { queues: 64, handSize: 2, queueLengthLimit: 3 }, requestWaitLimitMs: 60_000 })
    let rejected = 0
    for (let i = 0; i < 20; i++) if (level.book(0, "heavy", 1, 100)._tag === "Rejected") rejected++
    // 1 running + 2 queues × 3 waiting
    expect(rejected).toBe(13)
    expect(level.book(0, "light", 1, 100)._tag).toBe("Dispatched")
  })
})

describe("PriorityAndFairness", () => {
  it("counts per level: lease renewals of nodes stay in node-high while a LIST storm is rejected in global-default", () => {
    const apf = new PriorityAndFairness(600)
    const user = { user: "storm", groups: ["system:authenticated"], verb: "list", resource: "pods", namespace: undefined }
    for (let i = 0; i < 400; i++) apf.book(0, { ...user, user: `storm-${i % 4}` }, 10, 1_000)
    const lease = apf.book(0, { user: "system:node:n1", groups: ["system:nodes"], verb: "update", resource: "leases", namespace: "kube-node-lease" }, 1, 2)
    expect(lease).toMatchObject({ _tag: "Dispatched", start: 0, end: 2, level: "node-high", flowSchema: "system-node-high" })
    const m = apf.metrics()
    // 49 seats: 4 LISTs of 10 run at once (40 seats); the rest queue in 4 flows × 6 queues × 50 or wait > 15 s
    expect(m["global-default"]!.dispatched + m["global-default"]!.rejected).toBe(400)
    expect(m["global-default"]!.rejected).toBeGreaterThan(0)
    expect(m["global-default"]!.rejectedBy["time-out"]).toBe(m["global-default"]!.rejected)
    expect(m["node-high"]).toMatchObject({ seats: 98, dispatched: 1, rejected: 0 })
    expect(m.exempt!.seats).toBe("unlimited")
  })
})

describe("ServiceTimeModel with APF (the node agents' booking)", () => {
  const n1 = { user: "system:node:n1", groups: ["system:nodes", "system:authenticated"] }
  it("a node's 302nd lease write at once finds its hand full (1 running + 6 queues × 50), is retried after 1 s and ends then", () => {
    const model = new ServiceTimeModel({ ...defaultParameters, writeBaseMs: 2, perKiBMs: 0, maxRequestsInflight: 1, maxMutatingRequestsInflight: 1 })
    expect(model.apf?.metrics()["node-high"]?.seats).toBe(1)
    const ends = Array.from({ length: 302 }, () => model.complete(0, "mutating", 0, 0, model.requests.of("update", Leases, nodeLeaseNamespace, undefined, n1)).end)
    expect(ends.slice(0, 3)).toEqual([2, 4, 6])
    expect(ends[300]).toBe(602)
    expect(ends[301]).toBe(1_002)
    expect(model.apf?.metrics()["node-high"]).toMatchObject({ dispatched: 302, rejected: 1, rejectedBy: { "queue-full": 1 } })
  })

  it("with apf: false the same writes only queue (no 429), as before APF", () => {
    const model = new ServiceTimeModel({ ...defaultParameters, writeBaseMs: 2, perKiBMs: 0, maxMutatingRequestsInflight: 1, apf: false })
    const ends = Array.from({ length: 302 }, () => model.complete(0, "mutating", 0, 0, model.requests.of("update", Leases, nodeLeaseNamespace, undefined, n1)).end)
    expect(ends[301]).toBe(604)
    expect(model.apf).toBeUndefined()
  })
})

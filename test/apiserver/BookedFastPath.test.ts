/**
 * A booked call that starts at once is booked by its callers' group's priority level, without reading the caller's own
 * request (simulator/apiserver/BookedClient.ts `IdentityGroup`, `ServiceTimeModel.completeAtOnce`). It must book exactly
 * what the general path books: the same script of calls — node agents, users a FlowSchema names, other groups;
 * storms at one instant (queues, 429s, calls given up), arrivals out of order — is sent once on the fast path and once
 * through a model with a served-request observer, which takes every call through `ServiceTimeModel.completeFor` and
 * APF's `place` with the caller's own request (the general path), and every answer, APF count and queue wait is
 * compared.
 */
import { describe, expect, it, vi } from "@effect/vitest"
import { Either } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { nodeLeaseNamespace } from "../../src/api/WellKnown.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { BookedClient } from "../../simulator/apiserver/BookedClient.js"
import { classifiedByGroups } from "../../simulator/apiserver/apf/Bootstrap.js"
import { defaultParameters, ServiceTimeModel, type ServiceTimeParameters } from "../../simulator/apiserver/ServiceTime.js"
import type { ModelRequest } from "../../simulator/apiserver/ModelRequests.js"

const lease: KObject = { metadata: { name: "n", namespace: nodeLeaseNamespace }, spec: { holderIdentity: "n" } }
const answer = Either.right({ code: 200, object: lease, warnings: [] })

/** Answers every call at once (the server's immediate view). */
const immediate = {
  get: () => Either.right(lease),
  list: () => Either.right({ items: [], metadata: {} }),
  create: () => answer,
  update: () => answer,
  patch: () => answer,
  delete: () => Either.right({ code: 200, object: lease }),
  deleteCollection: () => Either.right({ items: [], metadata: {} })
} as unknown as ApiClientService

type Identity = { readonly user: string; readonly groups: ReadonlyArray<string> }

const nodes: ReadonlyArray<Identity> = Array.from({ length: 12 }, (_, i) => ({ user: `system:node:node-${i}`, groups: ["system:nodes", "system:authenticated"] }))

/** Callers not alike: users FlowSchemas name (leader election, workload-high), other groups, none. */
const others: ReadonlyArray<Identity> = [
  { user: "system:kube-scheduler", groups: ["system:authenticated"] },
  // named by system-leader-election: its lease writes are not node-high's, whatever its groups
  { user: "system:kube-scheduler", groups: ["system:nodes", "system:authenticated"] },
  { user: "system:kube-controller-manager", groups: ["system:authenticated"] },
  { user: "alice", groups: ["system:authenticated"] },
  { user: "system:serviceaccount:default:app", groups: ["system:serviceaccounts", "system:authenticated"] },
  { user: "root", groups: ["system:masters"] },
  { user: "nobody", groups: [] }
]

const calls: ReadonlyArray<(b: BookedClient) => unknown> = [
  (b) => b.update(Leases, lease, { namespace: nodeLeaseNamespace }),
  (b) => b.get(Leases, "n", { namespace: nodeLeaseNamespace }),
  (b) => b.get(Nodes, "n", { resourceVersion: "0" }),
  (b) => b.patch(Nodes, "n", "strategic", { status: { conditions: [] } }, { subresource: "status" }),
  (b) => b.patch(Pods, "p", "strategic", { status: { phase: "Running" } }, { namespace: "default", subresource: "status" }),
  (b) => b.list(Pods, { namespace: "default" }),
  (b) => b.create(Pods, { metadata: { name: "p", namespace: "default" }, spec: { containers: [{ name: "c", image: "i" }] } }, { namespace: "default" }),
  (b) => b.delete(Pods, "p", { namespace: "default" }),
  (b) => b.update(Leases, lease, { namespace: "kube-system" })
]

/**
 * Sends the script: a seeded sequence of calls by the callers, at instants mostly advancing, some going back (shards
 * keep their own clocks), with storms of calls at one instant. Returns each call's end and whether it was given up.
 */
const run = (model: ServiceTimeModel, identities: ReadonlyArray<Identity>, listObjects: number, steps: number): Array<string> => {
  model.objectCount = () => listObjects
  const booked = new BookedClient(model)
  booked.client = immediate
  // made as a shard makes its agents' records
  const who = identities.map((identity) => booked.callerOf(identity))
  let seed = 12345
  const next = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 8) % n
  const answers: Array<string> = []
  let t = 1_000
  for (let i = 0; i < steps; i++) {
    const step = next(20)
    // a storm: many calls at one instant; else a few ms on, sometimes a few back
    t += step < 3 ? 0 : step < 5 ? -next(4) : next(6)
    const storm = step === 0 ? 40 : 1
    for (let j = 0; j < storm; j++) {
      booked.t = t
      booked.caller = who[next(who.length)]!
      const sent = calls[next(calls.length)]!(booked)
      answers.push(`${booked.completion.end} ${booked.completion.givenUp} ${sent === undefined}`)
    }
  }
  return answers
}

/** A served-request observer: the model books every call on the general path and tells it what it served. */
const observed = (model: ServiceTimeModel): Array<string> => {
  const served: Array<string> = []
  model.observer = { served: (r: ModelRequest, code: number, arrival: number, start: number, end: number) => void served.push(`${r.user} ${code} ${arrival} ${start} ${end}`) }
  return served
}

/**
 * The script sent by `identities` on the fast path and on the general path, compared; `listObjects`: what a LIST
 * returns (600,000 objects hold a seat 3 s).
 */
const compare = (params: ServiceTimeParameters, identities: ReadonlyArray<Identity>, listObjects = 0, steps = 1_500) => {
  const fast = new ServiceTimeModel(params)
  const general = new ServiceTimeModel(params)
  observed(general)
  const generalBookings = vi.spyOn(general, "completeFor")
  const fastBookings = vi.spyOn(fast, "completeFor")
  const answers = run(fast, identities, listObjects, steps)
  expect(answers).toEqual(run(general, identities, listObjects, steps))
  expect(fast.givenUp).toBe(general.givenUp)
  expect(fast.apf?.metrics()).toEqual(general.apf?.metrics())
  // the general model booked every call in full; the fast one only the calls it could not book at once
  expect(generalBookings).toHaveBeenCalledTimes(answers.length)
  return { fast, general, answers, generalCalls: fastBookings.mock.calls.length }
}

describe("BookedClient's booking of a call of callers alike that starts at once equals the general path's", () => {
  // 6 seats: one for most limited levels (levelSeats), held 3 s by a LIST, so calls queue, time out, are given up
  const contended = { ...defaultParameters, maxRequestsInflight: 4, maxMutatingRequestsInflight: 2, perKiBMs: 1 }

  it("with APF: the same ends, 429s, calls given up, per-level counts and queue waits", () => {
    const { fast, answers, generalCalls } = compare(contended, nodes, 600_000)
    const levels = fast.apf!.metrics()
    expect(fast.givenUp).toBeGreaterThan(0)
    expect(levels.system!.rejectedBy["time-out"]).toBeGreaterThan(0)
    expect(levels["node-high"]!.queueWaitMs.p99).toBeGreaterThan(0)
    // some calls took the fast path, the rest (waiting, rejected) the general one
    expect(generalCalls).toBeGreaterThan(0)
    expect(generalCalls).toBeLessThan(answers.length)
  })

  it("with APF and the default seats: nothing waits, every call on the fast path", () => {
    const { answers, generalCalls } = compare(defaultParameters, nodes)
    expect(generalCalls).toBe(0)
    expect(answers.length).toBeGreaterThan(1_500)
  })

  it("with dispersion: each call draws its service-time factor once, in the same order", () => {
    const { generalCalls } = compare({ ...contended, readDispersion: 4, writeDispersion: 2.5 }, nodes, 20_000)
    expect(generalCalls).toBeGreaterThan(0)
  })

  it("without APF (the two pools, FIFO)", () => {
    const { general } = compare({ ...defaultParameters, maxRequestsInflight: 2, maxMutatingRequestsInflight: 1, apf: false }, nodes, 20_000)
    expect(general.apf).toBeUndefined()
  })

  it("callers not alike (a user a FlowSchema names, other groups) are each booked as themselves, in every level", () => {
    for (const other of others) {
      // the other caller made last, and first
      for (const identities of [[...nodes, other], [other, ...nodes]]) {
        const { answers, generalCalls } = compare(defaultParameters, identities, 0, 200)
        expect(generalCalls, other.user).toBe(answers.length)
      }
    }
    const { fast } = compare(contended, [...nodes, ...others], 600_000)
    const levels = fast.apf!.metrics()
    for (const level of ["exempt", "system", "node-high", "leader-election", "workload-high", "workload-low", "global-default", "catch-all"])
      expect(levels[level]!.dispatched, level).toBeGreaterThan(0)
    expect(levels["catch-all"]!.rejectedBy["concurrency-limit"]).toBeGreaterThan(0)
  })

  it("classifiedByGroups: users a FlowSchema names are classified as themselves, any other user by the groups", () => {
    expect(classifiedByGroups("system:kube-scheduler")).toBe(false)
    expect(classifiedByGroups("system:kube-controller-manager")).toBe(false)
    expect(classifiedByGroups("system:node:node-0")).toBe(true)
    expect(classifiedByGroups("alice")).toBe(true)
  })
})

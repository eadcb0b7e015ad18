import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { nodeLeaseNamespace } from "../../src/api/WellKnown.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { BookedClient, CallerRequests } from "../../simulator/apiserver/BookedClient.js"
import { defaultParameters, ServiceTimeModel } from "../../simulator/apiserver/ServiceTime.js"

const node0 = { user: "system:node:node-0", groups: ["system:nodes", "system:authenticated"] }

/** A shard's booked calls, pointed at node-0. */
const bookedAs = (model: ServiceTimeModel | undefined, caller = new CallerRequests(node0)): BookedClient => {
  const booked = new BookedClient(model)
  booked.caller = caller
  return booked
}
const lease: KObject = { metadata: { name: "node-0", namespace: nodeLeaseNamespace }, spec: { holderIdentity: "node-0" } }

/** A client answering at once, recording what reached it. */
const recording = (calls: Array<string>): ApiClientService =>
  ({
    get: (resource: { plural: string }) => (calls.push(`get ${resource.plural}`), Either.right(lease)),
    update: (resource: { plural: string }, obj: KObject) => (calls.push(`update ${resource.plural}`), Either.right({ code: 200, object: obj, warnings: [] })),
    patch: (resource: { plural: string }, _name: string, _type: string, _patch: unknown, opts?: { subresource?: string }) => (
      calls.push(`patch ${resource.plural}/${opts?.subresource}`), Either.right({ code: 200, object: lease, warnings: [] })
    )
  }) as unknown as ApiClientService

describe("BookedClient: the server model classifies and books a caller's requests", () => {
  it("a GET is a read of one object, a write is mutating, each in the APF level of the caller's identity", () => {
    const model = new ServiceTimeModel({ ...defaultParameters, perKiBMs: 1 })
    const calls: Array<string> = []
    const booked = bookedAs(model)
    booked.client = recording(calls)
    booked.t = 1_000
    const got = booked.get(Leases, "node-0", { namespace: nodeLeaseNamespace })
    // readBaseMs + perObjectMs × 1 + 420 bytes of a lease
    expect(booked.completion).toMatchObject({ givenUp: false })
    expect(booked.completion.end).toBeCloseTo(1_000 + 1 + 0.005 + 420 / 1024, 6)
    expect(Either.isEither(got) && Either.isRight(got)).toBe(true)
    booked.t = 2_000
    booked.update(Leases, lease, { namespace: nodeLeaseNamespace })
    expect(booked.completion.end).toBeCloseTo(2_000 + 2 + 420 / 1024, 6)
    booked.t = 3_000
    booked.patch(Pods, "p0", "merge", { status: {} }, { namespace: "default", subresource: "status" })
    expect(booked.completion.end).toBeCloseTo(3_000 + 2 + 900 / 1024, 6)
    expect(calls).toEqual(["get leases", "update leases", "patch pods/status"])
    // the lease requests went to node-high, the pod status to system (docs/apf.md)
    const levels = model.apf!.metrics()
    expect(levels["node-high"]?.dispatched).toBe(2)
    expect(levels.system?.dispatched).toBe(1)
  })

  it("classifies the request the caller made, as the caller: the lease namespace is the call's (this simulator's), made once per caller", () => {
    const model = new ServiceTimeModel()
    const caller = new CallerRequests(node0)
    const booked = bookedAs(model, caller)
    booked.client = recording([])
    booked.update(Leases, lease, { namespace: nodeLeaseNamespace })
    booked.get(Leases, "node-0", { namespace: nodeLeaseNamespace })
    const [update, get] = caller.made
    expect(update).toMatchObject({ user: "system:node:node-0", verb: "update", resource: "leases", namespace: "platform-node-lease" })
    expect(update?.classification?.flow).toBe("system-node-high/system:node:node-0")
    expect(get).toMatchObject({ verb: "get", resource: "leases" })
    // kept: the next renewal books the same record
    booked.update(Leases, lease, { namespace: nodeLeaseNamespace })
    expect(caller.made[0]).toBe(update)
    expect(caller.made).toHaveLength(2)
    // another node's requests are its own, through the same booked calls
    const node1 = new CallerRequests({ user: "system:node:node-1", groups: node0.groups })
    booked.caller = node1
    booked.update(Leases, lease, { namespace: nodeLeaseNamespace })
    expect(node1.made[0]?.classification?.flow).toBe("system-node-high/system:node:node-1")
  })

  it("a request given up after client-go's 429 retries is never sent: no answer, its end the last 429", () => {
    const model = new ServiceTimeModel({ ...defaultParameters, maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 })
    // node-high's one seat is held for 1,000 s by another node's write
    model.apf!.place(0, model.requests.of("update", Leases, nodeLeaseNamespace, undefined, { user: "system:node:x", groups: node0.groups }), 1, 1_000_000)
    const calls: Array<string> = []
    const booked = bookedAs(model)
    booked.client = recording(calls)
    expect(booked.patch(Nodes, "node-0", "merge", {}, { subresource: "status" })).toBeUndefined()
    expect(booked.completion).toMatchObject({ end: 175_000, givenUp: true })
    expect(calls).toEqual([])
    expect(model.givenUp).toBe(1)
  })

  it("without a model nothing is booked: a call ends when it is made (real time: the clock says when it came)", () => {
    const calls: Array<string> = []
    const booked = bookedAs(undefined)
    booked.client = recording(calls)
    booked.t = 5_000
    booked.update(Leases, lease, { namespace: nodeLeaseNamespace })
    expect(booked.completion).toMatchObject({ end: 5_000, givenUp: false })
    expect(calls).toEqual(["update leases"])
  })

  it.effect("answers with the client's effect when it cannot answer at once (real time, a paused server)", () =>
    Effect.gen(function* () {
      const booked = bookedAs(new ServiceTimeModel())
      booked.client = { get: () => Effect.succeed(lease) } as unknown as ApiClientService
      expect(yield* booked.get(Leases, "node-0", { namespace: nodeLeaseNamespace })!).toBe(lease)
    })
  )
})

/**
 * A node agent's request that API Priority and Fairness rejects on every one of client-go's retries is given up
 * (`ServiceTimeModel.complete`, `ShardContext.send`): it is never sent, is counted as a failed 429, and the agent reacts as upstream's
 * does to an error, when the last 429 is answered (docs/apf.md). The model has 3 seats, one per priority level that
 * matters here; a request of another node holds a level's seat from 0 to `until`, so every request of that level
 * arriving before `until` − 175 s waits 15 s eleven times and is given up 175 s after it arrived.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import type { WriteResult } from "../../src/api/Requests.js"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { nodeLeaseNamespace } from "../../src/api/WellKnown.js"
import * as Status from "../../src/api/Status.js"
import type { ApiClientService } from "../../src/client/ApiClient.js"
import { ModelRequests } from "../../simulator/apiserver/ModelRequests.js"
import { defaultParameters, ServiceTimeModel, type ModelRequest } from "../../simulator/apiserver/ServiceTime.js"
import { rfc3339 } from "../../simulator/apiserver/SystemMeta.js"
import { NodeAgentMetrics, type NodeAgentEnvironment } from "../../simulator/nodeagent/AgentEnvironment.js"
import { makeAgentState } from "../../simulator/nodeagent/AgentState.js"
import { LeaseRenewer } from "../../simulator/nodeagent/LeaseRenewer.js"
import type { PreparePod } from "../../simulator/nodeagent/PodStarter.js"
import { registrationBackoffMs } from "../../simulator/nodeagent/Registration.js"
import { Kind, ShardContext } from "../../simulator/nodeagent/ShardContext.js"
import { makeNode } from "../../simulator/nodeagent/SimulatedNode.js"
import { StatusReporter } from "../../simulator/nodeagent/StatusReporter.js"
import { simulateOneNode, statusOf } from "./oneNode.js"
import { agentSettings } from "./settings.js"

/** Another node's requests: its lease update is in node-high, its pod status in system (docs/apf.md). */
const blocker = { user: "system:node:blocker", groups: ["system:nodes", "system:authenticated"] }
const nodeHigh = new ModelRequests().of("update", Leases, nodeLeaseNamespace, undefined, blocker)
const system = new ModelRequests().of("patch", Pods, "default", "status", blocker)

/** A model of 3 seats whose levels of `held` are held from 0 to `until` (ms). */
const blocked = (until: number, ...held: ReadonlyArray<ModelRequest>): ServiceTimeModel => {
  const model = new ServiceTimeModel({ ...defaultParameters, maxRequestsInflight: 2, maxMutatingRequestsInflight: 1 })
  for (const request of held) model.apf!.place(0, request, 1, until)
  return model
}

/** No jitter: a period is exactly its interval. */
const noJitter = { seed: 0, next: () => 0, between: () => 0, int: () => 0, split: () => noJitter } as never

const node0 = () => makeNode({ name: "node-0", zone: "z", region: "r", cpu: "4", memory: "16Gi", pods: 110, startAt: 0 })

/** A shard's context on the virtual clock (the client answers later: its requests are run by the test). */
const contextOf = (client: Partial<ApiClientService>, serviceTime: ServiceTimeModel) => {
  const env: NodeAgentEnvironment = {
    client: client as ApiClientService,
    serviceTime,
    settings: agentSettings,
    metrics: new NodeAgentMetrics(),
    pauses: [],
    resolutionMs: 1_000
  }
  return new ShardContext(env, noJitter)
}

/** The next event due: its time and kind. */
const popNext = (ctx: ShardContext): { readonly time: number; readonly kind: Kind } | undefined =>
  ctx.due.popDue(Infinity) === undefined ? undefined : { time: ctx.due.time, kind: ctx.due.tag as Kind }

describe("given-up node-agent requests", () => {
  it("lease: an update given up writes nothing and is retried at once 5 times, then ensure-lease backs off", () => {
    const calls: Array<string> = []
    const stored: KObject = { metadata: { name: "node-0", namespace: nodeLeaseNamespace, resourceVersion: "1" }, spec: { holderIdentity: "node-0", leaseDurationSeconds: 40 } }
    const written = (obj: KObject): WriteResult => ({ code: 200, object: { ...obj, metadata: { ...obj.metadata, resourceVersion: "2" } }, warnings: [] })
    const client: Partial<ApiClientService> = {
      get: () => Effect.sync(() => (calls.push("get"), stored)),
      update: (_resource, obj) => Effect.sync(() => (calls.push("update"), written(obj)))
    }
    // node-high is held until 1,100 s
    const model = blocked(1_100_000, nodeHigh)
    const ctx = contextOf(client, model)
    const renewer = new LeaseRenewer(ctx, () => {})
    const a = makeAgentState(node0(), agentSettings, [])
    a.leaseMeta = stored.metadata
    a.leaseSpec = stored.spec as Record<string, unknown>

    const renewals: Array<number> = []
    let next: { time: number; kind: Kind } | undefined = { time: 1_000, kind: Kind.Lease }
    while (next !== undefined && next.time < 1_100_000) {
      expect(next.kind).toBe(Kind.Lease)
      renewals.push(next.time)
      ctx.now = next.time
      const request = renewer.renew(a, next.time)
      if (request !== undefined) Effect.runSync(request)
      next = popNext(ctx)
    }
    // five updates, each given up 175 s after it was tried, and tried again at once; then ensure-lease at once,
    // whose GET is given up too, and again 200 ms (the first back-off) after it
    expect(renewals).toEqual([1_000, 176_000, 351_000, 526_000, 701_000, 876_000, 1_051_200])
    expect(model.givenUp).toBe(6)
    expect(ctx.env.metrics.errorsByCode).toEqual({ "429": 6 })
    expect(ctx.env.metrics.leaseFailures).toBe(6)
    // the last GET was rejected three times and then dispatched when the seat came free: the lease is read and
    // renewed; nothing was sent before
    expect(calls).toEqual(["get", "update"])
    expect(ctx.env.metrics.leaseWrites).toBe(1)
    expect(a.ensuring).toBe(false)
    // the next renewal, one interval after the update's answer (the seat freed at 1,100 s, a read, then a write)
    expect(next?.kind).toBe(Kind.Lease)
    expect(next?.time).toBe(1_110_003)
  })

  it("lease: a renewal written after a given-up try leaves the next renewal its 5 tries", () => {
    const written = (obj: KObject): WriteResult => ({ code: 200, object: obj, warnings: [] })
    const model = blocked(200_000, nodeHigh)
    const ctx = contextOf({ update: (_resource, obj) => Effect.sync(() => written(obj)) }, model)
    const renewer = new LeaseRenewer(ctx, () => {})
    const a = makeAgentState(node0(), agentSettings, [])
    a.leaseMeta = { name: "node-0", namespace: nodeLeaseNamespace, resourceVersion: "1" }
    // the renewal at 1 s is given up; its second try waits for the seat (free at 200 s) and is written
    let next: { time: number; kind: Kind } | undefined = { time: 1_000, kind: Kind.Lease }
    let failuresBefore = 0
    let heldAgain = false
    while (next !== undefined && !a.ensuring) {
      if (next.time >= 300_000 && !heldAgain) {
        // node-high is held again from 300 s on: the next renewal fails
        model.apf!.place(300_000, nodeHigh, 1, 10_000_000)
        heldAgain = true
        failuresBefore = ctx.env.metrics.leaseFailures
      }
      ctx.now = next.time
      const request = renewer.renew(a, next.time)
      if (request !== undefined) Effect.runSync(request)
      next = popNext(ctx)
    }
    expect(failuresBefore).toBe(1)
    // five tries of the update (not four: the written renewal ended the first one's count), then ensure-lease
    expect(ctx.env.metrics.leaseFailures - failuresBefore).toBe(5)
  })

  it("lease: ensure-lease's GET given up backs off 200 ms, 400 ms, … up to 7 s", () => {
    const model = blocked(10_000_000, nodeHigh)
    const ctx = contextOf({}, model)
    const renewer = new LeaseRenewer(ctx, () => {})
    const a = makeAgentState(node0(), agentSettings, [])
    // no lease known: ensure-lease; the first failure falls back to it at once, the others back off
    const tries: Array<number> = []
    for (let t: number | undefined = 1_000; t !== undefined && tries.length < 9; t = popNext(ctx)?.time) {
      tries.push(t)
      expect(renewer.renew(a, t)).toBeUndefined()
    }
    const gaps = tries.slice(1).map((t, i) => t - tries[i]! - 175_000)
    expect(gaps).toEqual([0, 200, 400, 800, 1_600, 3_200, 6_400, 7_000])
    expect(ctx.env.metrics.errorsByCode["429"]).toBe(9)
    expect(ctx.env.metrics.leaseFailures).toBe(9)
  })

  it("lease: a create given up after ensure-lease's 404 creates nothing and goes on backing off", () => {
    const calls: Array<string> = []
    const client: Partial<ApiClientService> = {
      get: () => Effect.suspend(() => (calls.push("get"), Effect.fail(Status.notFound({ group: "coordination.platform", plural: "leases" }, "node-0")))),
      create: () => Effect.sync((): WriteResult => (calls.push("create"), { code: 201, object: { metadata: { name: "node-0" } }, warnings: [] }))
    }
    // node-high free: ensure-lease's GET is dispatched at once and takes its seat until `answered`
    const model = blocked(0)
    const ctx = contextOf(client, model)
    const renewer = new LeaseRenewer(ctx, () => {})
    const a = makeAgentState(node0(), agentSettings, [])
    // in ensure-lease's back-off already: the next sleep is 800 ms
    a.ensuring = true
    a.backoffMs = 800
    const request = renewer.renew(a, 1_000)!
    const answered = 1_000 + model.serviceMs("read", 1, 420)
    // another node's write comes while the GET is served and holds the seat for 1,000 s: the create waits behind it
    model.apf!.place(1_000.5, nodeHigh, 1, 1_000_000)
    Effect.runSync(request)
    expect(calls).toEqual(["get"])
    expect(ctx.env.metrics.leaseCreates).toBe(0)
    // the 404 is an answer (not counted); the create is given up 175 s after it was tried, then sleeps 800 ms
    expect(ctx.env.metrics.errorsByCode).toEqual({ "429": 1 })
    expect([a.ensuring, a.backoffMs]).toEqual([true, 1_600])
    expect(popNext(ctx)).toEqual({ time: Math.ceil(answered + 175_000) + 800, kind: Kind.Lease })
  })

  it("node status: a GET given up posts nothing and checks again one period later; a PATCH given up writes nothing", () => {
    const patches: Array<number> = []
    const node: KObject = { metadata: { name: "node-0" }, status: { conditions: [] } }
    const client: Partial<ApiClientService> = {
      get: () => Effect.succeed(node),
      patch: () => Effect.sync((): WriteResult => (patches.push(1), { code: 200, object: { metadata: { name: "node-0" } }, warnings: [] }))
    }
    const model = blocked(500_000, nodeHigh)
    const ctx = contextOf(client, model)
    const reporter = new StatusReporter(ctx, () => {})
    const a = makeAgentState(node0(), agentSettings, [])
    a.current = node

    // the GET (rv 0) is given up at 176 s: no PATCH, the next check one period after
    expect(reporter.check(a, 1_000)).toBeUndefined()
    expect(popNext(ctx)).toEqual({ time: 186_000, kind: Kind.Status })
    // a PATCH (here on its own, as when the node's bucket delayed it) given up: nothing written, the report still due
    expect(reporter.post(a, 2_000)).toBeUndefined()
    expect(patches).toEqual([])
    expect(a.lastReport).toBe(-Infinity)
    expect(ctx.env.metrics.statusPatches).toBe(0)
    expect(ctx.env.metrics.errorsByCode).toEqual({ "429": 2 })
    expect(model.givenUp).toBe(2)
    // once node-high has a seat again the next check posts what was not written
    ctx.now = 600_000
    Effect.runSync(reporter.check(a, 600_000)!)
    expect(patches).toEqual([1])
    // posted when the GET (rv 0) answered
    expect(a.lastReport).toBe(600_000 + model.serviceMs("read", 1, 1_600))
    expect(ctx.env.metrics.statusPatches).toBe(1)
  })

  it("registration: a POST given up creates no Node and is tried again after the back-off", () => {
    expect([1, 2, 3, 6, 7, 20].map(registrationBackoffMs)).toEqual([200, 400, 800, 6_400, 7_000, 7_000])
    const { server, metrics, model } = simulateOneNode(600_000, { model: blocked(400_000, nodeHigh) })
    // tries at 1 s (given up at 176 s), 176.2 s (given up at 351.2 s), 351.6 s: dispatched when the seat frees at
    // 400 s. The server sees a request at the shard's wake-up (352 s); the agent learns of it at 400 s
    expect(metrics.registrations).toBe(1)
    expect(model.givenUp).toBe(2)
    expect(metrics.errorsByCode).toEqual({ "429": 2 })
    expect(server.store.lookup(Nodes, undefined, "node-0")?.obj.metadata.creationTimestamp).toBe(rfc3339(352_000))
    // its lease is made once it is registered
    expect(server.store.lookup(Leases, nodeLeaseNamespace, "node-0")?.obj.metadata.creationTimestamp).toBe(rfc3339(401_000))
  })

  it("pod status: a Running write given up leaves the pod Pending on the server; it is written one sync later", () => {
    // system (pod status) is held until 300 s; registration, lease and node status (node-high) go through
    // started at 1 s, given up at 176 s: not written
    const early = simulateOneNode(185_000, { model: blocked(300_000, system) })
    expect(early.metrics.registrations).toBe(1)
    expect(early.server.store.lookup(Leases, nodeLeaseNamespace, "node-0")).toBeDefined()
    expect(["p0", "p1"].map((name) => statusOf(early.get(name))?.phase)).toEqual(["Pending", "Pending"])
    expect(early.metrics.podStatusWrites).toBe(0)
    expect(early.metrics.errorsByCode).toEqual({ "429": 2 })

    // written again at the status manager's next sync, 10 s after the last 429 (its latency the model's: it waits
    // for the seat until 300 s; the server has it when it is sent): Running, with the time of that write
    const late = simulateOneNode(190_000, { model: blocked(300_000, system) })
    expect(["p0", "p1"].map((name) => statusOf(late.get(name))?.phase)).toEqual(["Running", "Running"])
    expect(statusOf(late.get("p0"))?.startTime).toBe(rfc3339(186_000))
    expect(late.metrics.podStatusWrites).toBe(2)
    expect(late.model.givenUp).toBe(2)
    expect(late.metrics.errorsByCode).toEqual({ "429": 2 })
  })

  it("pod status: a waiting status given up is not written; the pod's next try posts it", () => {
    // every preparation fails (an image pull backing off): the pod worker tries again 200 s later
    const preparePod: PreparePod = (_pod, _node, t) => ({ at: t, retryAt: t + 200_000, reason: "ImagePullBackOff", status: () => ({ status: { containerStatuses: [{ name: "app", state: { waiting: { reason: "ImagePullBackOff" } } }] } }) })
    const waitingOf = (pod: KObject | undefined) =>
      (pod?.status as { containerStatuses?: ReadonlyArray<{ state?: { waiting?: { reason?: string } } }> } | undefined)?.containerStatuses?.[0]?.state?.waiting?.reason
    // tried at 1 s, given up at 176 s; the pod's next try is at 201 s
    const early = simulateOneNode(200_000, { model: blocked(300_000, system), preparePod })
    expect(["p0", "p1"].map((name) => waitingOf(early.get(name)))).toEqual([undefined, undefined])
    expect(early.metrics.podWaitingWrites).toBe(0)
    expect(early.metrics.errorsByCode).toEqual({ "429": 2 })
    // the next try's status waits for the seat (free at 300 s); the server has it when it is sent (the shard's
    // wake-up), its latency is the model's
    const late = simulateOneNode(210_000, { model: blocked(300_000, system), preparePod })
    expect(["p0", "p1"].map((name) => waitingOf(late.get(name)))).toEqual(["ImagePullBackOff", "ImagePullBackOff"])
    expect(late.metrics.podWaitingWrites).toBe(2)
    expect(late.model.givenUp).toBe(2)
  })

  it("pod status: a Failed write (refused by admission) given up is written when the pod is admitted again", () => {
    const diskPressure = new Set(["DiskPressure"] as const)
    const early = simulateOneNode(185_000, { model: blocked(300_000, system), pressure: diskPressure })
    expect(["p0", "p1"].map((name) => statusOf(early.get(name))?.phase)).toEqual(["Pending", "Pending"])
    // admitted again at 186 s, one status-manager sync after the last 429: refused again (the node still reports
    // disk pressure) and written
    const late = simulateOneNode(190_000, { model: blocked(300_000, system), pressure: diskPressure })
    expect(["p0", "p1"].map((name) => statusOf(late.get(name))?.phase)).toEqual(["Failed", "Failed"])
    expect((late.get("p0")?.status as { reason?: string }).reason).toBe("Evicted")
    expect(late.metrics.podStatusWrites).toBe(0)
    expect(late.metrics.errorsByCode).toEqual({ "429": 2 })
  })
})

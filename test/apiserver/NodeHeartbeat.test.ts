/**
 * A node agent's status report that only beats, written by its own path (simulator/apiserver/NodeHeartbeat.ts),
 * stores, answers and sends exactly what the general patch path does: the same script of status reports sent once as
 * values (the heartbeat path may take them) and once as text from the wire (always the general path) gives the same
 * JSON, write by write — answers, stored nodes with their managed fields, watch events with their previous versions —
 * over the first report after registration, reports in the same second, a condition changed by the agent or by the
 * node lifecycle controller, a heartbeat another manager took, capacity changes, dry runs, bad and unusual times,
 * another condition order, a terminating node, and the pods' status PATCHes in between.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { applyConfig, type ManagedFieldsEntry } from "../../src/api/apply/ManagedFields.js"
import type { KObject } from "../../src/api/Object.js"
import type { PatchType, WriteOptions, WriteResult } from "../../src/api/Requests.js"
import { apiVersionOf, Nodes, Pods, type ResourceType } from "../../src/api/Resources.js"
import { ApiServerImpl, defaultConfig } from "../../simulator/apiserver/ApiServer.js"
import { scopeOf, withManagedFields } from "../../simulator/apiserver/FieldManager.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { writeHeartbeat } from "../../simulator/apiserver/NodeHeartbeat.js"
import { objectKey } from "../../simulator/apiserver/Store.js"
import { rfc3339 } from "../../simulator/apiserver/SystemMeta.js"
import { desiredConditions, healthy, mergeConditions, type NodeCondition, type NodeHealth } from "../../simulator/nodeagent/NodeStatus.js"
import { simulateOneNode } from "../nodeagent/oneNode.js"
import { storedVersions } from "../support/storedVersions.js"

const start = Date.UTC(2026, 0, 1)
const minutes = 60_000
const capacity = { cpu: "4", memory: "16Gi", pods: "110" }
const nodeInfo = { nodeAgentVersion: "v1.26.0", operatingSystem: "linux", architecture: "amd64" }
const pressed: NodeHealth = { ...healthy, memoryPressure: true }

type Status = { readonly capacity?: object; readonly conditions?: ReadonlyArray<NodeCondition> }
const statusOf = (node: KObject | undefined): Status => (node?.status ?? {}) as Status
const entriesOf = (node: KObject | undefined) => (node?.metadata.managedFields ?? []) as ReadonlyArray<ManagedFieldsEntry>

/**
 * A server, its node writes, and every stored version as JSON by revision (what a store subscriber saw). `wire`: every
 * status patch comes as text, as from the wire, so none takes the heartbeat path. `beats`: node writes of a patch with a capacity
 * that kept the stored capacity map itself (the heartbeat path keeps it; the general path's merge patch makes a copy).
 */
const cluster = (wire: boolean) => {
  const server = new ApiServerImpl(defaultConfig, start)
  const client = inProcessClient(server)
  const { seen, previousOf } = storedVersions(server.store)
  let beats = 0
  /** The patch being written sends a capacity (which the general path's merge patch copies). */
  let sendsCapacity = false
  server.store.subscribe((c) => {
    if (sendsCapacity && c.resource === Nodes && c.previous !== undefined && statusOf(c.object).capacity === statusOf(c.previous).capacity) beats++
  })
  const answers: string[] = []
  const take = (answer: unknown): void => {
    const written = answer as Either.Either<WriteResult, unknown>
    answers.push(Either.isLeft(written) ? `error ${JSON.stringify(written.left)}` : JSON.stringify(written.right))
  }
  const patch = (resource: ResourceType, name: string, type: PatchType, body: unknown, now: number, opts: WriteOptions) => {
    sendsCapacity = statusOf(body as KObject).capacity !== undefined
    take(server.patchAt(resource, name, type, wire ? { value: JSON.parse(JSON.stringify(body)), raw: JSON.stringify(body) } : { value: body }, opts, now))
    sendsCapacity = false
  }
  const node = (name: string) => server.store.get(Nodes, name)
  return {
    server,
    seen,
    previousOf,
    answers,
    beats: () => beats,
    /** A registration as `Registration.register` sends it. */
    register: (name: string, now: number, opts: WriteOptions = {}, finalizers?: ReadonlyArray<string>, readyMessage?: string) =>
      take(
        client.at!(now)!.create(
          Nodes,
          {
            metadata: { name, labels: { "kubernetes.io/hostname": name }, ...(finalizers ? { finalizers } : {}) },
            spec: {},
            status: {
              capacity,
              allocatable: capacity,
              conditions: mergeConditions([], desiredConditions(healthy), rfc3339(now)).map((x) => (x.type === "Ready" && readyMessage ? { ...x, message: readyMessage } : x)),
              nodeInfo
            }
          },
          opts
        )
      ),
    /** A status report as `StatusReporter.post` sends it, from the stored conditions; `edit` changes the body first. */
    report: (name: string, now: number, opts: WriteOptions = {}, health = healthy, heartbeat = rfc3339(now), edit?: (status: Record<string, unknown>, body: Record<string, unknown>) => void) => {
      const status: Record<string, unknown> = { capacity, allocatable: capacity, conditions: mergeConditions(statusOf(node(name)).conditions ?? [], desiredConditions(health), heartbeat) }
      const body: Record<string, unknown> = { status }
      edit?.(status, body)
      patch(Nodes, name, "merge", body, now, { subresource: "status", ...opts })
    },
    patch,
    update: (body: KObject, now: number, opts: WriteOptions) =>
      take(server.updateAt(Nodes, body.metadata.name!, wire ? { value: JSON.parse(JSON.stringify(body)), raw: JSON.stringify(body) } : { value: body }, opts, now)),
    node,
    /** A pod bound to `nodeName`, put in the store as SeedPods.ts seeds pods. */
    seedPod: (name: string, nodeName: string) =>
      server.store.putFresh(
        Pods,
        objectKey("default", name),
        {
          metadata: { name, namespace: "default", uid: `uid-${name}`, creationTimestamp: rfc3339(start) },
          spec: { nodeName, containers: [{ name: "app", image: "registry.example/app:1" }] },
          status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: rfc3339(start) }] }
        } as KObject,
        start
      ),
    /** `manager`'s apply of the node's status as it is, stored with the managed fields `applyConfig` gives. */
    applied: (name: string, manager: string, now: number) => {
      const live = node(name)!
      const config = { apiVersion: apiVersionOf(Nodes), kind: "Node", metadata: { name }, status: { conditions: statusOf(live).conditions } } as KObject
      const { object, managedFields } = Either.getOrThrow(applyConfig(live, config, manager, false, scopeOf(Nodes, "status"), rfc3339(now)))
      server.store.put(Nodes, name, withManagedFields({ ...live, status: object.status }, managedFields), now)
    },
    remove: (name: string, now: number) => take(client.at!(now)!.delete(Nodes, name, {}))
  }
}

const podCondition = (type: string, at: string) => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: at })

/** The same writes on both servers. */
const script = (c: ReturnType<typeof cluster>) => {
  let now = start + 1_234
  c.register("a", now)
  c.register("b", now + 1, { fieldManager: "nodeagent" })
  c.register("c", now + 2, {}, ["example.com/keep"])
  c.register("d", now + 3, {}, undefined, "node agent is starting")
  c.seedPod("p", "a")
  // the agent's first status write sets only a message: its status entry holds conditions but no heartbeat
  const ready = statusOf(c.node("d")).conditions!.map((x) => (x.type === "Ready" ? { ...x, message: "node agent is posting ready status" } : x))
  c.patch(Nodes, "d", "merge", { status: { conditions: ready } }, now + 4, { subresource: "status" })
  for (let round = 0; round < 24; round++) {
    now += 5 * minutes + round * 7.25
    // the agent's reports; the first after registration finds no status entry of its own
    c.report("a", now, {}, round === 3 ? pressed : healthy)
    c.report("b", now + 0.5, { fieldManager: "nodeagent" })
    if (round < 18) c.report("c", now + 1)
    c.report("d", now + 1.5)
    // in the second of the last report (the entry keeps its time), with a heartbeat of another second
    if (round % 5 === 1) c.report("a", now + 40, {}, healthy, rfc3339(now - 3_000))
    // the same heartbeat again: a no-op
    if (round === 2) c.report("a", now + 60)
    // the lifecycle controller marks Ready Unknown (its own manager, the heartbeat kept), the agent's next report
    // changes it back
    if (round === 6 || round === 15) {
      const conditions = statusOf(c.node("b")).conditions!.map((x) =>
        x.type === "Ready" ? { ...x, status: "Unknown", reason: "NodeStatusUnknown", message: "Node agent stopped posting node status.", lastTransitionTime: rfc3339(now + 2) } : x
      )
      c.patch(Nodes, "b", "merge", { status: { conditions } }, now + 2, { subresource: "status", fieldManager: "node-lifecycle-controller" })
    }
    // another manager's heartbeat takes the leaves; the agent's next report takes them back
    if (round === 8) c.report("a", now + 3_000, { fieldManager: "intruder" })
    // taints and labels by other managers, in the main resource and through status
    if (round === 9) c.patch(Nodes, "a", "merge", { spec: { taints: [{ key: "example.com/t", effect: "NoSchedule" }] } }, now + 4, { fieldManager: "taint-manager" })
    if (round === 10) c.patch(Nodes, "a", "merge", { metadata: { labels: { at: String(round) } }, status: { conditions: statusOf(c.node("a")).conditions } }, now + 4, { subresource: "status" })
    // a heartbeat with a label
    if (round === 10) c.report("b", now + 2_500, { fieldManager: "nodeagent" }, healthy, rfc3339(now + 2_500), (_, body) => void (body.metadata = { labels: { beat: "yes" } }))
    // a dry run stores nothing
    if (round === 11) c.report("a", now + 5_000, { dryRun: ["All"] })
    // capacity: fewer quantities (the stored ones kept), then another quantity
    if (round === 12) c.report("b", now + 6_000, { fieldManager: "nodeagent" }, healthy, rfc3339(now + 6_000), (s) => void (s.capacity = { cpu: "4" }))
    if (round === 13) c.report("b", now + 6_000, { fieldManager: "nodeagent" }, healthy, rfc3339(now + 6_000), (s) => void (s.capacity = { ...capacity, pods: "100" }))
    // only conditions; only capacity
    if (round === 14) c.report("a", now + 7_000, {}, healthy, rfc3339(now + 7_000), (s) => void (delete s.capacity, delete s.allocatable))
    if (round === 16) c.report("a", now + 7_000, {}, healthy, rfc3339(now + 7_000), (s) => void delete s.conditions)
    // bad and unusual heartbeat texts: refused, a day the quick check leaves to the decoder, fractional seconds
    if (round === 17) {
      c.report("a", now + 8, {}, healthy, "2026-13-01T00:00:00Z")
      c.report("a", now + 9, {}, healthy, "2026-01-30T10:00:00Z")
      c.report("a", now + 10, {}, healthy, "2026-01-31T10:00:00.5Z")
    }
    // a condition with a field of another kind, one with a null, conditions in another order, a field left out
    if (round === 18) {
      const edit = (f: (x: Record<string, unknown>, i: number) => void) => (s: Record<string, unknown>) => {
        s.conditions = (s.conditions as Array<Record<string, unknown>>).map((x) => ({ ...x }))
        ;(s.conditions as Array<Record<string, unknown>>).forEach(f)
      }
      c.report("a", now + 11_000, {}, healthy, rfc3339(now + 11_000), edit((x, i) => void (i === 1 && (x.lastProbeTime = "2026-01-01T00:00:00Z"))))
      c.report("a", now + 12_000, {}, healthy, rfc3339(now + 12_000), edit((x, i) => void (i === 2 && (x.message = null))))
      c.report("a", now + 13_000, {}, healthy, rfc3339(now + 13_000), (s) => void (s.conditions = [...(s.conditions as object[])].reverse()))
      c.report("b", now + 14_000, { fieldManager: "nodeagent" }, healthy, rfc3339(now + 14_000), edit((x, i) => void (i === 0 && delete x.reason)))
      c.report("b", now + 15_000, { fieldManager: "nodeagent" }, healthy, rfc3339(now + 15_000), edit((x, i) => void (i === 3 && (x.type = "MemoryPressure"))))
    }
    // a condition stored with a null (an update of the whole status), then reported with the null
    if (round === 22) {
      const live = c.node("a")!
      const conditions = statusOf(live).conditions!.map((x) => (x.type === "Ready" ? { ...x, message: null } : x))
      c.update({ ...live, status: { ...(live.status as object), conditions } }, now + 1_020, { subresource: "status" })
      c.report("a", now + 2_021, {}, healthy, rfc3339(now + 2_021), (s) => void (s.conditions = statusOf(c.node("a")).conditions!.map((x) => ({ ...x, lastHeartbeatTime: rfc3339(now + 2_021) }))))
    }
    // conditions stored twice under one type (an update of the whole status), then a heartbeat of each
    if (round === 23) {
      const live = c.node("d")!
      const twice = [...statusOf(live).conditions!, statusOf(live).conditions![3]!]
      c.update({ ...live, status: { ...(live.status as object), conditions: twice } }, now + 1_030, { subresource: "status" })
      c.report("d", now + 2_031, {}, healthy, rfc3339(now + 2_031), (s) => void (s.conditions = statusOf(c.node("d")).conditions!.map((x) => ({ ...x, lastHeartbeatTime: rfc3339(now + 2_031) }))))
      c.report("d", now + 3_031, {}, healthy, rfc3339(now + 3_031), (s) => void (s.conditions = statusOf(c.node("d")).conditions!.map((x) => ({ ...x, lastHeartbeatTime: rfc3339(now + 3_031) }))))
    }
    // a strategic merge patch of the same body merges the conditions by type
    if (round === 19) c.patch(Nodes, "a", "strategic", { status: { conditions: mergeConditions(statusOf(c.node("a")).conditions!, desiredConditions(healthy), rfc3339(now + 16_000)) } }, now + 16_000, { subresource: "status" })
    // a manager that applied the conditions as they are shares their fields, heartbeats included (written to the
    // store: the status subresource's apply keeps no managed fields of its own here, see the report of issue 39)
    if (round === 20) c.applied("b", "applier", now + 16)
    // another manager's write between two of the agent's reports: the agent's entry moves after it
    if (round === 21) {
      c.patch(Nodes, "b", "merge", { metadata: { labels: { by: "a-manager" } } }, now + 1_000, { fieldManager: "a-manager" })
      c.report("b", now + 3_050, { fieldManager: "nodeagent" })
    }
    // conditions alike but for their types (an update of the whole status), reported with two types swapped
    if (round === 21) {
      const live = c.node("a")!
      const alike = statusOf(live).conditions!.map((x) => ({ ...x, status: "False", lastTransitionTime: rfc3339(start), reason: "", message: "" }))
      c.update({ ...live, status: { ...(live.status as object), conditions: alike } }, now + 4_000, { subresource: "status" })
      const swapped = statusOf(c.node("a")).conditions!.map((x, i, all) => ({ ...x, type: all[i === 0 ? 1 : i === 1 ? 0 : i]!.type, lastHeartbeatTime: rfc3339(now + 5_000) }))
      c.patch(Nodes, "a", "merge", { status: { conditions: swapped } }, now + 5_000, { subresource: "status" })
    }
    // a terminating node: its reports go the general way
    if (round === 18) c.remove("c", now + 17)
    // the pods' status PATCHes, between the nodes' (a heartbeat's shape, and a node's status on a pod)
    if (round % 4 === 2) {
      c.patch(Pods, "p", "merge", { status: { conditions: [podCondition("PodScheduled", rfc3339(start)), podCondition("Ready", rfc3339(now))] } }, now + 18, { namespace: "default", subresource: "status" })
      c.patch(Pods, "p", "merge", { status: { capacity, conditions: mergeConditions([], desiredConditions(healthy), rfc3339(now)) } }, now + 19, { namespace: "default", subresource: "status" })
    }
  }
  return now
}

describe("NodeHeartbeat", () => {
  it("answers, stores and sends what the general patch path does", () => {
    const direct = cluster(false)
    const general = cluster(true)
    script(direct)
    script(general)
    expect(direct.answers.length).toBeGreaterThan(90)
    expect(direct.answers).toEqual(general.answers)
    expect([...direct.seen]).toEqual([...general.seen])
    expect([...direct.previousOf]).toEqual([...general.previousOf])
    expect(direct.answers.some((a) => a.startsWith("error"))).toBe(true)
    // most reports beat; none from the wire does
    expect(direct.beats()).toBeGreaterThan(40)
    expect(general.beats()).toBe(0)
  })

  it("takes its own path for a heartbeat of the agent's own status entry, and only then", () => {
    const c = cluster(false)
    let now = start
    c.register("a", now)
    // the first report after registration: the status is nobody's yet
    c.report("a", (now += 5 * minutes))
    expect(c.beats()).toBe(0)
    c.report("a", (now += 5 * minutes))
    expect(c.beats()).toBe(1)
    const entries = entriesOf(c.node("a"))
    expect(entries.map((e) => [e.manager, e.subresource, e.time])).toEqual([
      [undefined, undefined, rfc3339(start)],
      [undefined, "status", rfc3339(now)]
    ])
    // a changed condition, another manager's heartbeat, a dry run: the general path
    c.report("a", (now += 5 * minutes), {}, pressed)
    c.report("a", (now += 5 * minutes), { fieldManager: "intruder" }, pressed)
    c.report("a", (now += 5 * minutes), { dryRun: ["All"] }, pressed)
    expect(c.beats()).toBe(1)
    expect(entriesOf(c.node("a")).map((e) => e.manager)).toEqual([undefined, undefined, "intruder"])
    // the intruder holds the heartbeat: the agent takes it back the general way, then beats again
    c.report("a", (now += 5 * minutes), {}, pressed)
    expect(c.beats()).toBe(1)
    c.report("a", (now += 5 * minutes), {}, pressed)
    expect(c.beats()).toBe(2)
    // a body as text (from the wire): the general path; then a value again
    const body = { status: { capacity, conditions: mergeConditions(statusOf(c.node("a")).conditions!, desiredConditions(pressed), rfc3339(now + 1_000)) } }
    const before = c.node("a")
    const answer = c.server.patchAt(Nodes, "a", "merge", { value: body, raw: JSON.stringify(body) }, { subresource: "status" }, now + 1_000)
    expect(Either.isRight(answer)).toBe(true)
    expect(entriesOf(c.node("a"))[1]!.time).toBe(rfc3339(now + 1_000))
    expect(statusOf(c.node("a")).capacity).not.toBe(statusOf(before).capacity)
    c.report("a", (now += 5 * minutes), {}, pressed)
    expect(c.beats()).toBe(3)
  })

  it("never takes a pod's status PATCH, whatever its body", () => {
    const c = cluster(false)
    c.seedPod("p", "a")
    const entry = c.server.state.find(Pods, "default", "p")!
    const body = { value: { status: { capacity, allocatable: capacity, conditions: mergeConditions([], desiredConditions(healthy), rfc3339(start + 60_000)) } } }
    expect(writeHeartbeat(c.server.store, Pods, "p", entry, "merge", body, { namespace: "default", subresource: "status" }, start + 60_000)).toBeUndefined()
  })

  it("takes the node agent's own reports after its first", () => {
    let beats = 0
    let reports = 0
    const { metrics } = simulateOneNode(21 * minutes, {
      steps: [
        [
          0,
          (server) =>
            server.store.subscribe((c) => {
              if (c.resource !== Nodes || c.previous === undefined) return
              reports++
              if (statusOf(c.object).capacity === statusOf(c.previous).capacity) beats++
            })
        ]
      ]
    })
    expect(metrics.statusPatches).toBe(4)
    expect(reports).toBe(4)
    expect(beats).toBe(3)
  })
})

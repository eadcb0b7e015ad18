/**
 * A merge patch of only an object's status, written by its own path (simulator/apiserver/StatusMergePatch.ts), stores,
 * answers and sends exactly what the general patch path does: the same script of status patches sent once as values
 * (the status path may take them) and once as text from the wire (always the general path) gives the same JSON, write
 * by write — answers, stored objects with their managed fields, watch events with their previous versions — over pods
 * started as the node agents start them (bodies shared by pods seeded together, and not), a second write by the same
 * manager, another manager, nulls, no-op and empty patches, pods with other managers' entries, a node's and a
 * deployment's status, and the writes it must leave to the general path: bodies that do not decode cleanly, a stored
 * object that fails validation, dry runs, terminating pods (one the write removes), empty label or annotation maps, a pod without a status,
 * patches of more than the status, a missing namespace.
 */
import { describe, expect, it } from "@effect/vitest"
import { vi } from "vitest"
import { Either } from "effect"
import type { ManagedFieldsEntry } from "../../src/api/apply/ManagedFields.js"
import type { KObject } from "../../src/api/Object.js"
import type { WriteOptions, WriteResult } from "../../src/api/Requests.js"
import type { ResourceType } from "../../src/api/Resources.js"
import { rfc3339 } from "../../simulator/apiserver/SystemMeta.js"
import { storedVersions } from "../support/storedVersions.js"

// Counted: which writes the status path took (it answers) and which it left (undefined).
vi.mock("../../simulator/apiserver/StatusMergePatch.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../simulator/apiserver/StatusMergePatch.js")>()
  return { ...original, writeStatusMergePatch: vi.fn(original.writeStatusMergePatch) }
})

/**
 * The server's modules loaded afresh, so that its write path imports the counted status path: the fast tier runs
 * files without isolation, and a file run before this one in the same worker may have loaded the real one already.
 * The resource types come from the same load: the write paths compare them by identity.
 */
const freshModules = async () => {
  vi.resetModules()
  // one after the other: the counted module is made once, by the server's own import
  const api = await import("../../simulator/apiserver/ApiServer.js")
  const resources = await import("../../src/api/Resources.js")
  const statusPatch = await import("../../simulator/apiserver/StatusMergePatch.js")
  const store = await import("../../simulator/apiserver/Store.js")
  return { ...api, ...resources, ...statusPatch, objectKey: store.objectKey }
}
let m: Awaited<ReturnType<typeof freshModules>>

const start = Date.UTC(2026, 0, 1)
const created = rfc3339(start)
const status = { namespace: "default", subresource: "status" } as const

const taken = (): number => vi.mocked(m.writeStatusMergePatch).mock.results.filter((r) => r.type === "return" && r.value !== undefined).length

const container = (name: string) => ({ name, image: `registry.example/${name}:1`, resources: { requests: { cpu: "100m" } } })

/** PodStarter.run's body for a one-container pod, its PodScheduled condition the stored one. */
const runningBody = (pod: KObject, at: string) => ({
  status: {
    phase: "Running",
    conditions: [
      ...["Initialized", "Ready", "ContainersReady"].map((type) => ({ type, status: "True", lastTransitionTime: at })),
      (pod.status as { conditions: ReadonlyArray<object> }).conditions[0]!
    ],
    startTime: at,
    containerStatuses: [{ name: "app", ready: true, restartCount: 0, started: true, state: { running: { startedAt: at } } }]
  }
})

/** A server and what it answered and stored, as JSON. `wire`: every patch comes as text, so none takes the status path. */
const cluster = (wire: boolean) => {
  const { Pods } = m
  const server = new m.ApiServerImpl(m.defaultConfig, start)
  const { seen, previousOf } = storedVersions(server.store)
  const answers: string[] = []
  /** The writes the status path took, by their place in `answers`. */
  const fast: number[] = []
  const take = (answer: unknown): void => {
    const written = answer as Either.Either<WriteResult, unknown>
    answers.push(Either.isLeft(written) ? `error ${JSON.stringify(written.left)}` : JSON.stringify(written.right))
  }
  const pending = { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: created }] }
  const spec = { nodeName: "node-0", schedulerName: "default-scheduler", containers: [container("app")] }
  const made = server.createAt(Pods, { value: { metadata: { name: "template", namespace: "default" }, spec: { containers: [container("app")] } } }, { namespace: "default", fieldManager: "creator" }, start)
  const creatorEntries = Either.getOrThrow(made).object.metadata.managedFields as ReadonlyArray<ManagedFieldsEntry>
  const names: Array<[ResourceType, string]> = [[Pods, "default/template"]]
  /** A pod as SeedPods.ts seeds it (its spec and status shared with the others), with `extra` metadata and parts. */
  const seed = (name: string, metadata: object = {}, parts: object = {}) => {
    server.store.putFresh(Pods, m.objectKey("default", name), { metadata: { name, namespace: "default", uid: `uid-${name}`, creationTimestamp: created, labels: { app: "sim" }, ...metadata }, spec, status: pending, ...parts } as KObject, start)
    names.push([Pods, `default/${name}`])
  }
  return {
    server,
    seen,
    previousOf,
    answers,
    fast,
    seed,
    creatorEntries,
    names,
    patch: (resource: ResourceType, name: string, body: unknown, now: number, opts: WriteOptions = status) => {
      const text = JSON.stringify(body)
      const before = taken()
      take(server.patchAt(resource, name, "merge", wire ? { value: JSON.parse(text), raw: text } : { value: body }, opts, now))
      if (taken() > before) fast.push(answers.length - 1)
    },
    stored: () => names.map(([resource, key]) => JSON.stringify(server.store.get(resource, key) ?? null))
  }
}

type Cluster = ReturnType<typeof cluster>

/** The same writes on both servers; the values sent are shared where the node agents share them. */
const script = (c: Cluster) => {
  const { Pods, Nodes, Deployments } = m
  const pod = (name: string) => c.server.store.get(Pods, `default/${name}`)!
  for (let i = 0; i < 6; i++) c.seed(`pod-${i}`)
  for (let i = 0; i < 3; i++) c.seed(`managed-${i}`, { managedFields: c.creatorEntries })
  c.seed("empty-labels", { labels: {} })
  c.seed("empty-annotations", { annotations: {} })
  c.seed("terminating", { deletionTimestamp: created, deletionGracePeriodSeconds: 30, finalizers: ["example.com/keep"] })
  c.seed("deleted", { deletionTimestamp: created })
  c.seed("deadline", {}, { spec: { containers: [container("app")], activeDeadlineSeconds: -5 } })
  c.server.store.putFresh(Pods, m.objectKey("default", "no-status"), { metadata: { name: "no-status", namespace: "default", uid: "uid-no-status", creationTimestamp: created }, spec: { containers: [container("app")] } } as KObject, start)
  c.names.push([Pods, "default/no-status"])
  Either.getOrThrow(c.server.createAt(Nodes, { value: { metadata: { name: "node-0" } } }, {}, start))
  Either.getOrThrow(c.server.createAt(Deployments, { value: { metadata: { name: "web", namespace: "default" }, spec: { selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web" } }, spec: { containers: [container("app")] } } } } }, { namespace: "default" }, start))
  c.names.push([Nodes, "node-0"], [Deployments, "default/web"])

  let now = start + 10_000
  // The pod-start storm: one body for the pods started in one second (sent to each as the same object).
  const at = rfc3339(now)
  const body = runningBody(pod("pod-0"), at)
  for (let i = 0; i < 4; i++) c.patch(Pods, `pod-${i}`, body, (now += 3))
  for (let i = 0; i < 3; i++) c.patch(Pods, `managed-${i}`, body, (now += 3))
  c.patch(Pods, "pod-4", runningBody(pod("pod-4"), at), (now += 3)) // a body of its own
  c.patch(Pods, "pod-0", body, (now += 3)) // the same again: a no-op
  c.patch(Pods, "pod-1", { status: {} }, (now += 3)) // empty: a no-op
  c.patch(Pods, "pod-4", { status: { phase: "Succeeded" } }, (now += 3)) // the same second, an owned field: entries kept
  now += 2_000
  c.patch(Pods, "pod-1", runningBody(pod("pod-1"), rfc3339(now)), now) // the agent's entry exists: refreshed
  c.patch(Pods, "pod-2", { status: { message: null, reason: "Started" } }, (now += 3)) // a null removes, a field added
  c.patch(Pods, "pod-3", { status: { phase: "Failed", message: "evicted" } }, (now += 3), { ...status, fieldManager: "other-agent" })
  c.patch(Pods, "managed-0", { status: { conditions: [] } }, (now += 3))
  // Left to the general path.
  c.patch(Pods, "pod-5", { status: { ...runningBody(pod("pod-5"), at).status, bogus: 1 } }, (now += 3)) // unknown field: a warning
  c.patch(Pods, "pod-5", { status: { startTime: 5 } }, (now += 3)) // the wrong type: 400
  c.patch(Pods, "deadline", body, (now += 3)) // the stored spec fails validation: 422
  c.patch(Pods, "pod-5", body, (now += 3), { ...status, dryRun: ["All"] })
  c.patch(Pods, "terminating", body, (now += 3))
  c.patch(Pods, "deleted", body, (now += 3)) // terminating without finalizers: the write removes it
  c.patch(Pods, "empty-labels", body, (now += 3))
  c.patch(Pods, "empty-annotations", body, (now += 3))
  c.patch(Pods, "no-status", { status: { phase: "Running" } }, (now += 3))
  c.patch(Pods, "pod-5", { metadata: { labels: { started: "yes" } }, status: { phase: "Running" } }, (now += 3))
  c.patch(Pods, "pod-5", { status: "Running" }, (now += 3))
  c.patch(Pods, "pod-5", { status: null }, (now += 3))
  c.patch(Pods, "pod-5", body, (now += 3), { subresource: "status" }) // no namespace: 404
  c.patch(Pods, "pod-5", body, (now += 3), { namespace: "default" }) // the main resource: the status stays
  c.patch(Pods, "pod-4", { status: { phase: "Unknown" } }, (now += 3), { namespace: "default" })
  // Other kinds' status.
  c.patch(Nodes, "node-0", { status: { conditions: [{ type: "Ready", status: "False", reason: "Starting", lastHeartbeatTime: rfc3339(now) }] } }, (now += 3), { subresource: "status" })
  c.patch(Nodes, "node-0", { status: { capacity: { cpu: "4" } } }, (now += 3), { subresource: "status" })
  c.patch(Deployments, "web", { status: { replicas: 1, observedGeneration: 1 } }, (now += 3))
  c.patch(Deployments, "web", { status: { replicas: 1, observedGeneration: 1 } }, (now += 3)) // a no-op
}

describe("a status-only merge patch", () => {
  it("answers, stores and sends what the general path does", async () => {
    m = await freshModules()
    const direct = cluster(false)
    script(direct)
    const wire = cluster(true)
    script(wire)
    // the status path took the status-only patches of live objects with a status (the first writes of the node's and
    // the deployment's status make it); none from the wire
    expect(direct.fast).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 31, 33])
    expect(wire.fast).toEqual([])
    expect(direct.answers).toHaveLength(34)
    expect(direct.answers).toEqual(wire.answers)
    expect([...direct.seen]).toEqual([...wire.seen])
    expect([...direct.previousOf]).toEqual([...wire.previousOf])
    expect(direct.stored()).toEqual(wire.stored())
    // what the general path answered, for the record: the errors, the warning, the managed fields
    expect(direct.answers.filter((a) => a.startsWith("error")).map((a) => JSON.parse(a.slice(6)).status.code)).toEqual([400, 422, 400, 404])
    expect(direct.answers.filter((a) => a.includes('unknown field \\"status.bogus\\"'))).toHaveLength(1)
    const managed = JSON.parse(direct.stored().find((p) => p.includes('"managed-1"'))!) as { metadata: { managedFields: ReadonlyArray<ManagedFieldsEntry> } }
    expect(managed.metadata.managedFields.map((e) => [e.manager, e.operation, e.subresource])).toEqual([
      ["creator", "Update", undefined],
      [undefined, "Update", "status"]
    ])
  })
})

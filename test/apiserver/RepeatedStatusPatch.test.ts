/**
 * A status patch repeated with the same objects (a node agent's Running patch: one body for every pod it starts in a
 * second, onto the status the pods were seeded with) merges, checks and compares them once and shares what it made
 * (`src/api/internal/LastCall.ts` in `Patch.ts`, `FieldSchema.ts`, `TypedFields.ts`, `ManagedFields.ts`). It stores,
 * answers and sends exactly what the general path does: the same script sent once with shared bodies (the remembered
 * results taken) and once with a fresh copy of every body (nothing remembered matches) gives the same JSON, write by
 * write — answers, stored pods with their managed fields, watch events — over several pod shapes and the writes that
 * must not take a remembered result (another body, another stored status, another manager, another kind's write in
 * between, a dry run, a second patch).
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { ManagedFieldsEntry } from "../../src/api/apply/ManagedFields.js"
import type { KObject } from "../../src/api/Object.js"
import type { WriteOptions, WriteResult } from "../../src/api/Requests.js"
import { Nodes, Pods } from "../../src/api/Resources.js"
import { ApiServerImpl, defaultConfig } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { objectKey } from "../../simulator/apiserver/Store.js"
import { rfc3339 } from "../../simulator/apiserver/SystemMeta.js"

const start = Date.UTC(2026, 0, 1)
const created = rfc3339(start)
const status = { namespace: "default", subresource: "status" } as const

const container = (name: string) => ({ name, image: `registry.example/${name}:1`, resources: { requests: { cpu: "100m" } } })
const running = (at: string) => ({ running: { startedAt: at } })
const containerStatus = (name: string, at: string) => ({ name, ready: true, restartCount: 0, started: true, state: running(at) })

/** Pod shapes, each seeded with one status object shared by its pods (as SeedPods.ts seeds them). */
const shapes = {
  single: { containers: [container("app")] },
  several: { containers: [container("app"), container("sidecar"), container("log")] },
  init: { initContainers: [container("setup")], containers: [container("app")] }
}
type Shape = keyof typeof shapes

/**
 * A server, its pods seeded by shape, and everything it answered, stored and sent, as JSON. `share`: the pods of a
 * group share their seeded spec and status (as SeedPods.ts seeds them); otherwise each has its own copies, so that no
 * write finds anything it repeats.
 */
const cluster = (share: boolean) => {
  const server = new ApiServerImpl(defaultConfig, start)
  const client = inProcessClient(server)
  const events: string[] = []
  server.store.subscribe((c) => events.push(`${c.type} ${c.revision} ${JSON.stringify(c.object)} ${c.previous === undefined ? "-" : JSON.stringify(c.previous)}`))
  const answers: string[] = []
  const take = (answer: unknown): void => {
    const written = answer as Either.Either<WriteResult, unknown>
    answers.push(Either.isLeft(written) ? `error ${JSON.stringify(written.left)}` : JSON.stringify(written.right))
  }
  // A creator's managed fields, shared by the pods of the "managed" group (entries built by the server).
  const made = client.at!(start)!.create(Pods, { metadata: { name: "template", namespace: "default" }, spec: { containers: [container("app")] } }, { namespace: "default", fieldManager: "creator" })
  const creatorEntries = Either.getOrThrow(made as Either.Either<WriteResult, unknown>).object.metadata.managedFields
  const seeded: string[] = ["template"]
  const seed = (shape: Shape, count: number, group: string, managed = false) => {
    const pending = { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: created }] }
    const spec = { nodeName: "node-0", schedulerName: "default-scheduler", ...shapes[shape] }
    const names: string[] = []
    for (let i = 0; i < count; i++) {
      const name = `${group}-${i}`
      const metadata = { name, namespace: "default", uid: `uid-${group}-${i}`, creationTimestamp: created, labels: { app: group }, ...(managed ? { managedFields: creatorEntries } : {}) }
      const own = share ? { spec, status: pending } : structuredClone({ spec, status: pending })
      server.store.putFresh(Pods, objectKey("default", name), { metadata, ...own } as KObject, start)
      names.push(name)
      seeded.push(name)
    }
    return names
  }
  return {
    server,
    answers,
    events,
    seed,
    patch: (name: string, body: unknown, now: number, opts: WriteOptions = {}) => take(client.at!(now)!.patch(Pods, name, "merge", body, { ...status, ...opts })),
    nodeStatus: (now: number) =>
      take(client.at!(now)!.patch(Nodes, "node-0", "merge", { status: { conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: rfc3339(now), reason: "KubeletReady" }] } }, { subresource: "status" })),
    createNode: () => take(client.at!(start)!.create(Nodes, { metadata: { name: "node-0" } }, {})),
    stored: () => seeded.map((name) => JSON.stringify(server.store.get(Pods, `default/${name}`)))
  }
}

type Cluster = ReturnType<typeof cluster>

/** The Running body of PodStarter.run for a pod of `shape`, its PodScheduled condition the stored one. */
const runningBody = (c: Cluster, shape: Shape, name: string, at: string) => {
  const pod = c.server.store.get(Pods, `default/${name}`)!
  const scheduled = (pod.status as { conditions: ReadonlyArray<object> }).conditions[0]!
  const conditions = ["Initialized", "Ready", "ContainersReady"].map((type) => ({ type, status: "True", lastTransitionTime: at }))
  const spec = shapes[shape] as { initContainers?: ReadonlyArray<{ name: string }>; containers: ReadonlyArray<{ name: string }> }
  return {
    status: {
      phase: "Running",
      conditions: [...conditions, scheduled],
      startTime: at,
      ...(spec.initContainers ? { initContainerStatuses: spec.initContainers.map((i) => ({ name: i.name, ready: true, restartCount: 0, state: { terminated: { exitCode: 0, reason: "Completed" } } })) } : {}),
      containerStatuses: spec.containers.map((x) => containerStatus(x.name, at))
    }
  }
}

/**
 * The same writes on both servers. `share`: the pods of a group started in one second get the very same body object
 * (as PodStarter sends it); otherwise each gets its own copy.
 */
const script = (c: Cluster, share: boolean) => {
  c.createNode()
  const groups: Array<[Shape, ReadonlyArray<string>]> = [
    ["single", c.seed("single", 6, "single")],
    ["several", c.seed("several", 5, "several")],
    ["init", c.seed("init", 5, "init")],
    ["single", c.seed("single", 5, "managed", true)]
  ]
  let now = start + 10_000
  for (const [shape, names] of groups) {
    const at = rfc3339(now)
    let body: unknown
    names.forEach((name, i) => {
      body = share && body !== undefined ? body : runningBody(c, shape, name, at)
      const sent = share ? body : structuredClone(body)
      now += 7
      if (i === 1) c.nodeStatus(now) // another kind's status patch between two repeats
      if (i === 2) c.patch(name, sent, now, { dryRun: ["All"] }) // a dry run first: stores nothing
      if (i === 3) c.patch(name, sent, now, { fieldManager: "other-agent" }) // the same body by another manager
      else if (i === 4) c.patch(name, { status: { ...(sent as { status: object }).status, phase: "Failed", message: "refused" } }, now) // another body
      else c.patch(name, sent, now)
    })
    now += 1_000
  }
  // A pod whose status is its own (not the group's): the same body onto another stored status.
  const [first] = groups[0]![1]
  now += 1_000
  const again = runningBody(c, "single", first!, rfc3339(now))
  c.patch(first!, share ? again : structuredClone(again), now) // a second patch: the agent's entry exists now
  c.patch(`${first!.slice(0, -1)}1`, share ? again : structuredClone(again), now + 1)
  // Bodies that do not decode cleanly onto the status the group shares: an unknown field (a warning, dropped), a
  // field of the wrong type (400).
  const late = c.seed("single", 3, "late")
  const good = runningBody(c, "single", late[0]!, rfc3339(now))
  c.patch(late[0]!, share ? good : structuredClone(good), now + 3)
  c.patch(late[1]!, { status: { ...structuredClone(good.status), bogus: 1 } }, now + 4)
  c.patch(late[2]!, { status: { ...structuredClone(good.status), startTime: 5 } }, now + 5)
  // Removing a field (null) and a label through the status subresource.
  c.patch(first!, { metadata: { labels: { started: "yes" } }, status: { message: null, reason: "Started" } }, now + 2)
}

describe("a repeated status patch", () => {
  it("answers, stores and sends what patches of fresh copies do", () => {
    const shared = cluster(true)
    const copied = cluster(false)
    script(shared, true)
    script(copied, false)
    expect(shared.answers.length).toBeGreaterThan(20)
    expect(shared.answers).toEqual(copied.answers)
    expect(shared.stored()).toEqual(copied.stored())
    expect(shared.events).toEqual(copied.events)
    // every write went through but the one of the wrong type; the unknown field was warned of
    expect(shared.answers.filter((a) => a.startsWith("error")).map((a) => JSON.parse(a.slice(6)).status.code)).toEqual([400])
    expect(shared.answers.filter((a) => a.includes('unknown field \\"status.bogus\\"'))).toHaveLength(1)
    // the managed fields as upstream's Update leaves them: the agent's entry beside the creator's
    const managed = JSON.parse(shared.stored().find((p) => p.includes('"managed-0"'))!) as { metadata: { managedFields: ReadonlyArray<ManagedFieldsEntry> } }
    expect(managed.metadata.managedFields.map((e) => [e.manager, e.operation, e.subresource])).toEqual([
      ["creator", "Update", undefined],
      [undefined, "Update", "status"]
    ])
  })

  it("shares what it made between the pods that repeat it, and only those", () => {
    const shared = cluster(true)
    script(shared, true)
    const pod = (name: string) => shared.server.store.get(Pods, `default/${name}`)!
    // the same body onto the same seeded status: one status object, one managed-fields list
    expect(pod("several-0").status).toBe(pod("several-1").status)
    expect(pod("several-0").metadata.managedFields).toBe(pod("several-2").metadata.managedFields)
    expect(pod("managed-0").metadata.managedFields).toBe(pod("managed-1").metadata.managedFields)
    // another manager, another body: their own
    expect(pod("several-3").status).toBe(pod("several-0").status)
    expect(pod("several-3").metadata.managedFields).not.toBe(pod("several-0").metadata.managedFields)
    expect(pod("several-4").status).not.toBe(pod("several-0").status)
    // the copies share nothing
    const copied = cluster(false)
    script(copied, false)
    expect(copied.server.store.get(Pods, "default/several-0")!.status).not.toBe(copied.server.store.get(Pods, "default/several-1")!.status)
  })
})

/**
 * The Deployment and ReplicaSet controllers with the garbage collector against a simulated server in virtual time,
 * pods started by a stand-in kubelet (1 s after creation): a Deployment's ReplicaSet and pods with their owner
 * references and hash label, the status fields and conditions as upstream writes them, scale up and down, a rolling
 * update that never exceeds maxSurge nor drops below maxUnavailable, Recreate, and cascading deletion.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Deployments, Events, Pods, ReplicaSets } from "../../../src/api/Resources.js"
import { ApiClient } from "../../../src/client/ApiClient.js"
import { startInformer } from "../../../src/informer/Informer.js"
import { startWorkloadControllers } from "../../../simulator/controllers/WorkloadControllers.js"
import { runSim } from "../../scheduler/sim.js"
import { runFakeKubelet } from "./fakeKubelet.js"

const ns = { namespace: "default" }

const deployment = (replicas: number, image = "nginx:1", strategy?: unknown): KObject => ({
  metadata: { name: "web", namespace: "default" },
  spec: {
    replicas,
    selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image }] } },
    ...(strategy !== undefined ? { strategy } : {})
  }
})

const setup = Effect.gen(function* () {
  yield* startWorkloadControllers({ host: "test" })
  yield* runFakeKubelet()
})

const list = (resource: typeof Pods) => Effect.map(Effect.flatMap(ApiClient, (c) => Effect.orDie(c.list(resource, ns))), (l) => l.items)

const statusOf = (d: KObject) => d.status as Record<string, unknown> & { conditions: ReadonlyArray<Record<string, unknown>> }

const getDeployment = Effect.flatMap(ApiClient, (c) => Effect.orDie(c.get(Deployments, "web", ns)))

const create = (d: KObject) => Effect.flatMap(ApiClient, (c) => Effect.orDie(c.create(Deployments, d, ns)))

const setSpec = (change: (spec: Record<string, unknown>) => Record<string, unknown>) =>
  Effect.gen(function* () {
    const client = yield* ApiClient
    const d = yield* Effect.orDie(client.get(Deployments, "web", ns))
    yield* Effect.orDie(client.update(Deployments, { ...d, spec: change(d.spec as Record<string, unknown>) }, ns))
  })

describe("workload controllers", () => {
  it("a Deployment makes a ReplicaSet and pods owned down the chain, with the hash label, status and conditions as upstream", () => {
    const r = runSim(
      Effect.gen(function* () {
        yield* setup
        yield* create(deployment(3))
        yield* Effect.sleep("20 seconds")
        return { d: yield* getDeployment, rss: yield* list(ReplicaSets), pods: yield* list(Pods), events: yield* list(Events) }
      })
    )
    expect(r.rss).toHaveLength(1)
    const rs = r.rss[0]!
    const hash = rs.metadata.labels!["pod-template-hash"]!
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{6,10}$/)
    expect(rs.metadata.name).toBe(`web-${hash}`)
    expect(rs.metadata.ownerReferences).toEqual([{ apiVersion: "apps/v1", kind: "Deployment", name: "web", uid: r.d.metadata.uid, controller: true, blockOwnerDeletion: true }])
    expect(rs.metadata.annotations).toEqual({
      "deployment.kubernetes.io/revision": "1",
      "deployment.kubernetes.io/desired-replicas": "3",
      "deployment.kubernetes.io/max-replicas": "4"
    })
    expect((rs.spec as { selector: unknown }).selector).toEqual({ matchLabels: { app: "web", "pod-template-hash": hash } })
    expect(rs.status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 })
    expect(r.pods).toHaveLength(3)
    for (const pod of r.pods) {
      expect(pod.metadata.name).toMatch(new RegExp(`^web-${hash}-[a-z0-9]{5}$`))
      expect(pod.metadata.labels).toEqual({ app: "web", "pod-template-hash": hash })
      expect(pod.metadata.ownerReferences).toEqual([{ apiVersion: "apps/v1", kind: "ReplicaSet", name: rs.metadata.name, uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }])
    }
    const s = statusOf(r.d)
    expect(r.d.metadata.annotations).toEqual({ "deployment.kubernetes.io/revision": "1" })
    expect({ ...s, conditions: undefined }).toEqual({
      observedGeneration: 1,
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      unavailableReplicas: 0,
      conditions: undefined
    })
    expect(s.conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability."],
      ["Progressing", "True", "NewReplicaSetAvailable", `ReplicaSet "web-${hash}" has successfully progressed.`]
    ])
    const notes = r.events.map((e) => `${e.reportingController} ${e.reason}: ${e.note}`)
    expect(notes).toContain(`deployment-controller ScalingReplicaSet: Scaled up replica set web-${hash} to 3`)
    // events.k8s.io series: the three creates are one event (the note is not part of the key) counted 2 on the server
    const creates = r.events.filter((e) => e.reportingController === "replicaset-controller" && e.reason === "SuccessfulCreate")
    expect(creates).toHaveLength(1)
    expect(creates[0]!.note).toMatch(new RegExp(`^Created pod: web-${hash}-[a-z0-9]{5}$`))
    expect(creates[0]!.regarding).toMatchObject({ kind: "ReplicaSet", apiVersion: "apps/v1", name: `web-${hash}`, namespace: "default" })
  })

  it("scale up and down: the one ReplicaSet follows spec.replicas, the newest unready pods go first", () => {
    const r = runSim(
      Effect.gen(function* () {
        yield* setup
        yield* create(deployment(2))
        yield* Effect.sleep("10 seconds")
        yield* setSpec((s) => ({ ...s, replicas: 5 }))
        yield* Effect.sleep("10 seconds")
        const up = { d: yield* getDeployment, pods: yield* list(Pods), rss: yield* list(ReplicaSets) }
        yield* setSpec((s) => ({ ...s, replicas: 1 }))
        yield* Effect.sleep("10 seconds")
        return { up, down: { d: yield* getDeployment, pods: yield* list(Pods), rss: yield* list(ReplicaSets) } }
      })
    )
    expect(r.up.pods).toHaveLength(5)
    expect(r.up.rss.map((rs) => (rs.spec as { replicas: number }).replicas)).toEqual([5])
    expect(statusOf(r.up.d)).toMatchObject({ observedGeneration: 2, replicas: 5, updatedReplicas: 5, readyReplicas: 5, availableReplicas: 5 })
    expect(r.down.pods).toHaveLength(1)
    expect(r.down.rss[0]!.metadata.annotations!["deployment.kubernetes.io/desired-replicas"]).toBe("1")
    expect(statusOf(r.down.d)).toMatchObject({ observedGeneration: 3, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1, unavailableReplicas: 0 })
  })

  it("a rolling update never has more than replicas + maxSurge pods nor fewer than replicas − maxUnavailable available, and ends on the new template", () => {
    const r = runSim(
      Effect.gen(function* () {
        yield* setup
        // 10 replicas, 25 % / 25 %: at most 13 pods (surge rounds up), at least 8 available (unavailable rounds down)
        yield* create(deployment(10))
        yield* Effect.sleep("20 seconds")
        const samples: Array<{ total: number; ready: number }> = []
        const ready = new Set<string>()
        const all = new Set<string>()
        const isReady = (p: KObject) => ((p.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True")
        const sample = () => samples.push({ total: all.size, ready: ready.size })
        yield* startInformer(
          { resource: Pods },
          {
            onAdd: (p, _now, initial) => {
              all.add(p.metadata.uid!)
              if (isReady(p)) ready.add(p.metadata.uid!)
              if (!initial) sample()
            },
            onUpdate: (_o, p) => {
              if (isReady(p)) ready.add(p.metadata.uid!)
              sample()
            },
            onDelete: (p) => {
              all.delete(p.metadata.uid!)
              ready.delete(p.metadata.uid!)
              sample()
            }
          }
        )
        const sizes: Array<string> = []
        const size = (rs: KObject) => (rs.spec as { replicas: number }).replicas
        yield* startInformer(
          { resource: ReplicaSets },
          {
            onAdd: (rs, _now, initial) => void (initial || sizes.push(`${rs.metadata.name}=${size(rs)}`)),
            onUpdate: (old, rs) => void (size(old) !== size(rs) && sizes.push(`${rs.metadata.name}=${size(rs)}`))
          }
        )
        yield* setSpec((s) => ({ ...s, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:2" }] } } }))
        yield* Effect.sleep("60 seconds")
        return { samples, sizes, d: yield* getDeployment, rss: yield* list(ReplicaSets), pods: yield* list(Pods) }
      })
    )
    const during = r.samples
    expect(Math.max(...during.map((s) => s.total))).toBe(13)
    expect(Math.min(...during.map((s) => s.ready))).toBe(8)
    expect(r.pods).toHaveLength(10)
    const byRevision = [...r.rss].sort((a, b) => Number(a.metadata.annotations!["deployment.kubernetes.io/revision"]) - Number(b.metadata.annotations!["deployment.kubernetes.io/revision"]))
    expect(byRevision.map((rs) => [(rs.spec as { replicas: number }).replicas, (rs.status as { replicas: number }).replicas])).toEqual([
      [0, 0],
      [10, 10]
    ])
    const images = r.pods.map((p) => (p.spec as { containers: Array<{ image: string }> }).containers[0]!.image)
    expect(new Set(images)).toEqual(new Set(["nginx:2"]))
    expect(r.d.metadata.annotations!["deployment.kubernetes.io/revision"]).toBe("2")
    expect(statusOf(r.d)).toMatchObject({ observedGeneration: 2, replicas: 10, updatedReplicas: 10, availableReplicas: 10 })
    const newName = byRevision[1]!.metadata.name!
    const oldName = byRevision[0]!.metadata.name!
    // upstream's first steps: the new set created at the surge (3), the old one down to replicas − maxUnavailable (8);
    // each later step frees as many as became available
    expect(r.sizes.slice(0, 2)).toEqual([`${newName}=3`, `${oldName}=8`])
    expect(r.sizes.filter((x) => x.startsWith(newName)).at(-1)).toBe(`${newName}=10`)
    expect(r.sizes.at(-1)).toBe(`${oldName}=0`)
  })

  it("Recreate: the old pods go before any new one is made", () => {
    const r = runSim(
      Effect.gen(function* () {
        yield* setup
        yield* create(deployment(3, "nginx:1", { type: "Recreate" }))
        yield* Effect.sleep("10 seconds")
        const images: Array<Array<string>> = []
        yield* setSpec((s) => ({ ...s, template: { metadata: { labels: { app: "web" } }, spec: { containers: [{ name: "web", image: "nginx:2" }] } } }))
        for (let i = 0; i < 40; i++) {
          yield* Effect.sleep("250 millis")
          images.push((yield* list(Pods)).map((p) => (p.spec as { containers: Array<{ image: string }> }).containers[0]!.image))
        }
        return { images, d: yield* getDeployment }
      })
    )
    expect(r.images.some((set) => set.includes("nginx:1") && set.includes("nginx:2"))).toBe(false)
    expect(r.images.at(-1)).toEqual(["nginx:2", "nginx:2", "nginx:2"])
    expect(statusOf(r.d)).toMatchObject({ replicas: 3, updatedReplicas: 3, availableReplicas: 3 })
  })

  it("deleting a Deployment in the background deletes its ReplicaSets and their pods (the garbage collector)", () => {
    const r = runSim(
      Effect.gen(function* () {
        yield* setup
        yield* create(deployment(3))
        yield* Effect.sleep("10 seconds")
        const before = { rss: (yield* list(ReplicaSets)).length, pods: (yield* list(Pods)).length }
        const client = yield* ApiClient
        yield* Effect.orDie(client.delete(Deployments, "web", { ...ns, propagationPolicy: "Background" }))
        yield* Effect.sleep("5 seconds")
        return { before, after: { rss: (yield* list(ReplicaSets)).length, pods: (yield* list(Pods)).length } }
      })
    )
    expect(r).toEqual({ before: { rss: 1, pods: 3 }, after: { rss: 0, pods: 0 } })
  })
})

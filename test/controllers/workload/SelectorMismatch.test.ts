/**
 * Workloads the controllers cannot make progress on, written straight into the store past the server's validation
 * (as one stored before that validation existed would be): a ReplicaSet whose selector does not match its
 * template's labels would count none of the pods it creates and create more on every sync. It must create none and
 * say why; a Deployment of that shape has its ReplicaSet refused (422) and retries with the queue's backoff. The
 * simulation's livelock bound (`maxStepsPerInstant`) turns a controller that spins without time moving into a
 * failure rather than a hung test.
 */
import { describe, expect, it } from "@effect/vitest"
import { Clock, Effect } from "effect"
import type { KObject } from "../../../src/api/Object.js"
import { Deployments, Events, Pods, ReplicaSets, type ResourceType } from "../../../src/api/Resources.js"
import { ApiClient, type ApiClientService } from "../../../src/client/ApiClient.js"
import { ApiServer } from "../../../simulator/apiserver/ApiServer.js"
import { objectKey } from "../../../simulator/apiserver/Store.js"
import { rfc3339 } from "../../../simulator/apiserver/SystemMeta.js"
import { startWorkloadControllers } from "../../../simulator/controllers/WorkloadControllers.js"
import { runSim } from "../../scheduler/sim.js"
import { runFakeKubelet } from "./fakeKubelet.js"

const ns = { namespace: "default" }

const workload = (name: string, selectorLabels: Record<string, string>, templateLabels: Record<string, string>, replicas: number): KObject => ({
  metadata: { name, namespace: "default" },
  spec: {
    replicas,
    selector: { matchLabels: selectorLabels },
    template: { metadata: { labels: templateLabels }, spec: { containers: [{ name: "c", image: "nginx" }] } }
  }
})

/** Stores `obj` as the server would have, without asking it (no validation). */
const storeDirectly = (resource: ResourceType, obj: KObject) =>
  Effect.gen(function* () {
    const server = yield* ApiServer
    const now = yield* Clock.currentTimeMillis
    const metadata = { ...obj.metadata, uid: `uid-${obj.metadata.name}`, creationTimestamp: rfc3339(now), generation: 1 }
    server.store.putFresh(resource, objectKey("default", obj.metadata.name!), { ...obj, metadata }, now)
  })

const list = (resource: ResourceType) => Effect.map(Effect.flatMap(ApiClient, (c) => Effect.orDie(c.list(resource, ns))), (l) => l.items)

/** The controllers on a client that counts the ReplicaSet creates they send. */
const controllersCountingCreates = Effect.gen(function* () {
  const client = yield* ApiClient
  const creates = { replicaSets: 0 }
  const counting: ApiClientService = {
    ...client,
    create: (resource, obj, opts) => {
      if (resource === ReplicaSets) creates.replicaSets++
      return client.create(resource, obj, opts)
    }
  }
  yield* Effect.provideService(startWorkloadControllers({ host: "test" }), ApiClient, counting)
  yield* runFakeKubelet()
  return creates
})

const conditions = (o: KObject) => ((o.status as { conditions?: ReadonlyArray<Record<string, unknown>> } | undefined)?.conditions ?? []).map((c) => [c.type, c.status, c.reason, c.message])

const mismatch = "pod template labels app=b: `selector` does not match template `labels`"

describe("workloads whose selector does not match their template", () => {
  it("a ReplicaSet creates no pods, reports FailedCreate, and its neighbour is served as usual", () => {
    const r = runSim(
      Effect.gen(function* () {
        yield* controllersCountingCreates
        yield* storeDirectly(ReplicaSets, workload("mismatch", { app: "a" }, { app: "b" }, 3))
        yield* storeDirectly(ReplicaSets, workload("good", { app: "good" }, { app: "good" }, 2))
        yield* Effect.sleep("60 seconds")
        return { pods: yield* list(Pods), rss: yield* list(ReplicaSets), events: yield* list(Events) }
      }),
      { maxStepsPerInstant: 20_000 }
    )
    expect(r.pods.map((p) => p.metadata.ownerReferences?.[0]?.name)).toEqual(["good", "good"])
    const bad = r.rss.find((rs) => rs.metadata.name === "mismatch")!
    expect((bad.status as { replicas: number }).replicas).toBe(0)
    expect(conditions(bad)).toEqual([["ReplicaFailure", "True", "FailedCreate", mismatch]])
    const failed = r.events.filter((e) => e.reason === "FailedCreate")
    expect(failed.map((e) => [e.type, e.note, (e.regarding as { name: string }).name])).toEqual([["Warning", `Error creating: ${mismatch}`, "mismatch"]])
    expect(conditions(r.rss.find((rs) => rs.metadata.name === "good")!)).toEqual([])
  })

  it("a Deployment's ReplicaSet is refused with upstream's 422; the controller says so and retries at most every 5 s", () => {
    const r = runSim(
      Effect.gen(function* () {
        const creates = yield* controllersCountingCreates
        yield* storeDirectly(Deployments, workload("mismatch", { app: "a" }, { app: "b" }, 3))
        yield* Effect.sleep("10 minutes")
        const d = yield* Effect.flatMap(ApiClient, (c) => Effect.orDie(c.get(Deployments, "mismatch", ns)))
        return { d, creates: creates.replicaSets, pods: yield* list(Pods), rss: yield* list(ReplicaSets), events: yield* list(Events) }
      }),
      { maxStepsPerInstant: 20_000 }
    )
    expect(r.rss).toEqual([])
    expect(r.pods).toEqual([])
    // the backoff doubles from 5 ms to its 5 s cap (11 tries), then one try per 5 s: 600 s is at most ~130 creates
    expect(r.creates).toBeGreaterThan(100)
    expect(r.creates).toBeLessThan(140)
    const [progressing] = conditions(r.d)
    const hash = /"mismatch-([a-z0-9]+)"/.exec(String(progressing?.[3]))?.[1]
    expect(progressing).toEqual([
      "Progressing",
      "False",
      "ReplicaSetCreateError",
      `Failed to create new replica set "mismatch-${hash}": ReplicaSet.apps "mismatch-${hash}" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"b", "pod-template-hash":"${hash}"}: \`selector\` does not match template \`labels\``
    ])
    expect(r.events.filter((e) => e.reason === "ReplicaSetCreateError").map((e) => e.type)).toEqual(["Warning"])
  })
})

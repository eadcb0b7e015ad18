/**
 * A node-agent shard against an in-process server on the virtual clock: registration, the lease, the first status
 * and pod starts — every read and write through the client (the shard has no store) — and the pod starter's
 * preparation step: a pod that needs time before its containers run starts when it is ready, and one deleted
 * meanwhile is never started.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import type { KObject } from "../../src/api/Object.js"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { hostnameLabel, nodeLeaseNamespace, zoneLabel } from "../../src/api/WellKnown.js"
import { ApiServer, type ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import { objectKey } from "../../simulator/apiserver/Store.js"
import { rfc3339 } from "../../simulator/apiserver/SystemMeta.js"
import { ServiceTimeModel } from "../../simulator/apiserver/ServiceTime.js"
import { ClusterObserver } from "../../simulator/cluster/ClusterObserver.js"
import * as Simulation from "../../simulator/kernel/Simulation.js"
import { NodeAgentMetrics } from "../../simulator/nodeagent/AgentEnvironment.js"
import { NodeAgentShard } from "../../simulator/nodeagent/NodeAgentShard.js"
import type { PreparePod } from "../../simulator/nodeagent/PodStarter.js"
import { makeNode } from "../../simulator/nodeagent/SimulatedNode.js"
import { agentSettings } from "./settings.js"


const podOn = (name: string, node: string): KObject => ({
  metadata: { name, namespace: "default", uid: `uid-${name}` },
  spec: { nodeName: node, containers: [{ name: "app", image: "registry.example/app:1", resources: { requests: { cpu: "100m" } } }] },
  status: { phase: "Pending" }
})

/** A create request's body for a pod bound to `node-0`. */
const podBody = (name: string) => ({ value: { apiVersion: "v1", kind: "Pod", ...podOn(name, "node-0") } })

/** One node `node-0` starting at 1 s, pods `p0`, `p1` bound to it from the start; runs for `ms`. */
/** What a test does to the server at a virtual time (ascending). */
type Step = readonly [at: number, during: (server: ApiServerImpl, now: number) => void]

const simulate = (ms: number, options: { preparePod?: PreparePod; steps?: ReadonlyArray<Step> } = {}) => {
  const sim = Simulation.make({ seed: 3, startMillis: 0 })
  let server: ApiServerImpl | undefined
  const metrics = new NodeAgentMetrics()
  sim.fork(
    Effect.gen(function* () {
      const s = (server = yield* ApiServer)
      const observer = new ClusterObserver(0, false)
      observer.attach(s.store)
      for (const name of ["p0", "p1"]) s.store.putFresh(Pods, objectKey("default", name), podOn(name, "node-0"), 0)
      const env = {
        client: inProcessClient(s),
        serviceTime: new ServiceTimeModel(),
        settings: agentSettings,
        metrics,
        pauses: [],
        resolutionMs: 1_000,
        ...(options.preparePod ? { preparePod: options.preparePod } : {})
      }
      const node = makeNode({ name: "node-0", zone: "zone-a", region: "region-1", cpu: "4", memory: "16Gi", pods: 110, startAt: 1_000 })
      const shard = new NodeAgentShard([node], env, sim.random.split("shard"))
      observer.route("node-0", shard)
      // pods bound before the agent started reach it as the observer saw them
      for (const name of ["p0", "p1"]) shard.podBound("node-0", objectKey("default", name), 0)
      yield* Effect.forkDaemon(shard.run)
      let now = 0
      for (const [at, during] of options.steps ?? []) {
        yield* Effect.sleep(at - now)
        during(s, (now = at))
      }
      return yield* Effect.never
    }).pipe(Effect.provide(ApiServer.layer({ seed: 3 })))
  )
  sim.runUntil(ms)
  sim.interruptAll()
  const get = (name: string) => server!.store.lookup(Pods, "default", name)?.obj
  return { server: server!, metrics, get }
}

const statusOf = (pod: KObject | undefined) => pod?.status as { phase?: string; startTime?: string } | undefined

describe("NodeAgentShard", () => {
  it("registers its node with the well-known labels, creates its lease and starts the bound pods at registration", () => {
    const { server, metrics, get } = simulate(5_000)
    const node = server.store.lookup(Nodes, undefined, "node-0")?.obj
    expect(node?.metadata.labels?.[hostnameLabel]).toBe("node-0")
    expect(node?.metadata.labels?.[zoneLabel]).toBe("zone-a")
    const lease = server.store.lookup(Leases, nodeLeaseNamespace, "node-0")?.obj
    expect((lease?.spec as { holderIdentity?: string }).holderIdentity).toBe("node-0")
    expect(lease?.metadata.ownerReferences?.[0]?.uid).toBe(node?.metadata.uid)
    expect(metrics.registrations).toBe(1)
    expect(metrics.leaseCreates).toBe(1)
    expect(metrics.podStatusWrites).toBe(2)
    expect(statusOf(get("p0"))?.phase).toBe("Running")
    // registered at 1 s (+ the modelled write): the pods start in that second
    expect(statusOf(get("p1"))?.startTime).toBe(rfc3339(1_000))
  })

  it("starts a pod bound after registration when its watch event arrives, not at the agent's next lease or status event", () => {
    // registered at 1 s: the next lease renewal and status check are ~10 s later
    const bindAt = 4_500
    const { get, metrics } = simulate(6_000, {
      steps: [[bindAt, (server, now) => void server.createAt(Pods, podBody("p2"), { namespace: "default" }, now)]]
    })
    expect(statusOf(get("p2"))?.phase).toBe("Running")
    // the pod worker starts at the event's own time; the server sees the write at the shard's next whole second
    expect(statusOf(get("p2"))?.startTime).toBe(rfc3339(4_000))
    expect((get("p2")?.metadata.managedFields?.at(-1) as { time?: string } | undefined)?.time).toBe(rfc3339(5_000))
    expect(metrics.podStatusWrites).toBe(3)
  })

  it("starts a pod once, however many watch events it gets before its worker ran", () => {
    // 200 pods bound at once: the agent's bucket (burst 100, 50/s) delays the last ones' workers by up to 2 s
    const names = Array.from({ length: 200 }, (_, i) => `q${i}`)
    const prepared: Array<string> = []
    // a preparation of 1 s (an image pull, say): a second worker would prepare the pod again before it runs
    const preparePod: PreparePod = (pod, _node, t) => (prepared.push(pod.metadata.name!), t + 1_000)
    const { get, metrics } = simulate(10_000, {
      preparePod,
      steps: [
        [4_500, (server, now) => names.forEach((name) => server.createAt(Pods, podBody(name), { namespace: "default" }, now))],
        // the last pod changes while its worker waits for a token: a second watch event, not a second start
        [5_200, (server, now) => void server.patchAt(Pods, "q199", "merge", { value: { metadata: { labels: { again: "yes" } } } }, { namespace: "default" }, now)]
      ]
    })
    expect(prepared.filter((name) => name === "q199")).toEqual(["q199"])
    expect(metrics.podStatusWrites).toBe(2 + 200)
    expect(statusOf(get("q199"))?.phase).toBe("Running")
    // its token came 2 s after the burst, (200 − 100) / 50 per second, and its preparation took 1 s more
    expect(statusOf(get("q199"))?.startTime).toBe(rfc3339(7_000))
    expect(get("q199")?.metadata.labels).toEqual({ again: "yes" })
  })

  it("runs a pod whose preparation takes time when it is ready", () => {
    const prepared: Array<string> = []
    const preparePod: PreparePod = (pod, node, t) => {
      prepared.push(`${pod.metadata.name}@${node.name}`)
      return pod.metadata.name === "p1" ? t + 30_000 : t
    }
    const early = simulate(20_000, { preparePod })
    expect(prepared).toEqual(["p0@node-0", "p1@node-0"])
    expect(statusOf(early.get("p0"))?.phase).toBe("Running")
    expect(statusOf(early.get("p1"))?.phase).toBe("Pending")
    const late = simulate(40_000, { preparePod })
    expect(statusOf(late.get("p1"))?.phase).toBe("Running")
    expect(statusOf(late.get("p1"))?.startTime).toBe(rfc3339(31_000))
    expect(late.metrics.podStatusWrites).toBe(2)
  })

  it("does not run a pod deleted while it was being prepared", () => {
    const preparePod: PreparePod = (_pod, _node, t) => t + 30_000
    const { get, metrics } = simulate(40_000, {
      preparePod,
      steps: [[10_000, (server, now) => void server.deleteAt(Pods, "p0", { namespace: "default" }, now)]]
    })
    expect(get("p0")).toBeUndefined()
    expect(statusOf(get("p1"))?.phase).toBe("Running")
    expect(metrics.podStatusWrites).toBe(1)
  })
})

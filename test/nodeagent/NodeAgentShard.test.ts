/**
 * A node-agent shard against an in-process server on the virtual clock: registration, the lease, the first status
 * and pod starts — every read and write through the client (the shard has no store) — and the pod starter's
 * preparation step: a pod that needs time before its containers run starts when it is ready, and one deleted
 * meanwhile is never started.
 */
import { describe, expect, it } from "@effect/vitest"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { hostnameLabel, nodeLeaseNamespace, zoneLabel } from "../../src/api/WellKnown.js"
import { rfc3339 } from "../../simulator/apiserver/SystemMeta.js"
import type { PreparePod } from "../../simulator/nodeagent/PodStarter.js"
import { podOn, simulateOneNode, statusOf } from "./oneNode.js"

/** A create request's body for a pod bound to `node-0`. */
const podBody = (name: string) => ({ value: { apiVersion: "v1", kind: "Pod", ...podOn(name) } })

describe("NodeAgentShard", () => {
  it("registers its node with the well-known labels, creates its lease and starts the bound pods at registration", () => {
    const { server, metrics, get } = simulateOneNode(5_000)
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
    const { get, metrics } = simulateOneNode(6_000, {
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
    const { get, metrics } = simulateOneNode(10_000, {
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
    const early = simulateOneNode(20_000, { preparePod })
    expect(prepared).toEqual(["p0@node-0", "p1@node-0"])
    expect(statusOf(early.get("p0"))?.phase).toBe("Running")
    expect(statusOf(early.get("p1"))?.phase).toBe("Pending")
    const late = simulateOneNode(40_000, { preparePod })
    expect(statusOf(late.get("p1"))?.phase).toBe("Running")
    expect(statusOf(late.get("p1"))?.startTime).toBe(rfc3339(31_000))
    expect(late.metrics.podStatusWrites).toBe(2)
  })

  it("does not run a pod deleted while it was being prepared", () => {
    const preparePod: PreparePod = (_pod, _node, t) => t + 30_000
    const { get, metrics } = simulateOneNode(40_000, {
      preparePod,
      steps: [[10_000, (server, now) => void server.deleteAt(Pods, "p0", { namespace: "default" }, now)]]
    })
    expect(get("p0")).toBeUndefined()
    expect(statusOf(get("p1"))?.phase).toBe("Running")
    expect(metrics.podStatusWrites).toBe(1)
  })
})

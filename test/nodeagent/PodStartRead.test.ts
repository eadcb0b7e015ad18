/**
 * The pod starter reads the pod it starts as the server stores it (`StoredRead.ts`) where its client is the server's
 * immediate view, and through a GET otherwise. Both ways it stores, sends and counts the same: one node's agent run
 * twice over the same script — pods started at once, after a preparation, after a failed one (waiting), deleted
 * before their start or during their preparation, being deleted, refused under memory pressure — once with the
 * stored read and once through a client without it, gives the same store changes (objects and revisions), the same
 * pods, node and lease, and the same metrics.
 */
import { describe, expect, it } from "@effect/vitest"
import type { KObject } from "../../src/api/Object.js"
import { Leases, Nodes, Pods } from "../../src/api/Resources.js"
import { nodeLeaseNamespace } from "../../src/api/WellKnown.js"
import type { ApiServerImpl } from "../../simulator/apiserver/ApiServer.js"
import { inProcessClient } from "../../simulator/apiserver/InProcessClient.js"
import type { PreparePod } from "../../simulator/nodeagent/PodStarter.js"
import { podOn, simulateOneNode } from "./oneNode.js"

const names = Array.from({ length: 12 }, (_, i) => `q${i}`)

/** Pods bound to `node-0` at 4.5 s: q8 BestEffort (no requests), q9 with a finalizer, q10 and q11 deleted at once. */
const podBody = (name: string): { value: KObject } => {
  const pod = podOn(name)
  const spec = name === "q8" ? { ...(pod.spec as object), containers: [{ name: "app", image: "registry.example/app:1" }] } : pod.spec
  const metadata = name === "q9" ? { ...pod.metadata, finalizers: ["example.com/keep"] } : pod.metadata
  return { value: { apiVersion: "v1", kind: "Pod", ...pod, metadata, spec } }
}

/** q3 is ready after 20 s, q4 too (deleted at 10 s meanwhile), q5's preparation fails once (waiting), then runs. */
const preparePod: PreparePod = (pod, _node, t) => {
  const name = pod.metadata.name!
  if (name === "q3" || name === "q4") return t + 20_000
  if (name === "q5" && t < 15_000)
    return { at: t + 500, retryAt: t + 10_000, reason: "ImagePullBackOff", status: (_p, now) => ({ status: { phase: "Pending", message: `waiting since ${now}` } }) }
  return t
}

/** The in-process client whose immediate view lacks the stored read: the pod starter reads through `get`. */
const withoutStoredRead = (server: ApiServerImpl) => {
  const base = inProcessClient(server)
  return {
    ...base,
    at: (now: number) => {
      const view = base.at(now)
      if (view === undefined) return undefined
      const { storedNow: _s, ...rest } = view as typeof view & { storedNow?: unknown }
      return rest
    }
  }
}

const run = (stored: boolean, pressure: boolean) => {
  const changes: Array<string> = []
  let storedReads = 0
  const { server, metrics } = simulateOneNode(40_000, {
    preparePod,
    ...(pressure ? { pressure: new Set(["MemoryPressure"] as const) } : {}),
    ...(stored ? {} : { client: withoutStoredRead }),
    steps: [
      [
        0,
        (s) => {
          s.store.subscribe((c) => changes.push(`${c.type} ${c.revision} ${c.key} ${JSON.stringify(c.object)}`))
          const read = s.storedNow.bind(s)
          s.storedNow = (resource, namespace, name) => (storedReads++, read(resource, namespace, name))
        }
      ],
      [
        4_500,
        (s, now) => {
          for (const name of names) s.createAt(Pods, podBody(name), { namespace: "default" }, now)
          s.deleteAt(Pods, "q9", { namespace: "default" }, now)
          s.deleteAt(Pods, "q10", { namespace: "default" }, now)
          s.deleteAt(Pods, "q11", { namespace: "default" }, now)
        }
      ],
      [10_000, (s, now) => void s.deleteAt(Pods, "q4", { namespace: "default" }, now)]
    ]
  })
  const objects = [
    ...["p0", "p1", ...names].map((name) => server.store.lookup(Pods, "default", name)?.obj),
    server.store.lookup(Nodes, undefined, "node-0")?.obj,
    server.store.lookup(Leases, nodeLeaseNamespace, "node-0")?.obj
  ].map((o) => JSON.stringify(o))
  const { leaseLatency: _l, statusLatency: _s, ...counts } = metrics
  return { changes, objects, metrics: JSON.stringify(counts), storedReads }
}

describe("the pod starter's read", () => {
  for (const pressure of [false, true]) {
    it(`stores, sends and counts what a GET would have it do${pressure ? " (under memory pressure)" : ""}`, () => {
      const fast = run(true, pressure)
      const general = run(false, pressure)
      expect(fast.storedReads).toBeGreaterThan(10)
      expect(general.storedReads).toBe(0)
      expect(fast.changes.length).toBeGreaterThan(30)
      expect(fast.changes).toEqual(general.changes)
      expect(fast.objects).toEqual(general.objects)
      expect(fast.metrics).toEqual(general.metrics)
      const m = JSON.parse(fast.metrics) as { podStatusWrites: number; podWaitingWrites: number; errorsByCode: Record<string, number> }
      // the pods deleted before their start or their preparation's end were read as 404s
      expect(m.errorsByCode["404"]).toBeGreaterThanOrEqual(3)
      if (!pressure) {
        // p0, p1 and q0–q8 but q4 (deleted while prepared), q9 (being deleted) and q10, q11 (gone): Running
        expect(m.podStatusWrites).toBe(2 + 8)
        // q5's two failed tries (its waiting body carries no reason the next try could find unchanged)
        expect(m.podWaitingWrites).toBe(2)
      }
    })
  }
})

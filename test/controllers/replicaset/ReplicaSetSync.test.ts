/** The ReplicaSet controller's decisions (replica_set.go, controller_utils.go) and the kubelet's container start events. */
import { describe, expect, it } from "@effect/vitest"
import type { KObject } from "../../../src/api/Object.js"
import { containerStartEvents } from "../../../simulator/cluster/ContainerEvents.js"
import { burstReplicas, podFromTemplate, podsToDelete, replicaDiff, replicaSetStatus, slowStartBatches } from "../../../simulator/controllers/replicaset/ReplicaSetSync.js"

const pod = (name: string, o: { node?: string; phase?: string; readySince?: string; created?: string; labels?: Record<string, string> } = {}): KObject => ({
  metadata: { name, creationTimestamp: o.created ?? "2026-01-01T00:00:00Z", labels: o.labels ?? { app: "web", tier: "front" } },
  spec: o.node ? { nodeName: o.node } : {},
  status: { phase: o.phase ?? "Pending", conditions: o.readySince ? [{ type: "Ready", status: "True", lastTransitionTime: o.readySince }] : [] }
})

const rs: KObject = {
  metadata: { name: "web-abc", namespace: "default", uid: "u-rs", generation: 3 },
  spec: { replicas: 3, minReadySeconds: 10, selector: { matchLabels: { app: "web" } }, template: { metadata: { labels: { app: "web", tier: "front" } }, spec: { containers: [{ name: "c" }] } } }
}

describe("ReplicaSetSync", () => {
  it("manageReplicas: the difference, at most burstReplicas (500); creates in slow-start batches 1, 2, 4, …", () => {
    expect(replicaDiff(1, 4)).toBe(3)
    expect(replicaDiff(5, 2)).toBe(-3)
    expect(replicaDiff(0, 2000)).toBe(burstReplicas)
    expect(slowStartBatches(10)).toEqual([1, 2, 4, 3])
    expect(slowStartBatches(0)).toEqual([])
  })

  it("GetPodFromTemplate: generateName <rs>-, the template's labels and spec, the controller reference", () => {
    expect(podFromTemplate(rs)).toEqual({
      metadata: {
        generateName: "web-abc-",
        namespace: "default",
        labels: { app: "web", tier: "front" },
        ownerReferences: [{ apiVersion: "apps/v1", kind: "ReplicaSet", name: "web-abc", uid: "u-rs", controller: true, blockOwnerDeletion: true }]
      },
      spec: { containers: [{ name: "c" }] }
    })
  })

  it("getPodsToDelete: unassigned, then pending, then not ready, then ready for less time, then newer", () => {
    const pods = [
      pod("ready-long", { node: "n", phase: "Running", readySince: "2026-01-01T00:00:00Z" }),
      pod("ready-short", { node: "n", phase: "Running", readySince: "2026-01-01T00:05:00Z" }),
      pod("running-unready", { node: "n", phase: "Running" }),
      pod("pending-old", { node: "n", created: "2026-01-01T00:00:00Z" }),
      pod("pending-new", { node: "n", created: "2026-01-01T00:01:00Z" }),
      pod("unassigned")
    ]
    expect(podsToDelete(pods, 6).map((p) => p.metadata.name)).toEqual(["unassigned", "pending-new", "pending-old", "running-unready", "ready-short", "ready-long"])
  })

  it("calculateStatus: replicas, fully labelled, ready, available after minReadySeconds, the generation; zero counts omitted", () => {
    const now = Date.parse("2026-01-01T00:00:30Z")
    const pods = [pod("a", { readySince: "2026-01-01T00:00:00Z" }), pod("b", { readySince: "2026-01-01T00:00:25Z" }), pod("c", { labels: { app: "web" } })]
    expect(replicaSetStatus(rs, pods, now, undefined, "t")).toEqual({ replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1, observedGeneration: 3 })
    expect(replicaSetStatus(rs, [], now, { reason: "FailedCreate", message: "quota" }, "t")).toEqual({
      replicas: 0,
      observedGeneration: 3,
      conditions: [{ type: "ReplicaFailure", status: "True", lastTransitionTime: "t", reason: "FailedCreate", message: "quota" }]
    })
  })

  it("the kubelet's start events per container: Pulling, Pulled (scheduling to start), Created, Started", () => {
    const running: KObject = {
      metadata: { name: "p" },
      spec: { nodeName: "node-1", containers: [{ name: "app", image: "nginx:1.27" }, { name: "side", image: "busybox" }] },
      status: {
        phase: "Running",
        conditions: [{ type: "PodScheduled", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" }],
        containerStatuses: [
          { name: "app", state: { running: { startedAt: "2026-01-01T00:00:02Z" } } },
          { name: "side", state: { running: { startedAt: "2026-01-01T00:01:30Z" } } }
        ]
      }
    }
    expect(containerStartEvents(running)).toEqual([
      ["Pulling", 'Pulling image "nginx:1.27"'],
      ["Pulled", 'Successfully pulled image "nginx:1.27" in 2s (2s including waiting)'],
      ["Created", "Created container app"],
      ["Started", "Started container app"],
      ["Pulling", 'Pulling image "busybox"'],
      ["Pulled", 'Successfully pulled image "busybox" in 1m30s (1m30s including waiting)'],
      ["Created", "Created container side"],
      ["Started", "Started container side"]
    ])
  })
})

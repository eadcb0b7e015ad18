import { describe, expect, it } from "@effect/vitest"
import { Pods } from "../../src/api/Resources.js"
import { TaintKeys } from "../../src/api/WellKnown.js"
import { objectKey, Store } from "../../simulator/apiserver/Store.js"
import { rfc3339 } from "../../simulator/apiserver/SystemMeta.js"
import { fastUid } from "../../simulator/cluster/ClusterSetup.js"
import { seedPods } from "../../simulator/cluster/SeedPods.js"
import * as SeededRandom from "../../simulator/kernel/SeededRandom.js"
import { makeNode } from "../../simulator/nodeagent/SimulatedNode.js"

// SeedPods.ts shares parts between pods (a node's pods one spec) and writes metadata with its resourceVersion slot
// already there: each stored pod must still be, key for key and in key order, the pod written on its own.
describe("seedPods", () => {
  it("stores every pod as the plain pod of its own, key order included", () => {
    const startMillis = Date.UTC(2026, 0, 1)
    const nodes = ["node-0", "node-1", "node-2"].map((name) => makeNode({ name, zone: "z", region: "r", cpu: "4", memory: "16Gi", pods: 110, startAt: startMillis }))
    const store = new Store()
    const seeded = seedPods(store, nodes, 4, { random: SeededRandom.make(7), tolerationSeconds: 300, startMillis, imagePulls: undefined })
    expect(seeded).toBe(12)
    const random = SeededRandom.make(7)
    const created = rfc3339(startMillis)
    let revision = 0
    for (const node of nodes) {
      for (let i = 0; i < 4; i++) {
        const name = `${node.name}-pod-${i}`
        const expected = {
          metadata: { name, namespace: "default", uid: fastUid(random), creationTimestamp: created, labels: { app: "sim" }, resourceVersion: String(++revision) },
          spec: {
            nodeName: node.name,
            schedulerName: "default-scheduler",
            containers: [{ name: "app", image: "registry.example/app:1", resources: { requests: { cpu: "100m", memory: "128Mi" } } }],
            tolerations: [
              { key: TaintKeys.notReady, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
              { key: TaintKeys.unreachable, operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 }
            ]
          },
          status: { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: created }] }
        }
        const stored = store.get(Pods, objectKey("default", name))
        expect(JSON.stringify(stored)).toBe(JSON.stringify(expected))
      }
    }
  })
})

/**
 * The pods a cluster starts with: `podsPerNode` pods bound to each node from the start, written straight into the
 * store, with the NoExecute tolerations admission would add (docs/cluster.md).
 */
import { flatString } from "../../src/api/internal/V8Shapes.js"
import type { KObject } from "../../src/api/Object.js"
import { Pods } from "../../src/api/Resources.js"
import { TaintKeys } from "../../src/api/WellKnown.js"
import { objectKey, type Store } from "../apiserver/Store.js"
import { rfc3339 } from "../apiserver/SystemMeta.js"
import type { SeededRandomService } from "../kernel/SeededRandom.js"
import type { ImagePulls } from "../nodeagent/images/ImagePulls.js"
import type { SimulatedNode } from "../nodeagent/SimulatedNode.js"
import { fastUid } from "./ClusterSetup.js"

/** Writes the pods; returns how many. With `imagePulls`, pod i runs the scenario's i-th image. */
export const seedPods = (
  store: Store,
  nodes: ReadonlyArray<SimulatedNode>,
  podsPerNode: number,
  o: { readonly random: SeededRandomService; readonly tolerationSeconds: number; readonly startMillis: number; readonly imagePulls: ImagePulls | undefined }
): number => {
  const { imagePulls, startMillis, tolerationSeconds } = o
  let seeded = 0
  const created = rfc3339(startMillis)
  // Stored objects are never mutated, so every seeded pod shares the parts that are the same for all.
  const labels = { app: "sim" }
  const resources = { requests: { cpu: "100m", memory: "128Mi" } }
  const containers = [{ name: "app", image: "registry.example/app:1", resources }]
  // one container list per image, shared
  const containersByImage = new Map<string, ReadonlyArray<object>>()
  const containersOf = (i: number): ReadonlyArray<object> => {
    if (imagePulls === undefined) return containers
    const image = imagePulls.podImage(i)
    let c = containersByImage.get(image)
    if (c === undefined) containersByImage.set(image, (c = [{ name: "app", image, resources }]))
    return c
  }
  const tolerations = [
    { key: TaintKeys.notReady, operator: "Exists", effect: "NoExecute", tolerationSeconds },
    { key: TaintKeys.unreachable, operator: "Exists", effect: "NoExecute", tolerationSeconds }
  ]
  const pending = { phase: "Pending", conditions: [{ type: "PodScheduled", status: "True", lastProbeTime: null, lastTransitionTime: created }] }
  for (const node of nodes) {
    // the node's pods with the same containers share one spec (30 pods a node: 150,000 objects fewer to make and keep)
    let spec: object | undefined
    let specContainers: ReadonlyArray<object> | undefined
    for (let i = 0; i < podsPerNode; i++) {
      const name = flatString(node.name, "-pod-", String(i))
      const containers = containersOf(i)
      if (spec === undefined || containers !== specContainers) {
        spec = { nodeName: node.name, schedulerName: "default-scheduler", containers, tolerations }
        specContainers = containers
      }
      const pod: KObject = {
        // `resourceVersion` last, as the store's stamp would add it: set in place there (`Store.putFresh`), it then
        // needs no property store of its own besides the object's
        metadata: { name, namespace: "default", uid: fastUid(o.random), creationTimestamp: created, labels, resourceVersion: "" },
        spec,
        status: pending
      }
      store.putFresh(Pods, objectKey("default", name), pod, startMillis)
      seeded++
    }
  }
  return seeded
}

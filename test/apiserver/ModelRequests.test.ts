import { beforeEach, describe, expect, it } from "@effect/vitest"
import { Nodes, Pods } from "../../src/api/Resources.js"
import { classification, priorityLevels } from "../../simulator/apiserver/apf/Bootstrap.js"
import { PriorityAndFairness } from "../../simulator/apiserver/apf/PriorityAndFairness.js"
import { ModelRequests, type ModelIdentity } from "../../simulator/apiserver/ModelRequests.js"

describe("ModelRequests", () => {
  // one cache per test, as one per model: nothing outlives a run
  let requests = new ModelRequests()
  const modelRequestOf = (...args: Parameters<ModelRequests["of"]>) => requests.of(...args)
  beforeEach(() => void (requests = new ModelRequests()))

  it("makes a request's attributes once per verb, resource and namespace, classified as the bootstrap schemas classify them", () => {
    const get = modelRequestOf("get", Pods, "default")
    expect(get).toMatchObject({ user: "clustersim", groups: ["system:authenticated"], verb: "get", resource: "pods", namespace: "default" })
    expect(get.classification?.schema.name).toBe("global-default")
    expect(get.classification?.flow).toBe("global-default/clustersim")
    expect(get.classification).toEqual(classification(get))
    expect(modelRequestOf("get", Pods, "default")).toBe(get)
    expect(modelRequestOf("get", Pods, "other")).not.toBe(get)
    expect(modelRequestOf("list", Pods, "default")).not.toBe(get)
  })

  it("drops the namespace of a cluster-scoped resource and names a subresource after its resource", () => {
    expect(modelRequestOf("get", Nodes, "default")).toBe(modelRequestOf("get", Nodes, undefined))
    expect(modelRequestOf("get", Nodes, "default").namespace).toBeUndefined()
    const status = modelRequestOf("patch", Pods, "default", "status")
    expect(status.resource).toBe("pods/status")
    expect(status).not.toBe(modelRequestOf("patch", Pods, "default"))
  })

  it("classifies a request by the identity it is made for: a kubelet's pod LIST is system, one flow per node", () => {
    const node3: ModelIdentity = { user: "system:node:node-3", groups: ["system:nodes", "system:authenticated"] }
    const node4: ModelIdentity = { user: "system:node:node-4", groups: ["system:nodes", "system:authenticated"] }
    const list = modelRequestOf("list", Pods, undefined, undefined, node3)
    expect(list).toMatchObject({ user: "system:node:node-3", groups: ["system:nodes", "system:authenticated"], verb: "list", resource: "pods" })
    expect(list.classification?.schema.name).toBe("system-nodes")
    expect(list.classification?.schema.priorityLevel).toBe("system")
    expect(list.classification?.flow).toBe("system-nodes/system:node:node-3")
    expect(modelRequestOf("list", Pods, undefined, undefined, node4).classification?.flow).toBe("system-nodes/system:node:node-4")
    expect(modelRequestOf("list", Pods, undefined, undefined, node3)).toBe(list)
    // the default identity's request is its own, not the first identity's
    expect(modelRequestOf("list", Pods, undefined).classification?.flow).toBe("global-default/clustersim")
  })

  it("carries its classification's level and flow, which APF books on without reading the classification", () => {
    const node3: ModelIdentity = { user: "system:node:node-3", groups: ["system:nodes", "system:authenticated"] }
    const list = modelRequestOf("list", Pods, undefined, undefined, node3)
    expect(list.level).toBe(list.classification?.level)
    expect(priorityLevels[list.level!]!.name).toBe("system")
    expect(list.flow).toBe("system-nodes/system:node:node-3")
    // a level of one seat: the second request of the carried level waits for the first, whatever the classification says
    const apf = new PriorityAndFairness(1)
    const elsewhere = { ...list, classification: { ...list.classification!, level: priorityLevels.findIndex((l) => l.name === "catch-all") } }
    expect(apf.place(0, list, 1, 10)).toEqual({ _tag: "Dispatched", start: 0, end: 10 })
    expect(apf.place(0, elsewhere, 1, 10)).toEqual({ _tag: "Dispatched", start: 10, end: 20 })
    expect(apf.metrics()["system"]!.dispatched).toBe(2)
  })
})

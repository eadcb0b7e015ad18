import { describe, expect, it } from "@effect/vitest"
import { Nodes, Pods } from "../../src/api/Resources.js"
import { classification } from "../../simulator/apiserver/apf/Bootstrap.js"
import { modelRequestOf } from "../../simulator/apiserver/ModelRequests.js"

describe("modelRequestOf", () => {
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
})

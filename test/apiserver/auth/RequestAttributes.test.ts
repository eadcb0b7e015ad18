import { describe, expect, it } from "@effect/vitest"
import { attributesOf, callAttributes } from "../../../simulator/apiserver/auth/RequestAttributes.js"
import { parseRequest } from "../../../simulator/apiserver/RequestInfo.js"
import { Namespaces, Pods } from "../../../src/api/Resources.js"

const attrs = (method: string, url: string) => {
  const request = parseRequest(method, url)
  if (!("info" in request)) throw new Error(`no RequestInfo for ${url}`)
  return attributesOf(request.info)
}
const resource = (verb: string, apiGroup: string, resource: string, namespace = "", name = "", subresource = "", apiVersion = "v1") => ({
  resourceRequest: true,
  verb,
  apiGroup,
  apiVersion,
  resource,
  subresource,
  namespace,
  name
})

describe("attributesOf (upstream GetAuthorizerAttributes of the RequestInfoFactory's RequestInfo)", () => {
  it("verbs from the method, list/watch/deletecollection without a name", () => {
    expect(attrs("GET", "/api/v1/namespaces/default/pods/p1")).toEqual(resource("get", "", "pods", "default", "p1"))
    expect(attrs("GET", "/api/v1/namespaces/default/pods")).toEqual(resource("list", "", "pods", "default"))
    expect(attrs("GET", "/api/v1/pods?watch=true")).toEqual(resource("watch", "", "pods"))
    expect(attrs("GET", "/api/v1/pods?watch=0")).toEqual(resource("list", "", "pods"))
    expect(attrs("DELETE", "/apis/coordination.platform/v1/namespaces/ns/leases")).toEqual(resource("deletecollection", "coordination.platform", "leases", "ns"))
    expect(attrs("PATCH", "/api/v1/nodes/n1/status")).toEqual(resource("patch", "", "nodes", "", "n1", "status"))
    expect(attrs("POST", "/api/v1/namespaces/default/pods/p1/binding")).toEqual(resource("create", "", "pods", "default", "p1", "binding"))
  })

  it("a metadata.name field selector names the object; legacy /watch/ paths", () => {
    expect(attrs("GET", "/api/v1/namespaces/d/configmaps?watch=1&fieldSelector=metadata.name%3Dcm")).toEqual(resource("watch", "", "configmaps", "d", "cm"))
    expect(attrs("GET", "/api/v1/watch/namespaces/d/configmaps/cm")).toEqual(resource("watch", "", "configmaps", "d", "cm"))
  })

  it("a namespace object is authorized in its own namespace; its status and finalize are subresources", () => {
    expect(attrs("GET", "/api/v1/namespaces/team")).toEqual(resource("get", "", "namespaces", "team", "team"))
    expect(attrs("PUT", "/api/v1/namespaces/team/finalize")).toEqual(resource("update", "", "namespaces", "team", "team", "finalize"))
    expect(callAttributes("get", Namespaces, undefined, "team")).toEqual(resource("get", "", "namespaces", "team", "team"))
    expect(callAttributes("create", Pods, "d", "p", "eviction")).toEqual(resource("create", "", "pods", "d", "p", "eviction"))
  })

  it("discovery, health and version are non-resource requests with the lower-cased method", () => {
    for (const path of ["/api", "/api/v1", "/apis", "/apis/apps", "/apis/apps/v1", "/healthz", "/version"])
      expect(attrs("GET", path)).toEqual({ resourceRequest: false, verb: "get", path })
    expect(attrs("POST", "/clustersim/compact")).toEqual({ resourceRequest: false, verb: "post", path: "/clustersim/compact" })
  })
})

import { describe, expect, it } from "@effect/vitest"
import { routeOf, type Parsed } from "../../../simulator/apiserver/http/Routes.js"
import { parseRequest } from "../../../simulator/apiserver/RequestInfo.js"

const address = "127.0.0.1:6443"

/** The route of a GET of `path`, read from its RequestInfo as the server reads it. */
const parsePath = (path: string, serverAddress: string): Parsed => {
  const request = parseRequest("GET", path)
  if (!("info" in request)) throw new Error(`no RequestInfo for ${path}`)
  return routeOf(request.info, serverAddress)
}

/** A resource route's parts, or the parse's tag when it is not one. */
const route = (path: string) => {
  const p: Parsed = parsePath(path, address)
  if (p._tag !== "resource") return p._tag
  const r = p.route
  return { plural: r.resource.plural, namespace: r.namespace, name: r.name, subresource: r.subresource, watch: r.watch }
}

describe("parsePath (spec 000 Endpoints)", () => {
  it("namespaced, cluster-scoped, subresource and legacy watch paths", () => {
    expect(route("/api/v1/namespaces/ns1/configmaps/cm")).toEqual({ plural: "configmaps", namespace: "ns1", name: "cm", subresource: undefined, watch: false })
    expect(route("/api/v1/nodes/n1/status")).toEqual({ plural: "nodes", namespace: undefined, name: "n1", subresource: "status", watch: false })
    expect(route("/api/v1/watch/namespaces/ns1/configmaps")).toEqual({ plural: "configmaps", namespace: "ns1", name: undefined, subresource: undefined, watch: true })
    // namespaces/<name>/<subresource> is the namespace object's own subresource
    expect(route("/api/v1/namespaces/ns1/finalize")).toEqual({ plural: "namespaces", namespace: undefined, name: "ns1", subresource: "finalize", watch: false })
  })
  it("health endpoints and their checks, discovery documents, admin actions and the 404 page", () => {
    expect(parsePath("/healthz", address)).toEqual({ _tag: "health", endpoint: "healthz", check: undefined })
    expect(parsePath("/livez/ping", address)).toEqual({ _tag: "health", endpoint: "livez", check: "ping" })
    expect(parsePath("/readyz/log", address)).toEqual({ _tag: "health", endpoint: "readyz", check: "log" })
    expect(route("/api")).toBe("document")
    expect(route("/api/v1")).toBe("document")
    expect(route("/clustersim/pause")).toEqual("admin")
    expect(parsePath("/", address)).toEqual({ _tag: "text", code: 404, body: "404 page not found\n" })
    expect(parsePath("/apis/nosuch.example/v1/things", address)).toEqual({ _tag: "text", code: 404, body: "404 page not found\n" })
  })
  it("an unknown resource or a path too deep in a served version is a NotFound Status", () => {
    for (const path of ["/api/v1/nosuch", "/api/v1/nodes/n1/nosub", "/api/v1/namespaces/ns1/configmaps/cm/status/extra"]) {
      const p = parsePath(path, address)
      expect(p._tag === "error" ? [p.error.code, p.error.status.message] : p._tag).toEqual([404, "the server could not find the requested resource"])
    }
  })
})

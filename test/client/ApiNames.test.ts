/** The target's names by discovery: the HTTP client speaks `.k8s.io` and `kube-` namespaces to a server that serves them. */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { describe, expect, it } from "@effect/vitest"
import { Context, Effect, Layer, Stream } from "effect"
import { Leases, Pods } from "../../src/api/Resources.js"
import { ApiClient } from "../../src/client/ApiClient.js"
import { apiNamesFromGroups, specNames } from "../../src/client/ApiNames.js"
import { apiGroupList } from "../../simulator/apiserver/Discovery.js"

describe("ApiNames", () => {
  it("keeps the spec's names where the target serves them", () => {
    expect(apiNamesFromGroups(["apps", "coordination.platform", "events.platform"])).toBe(specNames)
    expect(apiNamesFromGroups([])).toBe(specNames)
    // metrics.k8s.io (kubectl top) is served as upstream names it: no rename of the spec's groups or namespaces
    expect(apiNamesFromGroups(["apps", "coordination.platform", "events.platform", "rbac.authorization.platform", "metrics.k8s.io"])).toBe(specNames)
    // clustersim's own discovery, which lists rbac.authorization.k8s.io beside the spec's group
    expect(apiNamesFromGroups(apiGroupList().groups.map((g) => g.name))).toBe(specNames)
  })

  it("renames groups the target serves only as .k8s.io, and then the system namespaces", () => {
    const names = apiNamesFromGroups(["apps", "coordination.k8s.io", "events.k8s.io", "flowcontrol.apiserver.k8s.io"])
    expect(names.resource(Leases).apiVersion).toBe("coordination.k8s.io/v1")
    expect(names.resource(Leases).group).toBe("coordination.k8s.io")
    expect(names.resource(Pods)).toBe(Pods)
    expect(names.namespaceToTarget("platform-node-lease")).toBe("kube-node-lease")
    expect(names.namespaceToTarget("platform-system")).toBe("kube-system")
    expect(names.namespaceFromTarget("kube-system")).toBe("platform-system")
    expect(names.namespaceToTarget("default")).toBe("default")
    expect(names.apiVersionToTarget("events.platform/v1")).toBe("events.k8s.io/v1")
    expect(names.apiVersionFromTarget("coordination.k8s.io/v1")).toBe("coordination.platform/v1")
    expect(names.apiVersionFromTarget("v1")).toBe("v1")
  })

  it.scoped("the HTTP client discovers once and translates paths, bodies, answers and watch events", () =>
    Effect.gen(function* () {
      const seen: Array<string> = []
      const bodies: Array<unknown> = []
      const lease = { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "n1", namespace: "kube-node-lease", resourceVersion: "5" }, spec: {} }
      const server = http.createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`)
        let body = ""
        req.on("data", (c) => (body += c))
        req.on("end", () => {
          if (body) bodies.push(JSON.parse(body))
          res.setHeader("content-type", "application/json")
          if (req.url === "/apis") return res.end(JSON.stringify({ kind: "APIGroupList", groups: [{ name: "coordination.k8s.io" }, { name: "events.k8s.io" }] }))
          if (req.url?.includes("watch=true")) return res.end(JSON.stringify({ type: "ADDED", object: lease }) + "\n")
          if (req.url?.endsWith("/leases")) return res.end(JSON.stringify({ kind: "LeaseList", apiVersion: "coordination.k8s.io/v1", metadata: {}, items: [lease] }))
          res.statusCode = req.method === "POST" ? 201 : 200
          res.end(JSON.stringify(lease))
        })
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(0, "127.0.0.1", () => resume(Effect.void))),
        () => Effect.sync(() => server.close())
      )
      const port = (server.address() as AddressInfo).port
      const client = Context.get(yield* Layer.build(ApiClient.layerHttp({ baseUrl: `http://127.0.0.1:${port}` })), ApiClient)
      const [got, created] = yield* Effect.all(
        [
          client.get(Leases, "n1", { namespace: "platform-node-lease" }),
          client.create(Leases, { apiVersion: "coordination.platform/v1", kind: "Lease", metadata: { name: "n1", namespace: "platform-node-lease" } }, { namespace: "platform-node-lease" })
        ],
        { concurrency: 2 }
      )
      expect(got.apiVersion).toBe("coordination.platform/v1")
      expect(got.metadata.namespace).toBe("platform-node-lease")
      expect(created.object.apiVersion).toBe("coordination.platform/v1")
      expect(bodies[0]).toMatchObject({ apiVersion: "coordination.k8s.io/v1", metadata: { namespace: "kube-node-lease" } })
      const list = yield* client.list(Leases, { namespace: "platform-node-lease" })
      expect(list.items.map((l) => `${l.apiVersion} ${l.metadata.namespace}`)).toEqual(["coordination.platform/v1 platform-node-lease"])
      const events = yield* Stream.runCollect(Stream.take(client.watch(Leases, { namespace: "platform-node-lease" }), 1))
      expect([...events].map((e) => e.object.metadata.namespace)).toEqual(["platform-node-lease"])
      yield* client.get(Pods, "p", { namespace: "platform-system" })
      // One discovery shared by the two concurrent first requests.
      expect(seen.filter((s) => s === "GET /apis")).toHaveLength(1)
      expect(seen.filter((s) => s !== "GET /apis").map((s) => s.replace(/\?.*/, ""))).toEqual(
        expect.arrayContaining([
          "GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1",
          "POST /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
          "GET /apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases",
          "GET /api/v1/namespaces/kube-system/pods/p"
        ])
      )
    })
  )
})

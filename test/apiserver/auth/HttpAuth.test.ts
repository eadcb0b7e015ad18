/** The HTTP side of authentication and authorization: raw 401/403 bodies, non-resource paths, impersonation. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { Agent, request } from "undici"
import { authServer } from "../../support/identities.js"

const tokens = new Map([
  ["tok-alice", { name: "alice", uid: "1", groups: [] as string[] }],
  ["tok-root", { name: "root", uid: "0", groups: ["system:masters"] }]
])

const wire = (anonymous: boolean) =>
  Effect.gen(function* () {
    const s = yield* authServer("http", { authorizationMode: "RBAC", authentication: { anonymous, tokens } })
    const agent = new Agent({ connect: { ca: s.ca } })
    yield* Effect.addFinalizer(() => Effect.promise(() => agent.close()))
    const send = (method: string, path: string, headers: Record<string, string | string[]> = {}) =>
      Effect.promise(async () => {
        const res = await request(s.url! + path, { method: method as "GET", headers, dispatcher: agent })
        const text = await res.body.text()
        return { code: res.statusCode, text, contentType: res.headers["content-type"] }
      })
    return { s, send }
  })

describe("authentication and authorization on the wire", () => {
  it.scoped("401 is upstream's exact body; a bad token is 401 even where anonymous would be allowed", () =>
    Effect.gen(function* () {
      const { send } = yield* wire(false)
      const closed = yield* send("GET", "/api/v1/pods")
      expect(closed.code).toBe(401)
      expect(closed.contentType).toBe("application/json")
      expect(closed.text).toBe('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}\n')
      expect((yield* send("GET", "/healthz")).code).toBe(401)
      const open = yield* wire(true)
      expect((yield* open.send("GET", "/healthz")).text).toBe("ok")
      expect((yield* open.send("GET", "/healthz", { authorization: "Bearer wrong" })).code).toBe(401)
      expect((yield* open.send("GET", "/healthz", { authorization: "Bearer tok-alice" })).text).toBe("ok")
    }))

  it.scoped("non-resource paths: discovery for authenticated users only, health for everyone", () =>
    Effect.gen(function* () {
      const { send } = yield* wire(true)
      const api = yield* send("GET", "/apis")
      expect(api.code).toBe(403)
      expect(JSON.parse(api.text)).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'forbidden: User "system:anonymous" cannot get path "/apis"',
        reason: "Forbidden",
        details: {},
        code: 403
      })
      expect((yield* send("GET", "/apis", { authorization: "Bearer tok-alice" })).code).toBe(200)
      expect((yield* send("GET", "/version")).code).toBe(200)
      // Authorization comes before routing: an unknown resource is 403 to whom it is not allowed.
      const unknown = yield* send("GET", "/api/v1/namespaces/default/widgets", { authorization: "Bearer tok-alice" })
      expect(JSON.parse(unknown.text).message).toBe('widgets is forbidden: User "alice" cannot list resource "widgets" in API group "" in the namespace "default"')
    }))

  it.scoped("impersonation needs the impersonate verb; the request then runs as the impersonated user", () =>
    Effect.gen(function* () {
      const { send } = yield* wire(true)
      const asBob = yield* send("GET", "/api/v1/namespaces/default/pods", { authorization: "Bearer tok-root", "impersonate-user": "bob", "impersonate-group": ["devs", "qa"] })
      expect(JSON.parse(asBob.text).message).toBe('pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"')
      const notAllowed = yield* send("GET", "/api/v1/namespaces/default/pods", { authorization: "Bearer tok-alice", "impersonate-user": "bob" })
      expect(JSON.parse(notAllowed.text).message).toBe('users "bob" is forbidden: User "alice" cannot impersonate resource "users" in API group "" at the cluster scope')
      const groupsOnly = yield* send("GET", "/api/v1/pods", { authorization: "Bearer tok-root", "impersonate-group": "devs" })
      expect(groupsOnly.code).toBe(400)
    }))

  it.scoped("the access reviews answer POST only", () =>
    Effect.gen(function* () {
      const { send } = yield* wire(true)
      const root = { authorization: "Bearer tok-root" }
      expect((yield* send("GET", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", root)).code).toBe(405)
      const discovery = JSON.parse((yield* send("GET", "/apis/authorization.platform/v1", root)).text)
      expect(discovery.resources.map((r: { name: string; verbs: string[] }) => [r.name, r.verbs])).toEqual([
        ["subjectaccessreviews", ["create"]],
        ["selfsubjectaccessreviews", ["create"]],
        ["selfsubjectrulesreviews", ["create"]]
      ])
      const core = JSON.parse((yield* send("GET", "/api/v1", root)).text)
      expect(core.resources.find((r: { name: string }) => r.name === "serviceaccounts/token")).toEqual({
        name: "serviceaccounts/token",
        singularName: "",
        namespaced: true,
        group: "authentication.platform",
        version: "v1",
        kind: "TokenRequest",
        verbs: ["create"]
      })
    }))
})

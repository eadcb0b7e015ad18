/** The wire: routing, discovery, negotiation, body limits and malformed requests — each answered with a Status. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, TestClock } from "effect"
import { ApiServer } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { request } from "undici"
import { httpServer } from "../support/transports.js"

interface Reply {
  readonly code: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  readonly json: any
}

const send = (base: string, method: string, path: string, opts: { body?: string; headers?: Record<string, string> } = {}) =>
  Effect.promise(async (): Promise<Reply> => {
    const res = await request(base + path, { method: method as "GET", body: opts.body, headers: opts.headers })
    const text = await res.body.text()
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch {
      json = undefined
    }
    return { code: res.statusCode, headers: res.headers, text, json }
  })

const json = { "content-type": "application/json" }

describe("HTTP wire", () => {
  it.scoped("discovery documents and health endpoints", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const api = yield* send(base, "GET", "/api")
      expect(api.json.kind).toBe("APIVersions")
      expect(api.json.versions).toEqual(["v1"])
      const apis = yield* send(base, "GET", "/apis")
      expect(apis.json.groups.map((g: { name: string }) => g.name)).toEqual(["apps", "coordination.platform", "events.platform", "rbac.authorization.platform", "rbac.authorization.k8s.io", "authorization.platform", "authentication.platform", "metrics.k8s.io"])
      const core = yield* send(base, "GET", "/api/v1")
      const pods = core.json.resources.find((r: { name: string }) => r.name === "pods")
      expect(pods).toEqual({
        name: "pods",
        singularName: "pod",
        namespaced: true,
        kind: "Pod",
        verbs: ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"],
        shortNames: ["po"],
        categories: ["all"]
      })
      expect(core.json.resources.map((r: { name: string }) => r.name)).toContain("pods/binding")
      const ns = core.json.resources.find((r: { name: string }) => r.name === "namespaces")
      expect(ns.shortNames).toEqual(["ns"])
      expect(ns.namespaced).toBe(false)
      const leases = yield* send(base, "GET", "/apis/coordination.platform/v1")
      expect(leases.json.groupVersion).toBe("coordination.platform/v1")
      expect(leases.json.resources[0].kind).toBe("Lease")
      const deploy = yield* send(base, "GET", "/apis/apps/v1")
      expect(deploy.json.resources[0].shortNames).toEqual(["deploy"])
      const version = yield* send(base, "GET", "/version")
      expect(version.json.major).toBe("1")
      expect(version.json.minor).toBe("26")
      for (const path of ["/healthz", "/readyz", "/livez"]) {
        const r = yield* send(base, "GET", path)
        expect([r.code, r.text]).toEqual([200, "ok"])
      }
    }))

  it.scoped("every response carries Cache-Control and Audit-Id; curl gets pretty JSON without a trailing newline", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const plain = yield* send(base, "GET", "/api/v1/namespaces/default")
      expect(plain.headers["cache-control"]).toBe("no-cache, private")
      expect(plain.headers["audit-id"]).toMatch(/^[0-9a-f-]{36}$/)
      expect(plain.text.endsWith("}\n")).toBe(true)
      const pretty = yield* send(base, "GET", "/api/v1/namespaces/default", { headers: { "user-agent": "curl/8.0" } })
      expect(pretty.text.startsWith('{\n  "kind": "Namespace"')).toBe(true)
      expect(pretty.text.endsWith("}")).toBe(true)
    }))

  it.scoped("405, 404 for unknown resources and paths", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const wrongVerb = yield* send(base, "POST", "/api/v1/namespaces/default/pods/x", { body: "{}", headers: json })
      expect(wrongVerb.code).toBe(405)
      expect(wrongVerb.json).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "the server does not allow this method on the requested resource",
        reason: "MethodNotAllowed",
        details: {},
        code: 405
      })
      const unknownResource = yield* send(base, "GET", "/api/v1/widgets")
      expect(unknownResource.code).toBe(404)
      expect(unknownResource.json).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "the server could not find the requested resource",
        reason: "NotFound",
        details: {},
        code: 404
      })
      const outside = yield* send(base, "GET", "/nowhere")
      expect(outside.code).toBe(404)
      expect(outside.text).toBe("404 page not found\n")
    }))

  it.scoped("406 when nothing acceptable; a protobuf Table + JSON fallback gets JSON", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const none = yield* send(base, "GET", "/api/v1/namespaces", { headers: { accept: "text/html" } })
      expect(none.code).toBe(406)
      expect(none.json.reason).toBe("NotAcceptable")
      const fallback = yield* send(base, "GET", "/api/v1/namespaces", {
        headers: { accept: "application/vnd.platform.protobuf;as=Table;v=v1;g=meta.platform,application/json" }
      })
      expect(fallback.code).toBe(200)
      expect(fallback.json.kind).toBe("NamespaceList")
    }))

  it.scoped("415 for an unknown body type, 400 for malformed JSON, 413 above 3 MiB", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const wrongType = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { body: "a: 1", headers: { "content-type": "text/plain" } })
      expect(wrongType.code).toBe(415)
      expect(wrongType.json.message).toBe(
        "the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.platform.protobuf"
      )
      const malformed = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { body: "{not json", headers: json })
      expect(malformed.code).toBe(400)
      expect(malformed.json.kind).toBe("Status")
      expect(malformed.json.reason).toBe("BadRequest")
      const patchType = yield* send(base, "PATCH", "/api/v1/namespaces/default", { body: "{}", headers: { "content-type": "text/plain" } })
      expect(patchType.code).toBe(415)
      expect(patchType.json.message).toBe("415: Unsupported Media Type")
      const huge = JSON.stringify({ metadata: { name: "big" }, data: { x: "y".repeat(3 * 1024 * 1024) } })
      const tooLarge = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { body: huge, headers: json })
      expect(tooLarge.code).toBe(413)
      expect(tooLarge.json.message).toBe("Request entity too large: limit is 3145728")
      // The server is still answering.
      const after = yield* send(base, "GET", "/healthz")
      expect(after.code).toBe(200)
    }))

  it.scoped("duplicate and unknown fields: one Warning header each; Strict names them all", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const body = '{"metadata":{"name":"l","name":"l"},"spec":{"holderIdentity":"a","bogus":1}}'
      const warned = yield* send(base, "POST", "/apis/coordination.platform/v1/namespaces/default/leases", { body, headers: json })
      expect(warned.code).toBe(201)
      expect(warned.headers["warning"]).toEqual(['299 - "duplicate field \\"metadata.name\\""', '299 - "unknown field \\"spec.bogus\\""'])
      const strict = yield* send(base, "POST", "/apis/coordination.platform/v1/namespaces/default/leases?fieldValidation=Strict", {
        body: body.replace('"l","name":"l"', '"m","name":"m"'),
        headers: json
      })
      expect(strict.code).toBe(400)
      expect(strict.json.message).toBe(
        'Lease in version "v1" cannot be handled as a Lease: strict decoding error: duplicate field "metadata.name", unknown field "spec.bogus"'
      )
    }))

  it.scoped("name and namespace mismatches are 400; POST with a resourceVersion is 500", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const nsMismatch = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", {
        body: JSON.stringify({ metadata: { name: "a", namespace: "other" } }),
        headers: json
      })
      expect(nsMismatch.code).toBe(400)
      expect(nsMismatch.json.message).toBe("the namespace of the provided object does not match the namespace sent on the request")
      yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { body: JSON.stringify({ metadata: { name: "a" } }), headers: json })
      const nameMismatch = yield* send(base, "PUT", "/api/v1/namespaces/default/configmaps/a", {
        body: JSON.stringify({ metadata: { name: "b" } }),
        headers: json
      })
      expect(nameMismatch.code).toBe(400)
      expect(nameMismatch.json.message).toBe("the name of the object (b) does not match the name on the URL (a)")
      const withRv = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", {
        body: JSON.stringify({ metadata: { name: "c", resourceVersion: "5" } }),
        headers: json
      })
      expect(withRv.code).toBe(500)
      expect(withRv.json).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "resourceVersion should not be set on objects to be created",
        code: 500
      })
      const apiVersion = yield* send(base, "POST", "/apis/events.platform/v1/namespaces/default/events", {
        body: JSON.stringify({ apiVersion: "x/v1", kind: "Event", metadata: { name: "e" } }),
        headers: json
      })
      expect(apiVersion.code).toBe(400)
      expect(apiVersion.json.message).toBe("the API version in the data (x/v1) does not match the expected API version (events.platform/v1)")
    }))

  it.scoped("pods/binding sets spec.nodeName once", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* send(base, "POST", "/api/v1/namespaces/default/pods", { body: JSON.stringify({ metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx" }] } }), headers: json })
      const binding = JSON.stringify({ apiVersion: "v1", kind: "Binding", metadata: { name: "p" }, target: { kind: "Node", name: "node-1" } })
      const bound = yield* send(base, "POST", "/api/v1/namespaces/default/pods/p/binding", { body: binding, headers: json })
      expect(bound.code).toBe(201)
      expect(bound.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 })
      const pod = yield* send(base, "GET", "/api/v1/namespaces/default/pods/p")
      expect(pod.json.spec.nodeName).toBe("node-1")
      const again = yield* send(base, "POST", "/api/v1/namespaces/default/pods/p/binding", { body: binding, headers: json })
      expect(again.code).toBe(409)
    }))

  it.scoped("504 Too large resource version carries Retry-After: 1", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const fiber = yield* Effect.fork(send(base, "GET", "/api/v1/namespaces/default?resourceVersion=999999"))
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
      yield* TestClock.adjust("3100 millis")
      const reply = yield* Fiber.join(fiber)
      expect(reply.code).toBe(504)
      expect(reply.headers["retry-after"]).toBe("1")
      expect(reply.json.message).toMatch(/^Timeout: Too large resource version: 999999, current: \d+$/)
    }))

  it.scoped("admin endpoints exist only with --admin; with it they compact, drop watches and pause", () =>
    Effect.gen(function* () {
      const closed = yield* Effect.map(serveHttp({ host: "127.0.0.1", port: 0, admin: false }), (s) => s.url).pipe(
        Effect.provide(ApiServer.layer())
      )
      const off = yield* send(closed, "POST", "/clustersim/compact")
      expect([off.code, off.text]).toEqual([404, "404 page not found\n"])
      const base = yield* httpServer()
      const compacted = yield* send(base, "POST", "/clustersim/compact")
      expect(compacted.json).toEqual({ compactedRevision: 4 })
      const dropped = yield* send(base, "POST", "/clustersim/drop-watches")
      expect(dropped.json).toEqual({ dropped: 0 })
      const get = yield* send(base, "GET", "/clustersim/compact")
      expect(get.code).toBe(405)
      const badPause = yield* send(base, "POST", "/clustersim/pause")
      expect(badPause.code).toBe(400)
      const paused = yield* send(base, "POST", "/clustersim/pause?seconds=5")
      expect(paused.json).toEqual({ pausedSeconds: 5 })
      const waiting = yield* Effect.fork(send(base, "GET", "/api/v1/namespaces/default"))
      yield* Effect.promise(() => new Promise((r) => setTimeout(r, 50)))
      expect(waiting.unsafePoll()).toBeNull()
      yield* TestClock.adjust("5 seconds")
      const answered = yield* Fiber.join(waiting)
      expect(answered.code).toBe(200)
    }))
})

/**
 * Attacks on the reading of a request's URL (issue 36), over HTTP with RBAC on: a path spelled with escapes
 * (`%6eamespaces`, `%77atch`, `%2F`) is the same request for authorization as for routing, so it is refused
 * exactly as its plain spelling; a legacy `/watch/` path serves nothing but watches; a malformed escape is Go's
 * plain `400 Bad Request` before authentication, RBAC on or off. After each, the server answers /healthz at once
 * and the secret is unchanged.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import * as net from "node:net"
import { ApiServer, type ApiServerConfig } from "../../simulator/apiserver/ApiServer.js"
import { serveHttp } from "../../simulator/apiserver/HttpServer.js"
import { send, type Reply } from "../support/wire.js"

const tokens = new Map([
  ["tok-getter", { name: "getter", uid: "1", groups: [] as string[] }],
  ["tok-watcher", { name: "watcher", uid: "2", groups: [] as string[] }],
  ["tok-root", { name: "root", uid: "0", groups: ["system:masters"] }]
])
const rbac: Partial<ApiServerConfig> = { authorizationMode: "RBAC", authentication: { anonymous: false, tokens } }

const as = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" })
const root = as("tok-root")
const getter = as("tok-getter")
const watcher = as("tok-watcher")

const serve = (config: Partial<ApiServerConfig>) =>
  serveHttp({ host: "127.0.0.1", port: 0, admin: false }).pipe(Effect.provide(ApiServer.layer(config)))

const post = (base: string, path: string, body: unknown) =>
  Effect.tap(send(base, "POST", path, { body: JSON.stringify(body), headers: root }), (r) => expect(r.code).toBe(201))

/**
 * A server with RBAC on; `getter` may only get core resources, `watcher` only watch config maps, both cluster-wide.
 * The config map `other/secret` holds what a leak would show.
 */
const rbacServer = Effect.gen(function* () {
  const { url: base, port } = yield* serve(rbac)
  yield* post(base, "/api/v1/namespaces", { metadata: { name: "other" } })
  yield* post(base, "/api/v1/namespaces/other/configmaps", { metadata: { name: "secret" }, data: { password: "hunter2" } })
  const roles = "/apis/rbac.authorization.platform/v1"
  yield* post(base, `${roles}/clusterroles`, { metadata: { name: "getter" }, rules: [{ apiGroups: [""], resources: ["*"], verbs: ["get"] }] })
  yield* post(base, `${roles}/clusterroles`, { metadata: { name: "watcher" }, rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["watch"] }] })
  for (const user of ["getter", "watcher"])
    yield* post(base, `${roles}/clusterrolebindings`, {
      metadata: { name: user },
      roleRef: { apiGroup: "rbac.authorization.platform", kind: "ClusterRole", name: user },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.platform", name: user }]
    })
  return { base, port }
})

/** The server is alive (/healthz within 100 ms) and the secret as it was: no attack changed anything. */
const aliveAndUnchanged = (base: string) =>
  Effect.gen(function* () {
    const started = performance.now()
    const health = yield* send(base, "GET", "/healthz", { headers: root })
    expect({ code: health.code, text: health.text }).toEqual({ code: 200, text: "ok" })
    expect(performance.now() - started).toBeLessThan(100)
    const secret = yield* send(base, "GET", "/api/v1/namespaces/other/configmaps/secret", { headers: root })
    expect(secret.json?.data).toEqual({ password: "hunter2" })
  })

const refusal = (r: Reply) => ({ code: r.code, reason: r.json?.reason, message: r.json?.message })

/** Writes `request` on a fresh connection and reads until the server closes it. */
const raw = (port: number, request: string) =>
  Effect.promise(
    () =>
      new Promise<{ readonly text: string; readonly closed: boolean }>((resolve) => {
        const socket = net.connect(port, "127.0.0.1")
        let text = ""
        const giveUp = setTimeout(() => {
          socket.destroy()
          resolve({ text, closed: false })
        }, 5_000)
        socket.on("data", (d) => (text += d.toString("latin1")))
        socket.on("error", () => {})
        socket.on("close", () => {
          clearTimeout(giveUp)
          resolve({ text, closed: true })
        })
        socket.on("connect", () => socket.write(request))
      })
  )

/** The head's status line and headers without the ones that change per answer, and the body. */
const answer = (text: string) => {
  const [head = "", body = ""] = text.split("\r\n\r\n")
  const [status, ...headers] = head.split("\r\n")
  return { status, headers: headers.filter((h) => !/^(date|content-length):/i.test(h)), body }
}

describe("one reading of the URL (RequestInfo) under attack", () => {
  it.live("a user who may only get: an escaped `namespaces` or `watch` is refused as the plain path is, and leaks nothing", () =>
    Effect.gen(function* () {
      const { base } = yield* rbacServer
      expect((yield* send(base, "GET", "/api/v1/namespaces/other/configmaps/secret", { headers: getter })).code).toBe(200)
      const list = refusal(yield* send(base, "GET", "/api/v1/namespaces/other/configmaps", { headers: getter }))
      expect(list).toEqual({
        code: 403,
        reason: "Forbidden",
        message: 'configmaps is forbidden: User "getter" cannot list resource "configmaps" in API group "" in the namespace "other"'
      })
      for (const path of [
        "/api/v1/%6eamespaces/other/configmaps",
        "/api/v1/%6Eamespaces/other/configmaps",
        "/api/v1/n%61mespaces/other/configmaps",
        "/%61pi/v1/namespaces/other/configmaps",
        "/api/v1/namespaces%2Fother%2Fconfigmaps",
        "/api/v1/namespaces/%6f%74%68%65%72/configmaps",
        "/api/v1/namespaces/other/configmaps/"
      ]) {
        const r = yield* send(base, "GET", path, { headers: getter })
        expect({ path, ...refusal(r) }).toEqual({ path, ...list })
        expect(r.text).not.toContain("hunter2")
      }
      const watch = refusal(yield* send(base, "GET", "/api/v1/watch/configmaps", { headers: getter }))
      expect(watch).toEqual({
        code: 403,
        reason: "Forbidden",
        message: 'configmaps is forbidden: User "getter" cannot watch resource "configmaps" in API group "" at the cluster scope'
      })
      for (const path of ["/api/v1/%77atch/configmaps", "/api/v1/watch/%63onfigmaps", "/api/v1/w%61tch/configmaps", "/api/v1/watch%2Fconfigmaps"]) {
        const r = yield* send(base, "GET", path, { headers: getter })
        expect({ path, ...refusal(r) }).toEqual({ path, ...watch })
      }
      // Double-encoded, the keyword is another segment: a resource of that name, which nothing serves.
      const double = yield* send(base, "GET", "/api/v1/%256eamespaces/other/configmaps", { headers: getter })
      expect(refusal(double)).toEqual({ code: 404, reason: "NotFound", message: "the server could not find the requested resource" })
      expect(double.text).not.toContain("hunter2")
      yield* aliveAndUnchanged(base)
    }).pipe(Effect.scoped))

  it.live("a user who may only watch cannot delete or create through a legacy /watch/ path (405), nor get a watch of a named path", () =>
    Effect.gen(function* () {
      const { base } = yield* rbacServer
      for (const method of ["DELETE", "POST", "PUT", "PATCH"]) {
        const r = yield* send(base, method, "/api/v1/watch/namespaces/other/configmaps", { headers: watcher, body: '{"metadata":{"name":"x"}}' })
        expect({ method, ...refusal(r) }).toEqual({ method, code: 405, reason: "MethodNotAllowed", message: "the server does not allow this method on the requested resource" })
      }
      // `?watch=true` on a named path is a get (upstream's verb), so the watcher may not, and the getter gets the object.
      const named = "/api/v1/namespaces/other/configmaps/secret?watch=true"
      expect((yield* send(base, "GET", named, { headers: watcher })).code).toBe(403)
      const got = yield* send(base, "GET", named, { headers: getter })
      expect({ code: got.code, kind: got.json?.kind }).toEqual({ code: 200, kind: "ConfigMap" })
      yield* aliveAndUnchanged(base)
    }).pipe(Effect.scoped))

  it.live("an upstream namespace name in a .k8s.io path is authorized as the namespace it serves, not as a namespace of that name", () =>
    Effect.gen(function* () {
      const { base } = yield* rbacServer
      // The system's node leases, and a team that owns a namespace that happens to be called kube-node-lease.
      yield* post(base, "/apis/coordination.platform/v1/namespaces/platform-node-lease/leases", { metadata: { name: "n1" }, spec: { holderIdentity: "n1" } })
      yield* post(base, "/api/v1/namespaces", { metadata: { name: "kube-node-lease" } })
      const roles = "/apis/rbac.authorization.platform/v1/namespaces/kube-node-lease"
      yield* post(base, `${roles}/roles`, { metadata: { name: "leases" }, rules: [{ apiGroups: ["coordination.platform"], resources: ["leases"], verbs: ["*"] }] })
      yield* post(base, `${roles}/rolebindings`, {
        metadata: { name: "getter-leases" },
        roleRef: { apiGroup: "rbac.authorization.platform", kind: "Role", name: "leases" },
        subjects: [{ kind: "User", apiGroup: "rbac.authorization.platform", name: "getter" }]
      })
      // Through the upstream name the path's kube-node-lease is the stored platform-node-lease: the team's role does not reach it.
      const list = yield* send(base, "GET", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", { headers: getter })
      expect(refusal(list)).toEqual({
        code: 403,
        reason: "Forbidden",
        message: 'leases.coordination.k8s.io is forbidden: User "getter" cannot list resource "leases" in API group "coordination.k8s.io" in the namespace "platform-node-lease"'
      })
      const write = yield* send(base, "PUT", "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/n1", {
        headers: getter,
        body: JSON.stringify({ apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: "n1", namespace: "kube-node-lease" }, spec: { holderIdentity: "attacker" } })
      })
      expect(write.code).toBe(403)
      const lease = yield* send(base, "GET", "/apis/coordination.platform/v1/namespaces/platform-node-lease/leases/n1", { headers: root })
      expect(lease.json?.spec?.holderIdentity).toBe("n1")
      // The team's own namespace under the stored group name is theirs.
      expect((yield* send(base, "GET", "/apis/coordination.platform/v1/namespaces/kube-node-lease/leases", { headers: getter })).code).toBe(200)
      yield* aliveAndUnchanged(base)
    }).pipe(Effect.scoped))

  it.live("a malformed escape is Go's plain 400 before authentication, RBAC on or off, and the connection is closed", () =>
    Effect.gen(function* () {
      const goBadRequest = { status: "HTTP/1.1 400 Bad Request", headers: ["Content-Type: text/plain; charset=utf-8", "Connection: close"], body: "400 Bad Request" }
      const open = yield* serve({})
      const { base, port } = yield* rbacServer
      for (const target of ["/api/v1/namespaces/%ZZ/configmaps", "/api/v1/namespaces/other/configmaps/%4", "/%", "/healthz%G0"])
        for (const [server, auth] of [[port, ""], [port, "Authorization: Bearer tok-root\r\n"], [open.port, ""]] as const) {
          const reply = yield* raw(server, `GET ${target} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`)
          expect({ target, closed: reply.closed, ...answer(reply.text) }).toEqual({ target, closed: true, ...goBadRequest })
        }
      yield* aliveAndUnchanged(base)
      expect((yield* send(open.url, "GET", "/healthz")).text).toBe("ok")
    }).pipe(Effect.scoped))

  it.live("a verb segment with nothing after is upstream's RequestInfo failure: 500 as plain text, before authentication", () =>
    Effect.gen(function* () {
      const { base, port } = yield* rbacServer
      const reply = yield* raw(port, "GET /api/v1/watch HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
      expect(answer(reply.text)).toEqual({
        status: "HTTP/1.1 500 Internal Server Error",
        headers: ["Content-Type: text/plain; charset=utf-8", "X-Content-Type-Options: nosniff", "Connection: close"],
        body: 'Internal Server Error: "/api/v1/watch": failed to create RequestInfo: unable to determine kind and namespace from url, /api/v1/watch\n'
      })
      yield* aliveAndUnchanged(base)
    }).pipe(Effect.scoped))
})

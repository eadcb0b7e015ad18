/**
 * The audit of HTTP requests, against upstream's event shape (field names and order, `MicroTime` timestamps,
 * `responseStatus` as `{"metadata":{},"code":200}` or the failure's Status fields, the authorization annotations):
 * the stages of a plain request, a watch and a failed authentication; what each level records; the `Audit-Id`
 * header; impersonation allowed and refused, with upstream's 403 message and the `impersonatedUser` recorded.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "undici"
import type { Policy } from "../../../src/api/audit/Policy.js"
import { ApiServer, type ApiServerConfig } from "../../../simulator/apiserver/ApiServer.js"
import { Audit, Auditor } from "../../../simulator/apiserver/audit/Auditor.js"
import { makePolicyRuleEvaluator } from "../../../simulator/apiserver/audit/PolicyChecker.js"
import { serveHttp } from "../../../simulator/apiserver/HttpServer.js"

const tokens = new Map([
  ["tok-root", { name: "root", uid: "0", groups: ["system:masters"] }],
  ["tok-bob", { name: "bob", uid: "7", groups: ["devs"] }],
  ["tok-imp", { name: "imp", uid: "2", groups: [] as string[] }]
])

const microTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

type AuditEvent = Record<string, any>

const audited = (rules: Policy["rules"], config: Partial<ApiServerConfig> = {}, extra: Partial<Policy> = {}) =>
  Effect.gen(function* () {
    const lines: string[] = []
    const policy: Policy = { kind: "Policy", apiVersion: "audit.k8s.io/v1", rules, ...extra }
    const auditor = new Auditor(makePolicyRuleEvaluator(policy), { write: (l) => lines.push(l) }, () => BigInt(Date.now()) * 1_000_000n)
    const server = yield* serveHttp({ host: "127.0.0.1", port: 0, admin: false }).pipe(
      Effect.provide(ApiServer.layer({ authentication: { anonymous: true, tokens }, ...config })),
      Effect.provideService(Audit, auditor)
    )
    const send = (token: string | undefined, method: string, path: string, o: { headers?: Record<string, string>; body?: unknown } = {}) =>
      Effect.promise(async () => {
        const res = await request(server.url + path, {
          method: method as "GET",
          headers: {
            "user-agent": "kubectl/v1.27.4 (linux/amd64) kubernetes/fa3d799",
            ...(token ? { authorization: `Bearer ${token}` } : {}),
            ...(o.body === undefined ? {} : { "content-type": "application/json" }),
            ...o.headers
          },
          ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) })
        })
        const text = await res.body.text()
        return { code: res.statusCode, auditId: res.headers["audit-id"] as string, json: text.startsWith("{") ? JSON.parse(text) : undefined, text }
      })
    /** The events of one request, once `count` of them are written (the last one when the connection's answer is done). */
    const eventsOf = (auditID: string, count: number) =>
      Effect.promise(async () => {
        for (let i = 0; i < 200; i++) {
          const events = lines.map((l) => JSON.parse(l) as AuditEvent).filter((e) => e.auditID === auditID)
          if (events.length >= count) return events
          await new Promise((r) => setTimeout(r, 5))
        }
        return lines.map((l) => JSON.parse(l) as AuditEvent).filter((e) => e.auditID === auditID)
      })
    return { send, eventsOf, lines }
  })

const cm = (name: string) => ({ apiVersion: "v1", kind: "ConfigMap", metadata: { name }, data: { k: "v" } })

// Each test on the real clock (the server's watch deadlines, the sleeps), its server closed with its scope.
describe("audit events over HTTP", () => {
  it.live("a create at RequestResponse: RequestReceived then ResponseComplete, upstream's fields in upstream's order", () =>
    Effect.scoped(Effect.gen(function* () {
      const { send, eventsOf } = yield* audited([{ level: "RequestResponse" }])
      const created = yield* send("tok-bob", "POST", "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create", { body: cm("c1") })
      expect(created.code).toBe(201)
      expect(created.auditId).toMatch(uuid)
      const [received, complete, ...more] = yield* eventsOf(created.auditId, 2)
      expect(more).toEqual([])
      const common = {
        kind: "Event",
        apiVersion: "audit.k8s.io/v1",
        level: "RequestResponse",
        auditID: created.auditId,
        requestURI: "/api/v1/namespaces/default/configmaps?fieldManager=kubectl-create",
        verb: "create",
        user: { username: "bob", uid: "7", groups: ["devs", "system:authenticated"] },
        sourceIPs: ["127.0.0.1"],
        userAgent: "kubectl/v1.27.4 (linux/amd64) kubernetes/fa3d799"
      }
      expect(Object.keys(received!)).toEqual([...Object.keys(common).slice(0, 4), "stage", ...Object.keys(common).slice(4), "objectRef", "requestReceivedTimestamp", "stageTimestamp"])
      // authorization has not run yet when the request is received: no annotations
      expect(received).toMatchObject({ ...common, stage: "RequestReceived", objectRef: { resource: "configmaps", namespace: "default", apiVersion: "v1" } })
      expect(received!.stageTimestamp).toBe(received!.requestReceivedTimestamp)
      expect(Object.keys(complete!)).toEqual([
        "kind", "apiVersion", "level", "auditID", "stage", "requestURI", "verb", "user", "sourceIPs", "userAgent", "objectRef", "responseStatus",
        "requestObject", "responseObject", "requestReceivedTimestamp", "stageTimestamp", "annotations"
      ])
      expect(complete).toMatchObject({
        ...common,
        stage: "ResponseComplete",
        objectRef: { resource: "configmaps", namespace: "default", name: "c1", apiVersion: "v1" },
        responseStatus: { metadata: {}, code: 201 },
        requestObject: cm("c1"),
        annotations: { "authorization.k8s.io/decision": "allow", "authorization.k8s.io/reason": "" }
      })
      expect(Object.keys(complete!.objectRef)).toEqual(["resource", "namespace", "name", "apiVersion"])
      expect(complete!.responseObject).toEqual(created.json)
      for (const e of [received!, complete!]) {
        expect(e.requestReceivedTimestamp).toMatch(microTime)
        expect(e.stageTimestamp).toMatch(microTime)
      }
      expect(complete!.stageTimestamp >= complete!.requestReceivedTimestamp).toBe(true)
    })))

  it.live("a failure's responseStatus carries the Status's status, message, reason, details and code", () =>
    Effect.scoped(Effect.gen(function* () {
      const { send, eventsOf } = yield* audited([{ level: "Metadata" }])
      const missing = yield* send("tok-bob", "GET", "/api/v1/namespaces/default/configmaps/nope")
      expect(missing.code).toBe(404)
      const [, complete] = yield* eventsOf(missing.auditId, 2)
      expect(complete!.responseStatus).toEqual({
        metadata: {},
        status: "Failure",
        message: 'configmaps "nope" not found',
        reason: "NotFound",
        details: { name: "nope", kind: "configmaps" },
        code: 404
      })
      expect(complete!.objectRef).toEqual({ resource: "configmaps", namespace: "default", name: "nope", apiVersion: "v1" })
      expect(complete!.verb).toBe("get")
    })))

  it.live("levels: Metadata records no bodies, Request the request's, None nothing; omitStages drops a stage", () =>
    Effect.scoped(Effect.gen(function* () {
      const { send, eventsOf, lines } = yield* audited(
        [
          { level: "None", resources: [{ resources: ["services"] }] },
          { level: "Request", verbs: ["create"], omitStages: ["RequestReceived"] },
          { level: "Metadata" }
        ],
        {},
        { omitStages: ["ResponseStarted"] }
      )
      const created = yield* send("tok-bob", "POST", "/api/v1/namespaces/default/configmaps", { body: cm("c2") })
      const createEvents = yield* eventsOf(created.auditId, 1)
      expect(createEvents.map((e) => e.stage)).toEqual(["ResponseComplete"])
      expect(createEvents[0]!.requestObject).toEqual(cm("c2"))
      expect(createEvents[0]!.responseObject).toBeUndefined()
      const got = yield* send("tok-bob", "GET", "/api/v1/namespaces/default/configmaps/c2")
      const getEvents = yield* eventsOf(got.auditId, 2)
      expect(getEvents.map((e) => [e.stage, e.level, "requestObject" in e, "responseObject" in e])).toEqual([
        ["RequestReceived", "Metadata", false, false],
        ["ResponseComplete", "Metadata", false, false]
      ])
      const before = lines.length
      const services = yield* send("tok-bob", "GET", "/api/v1/namespaces/default/services")
      expect(services.code).toBe(200)
      // a later audited request's events are written after the services list's would have been
      const after = yield* send("tok-bob", "GET", "/api/v1/namespaces/default/configmaps/c2")
      yield* eventsOf(after.auditId, 2)
      expect(lines.slice(before).map((l) => JSON.parse(l).auditID)).not.toContain(services.auditId)
    })))

  it.live("the client's Audit-ID is the event's auditID and the answer's Audit-Id", () =>
    Effect.scoped(Effect.gen(function* () {
      const { send, eventsOf } = yield* audited([{ level: "Metadata" }])
      const r = yield* send("tok-bob", "GET", "/api/v1/namespaces", { headers: { "audit-id": "replayed-42" } })
      expect(r.auditId).toBe("replayed-42")
      expect((yield* eventsOf("replayed-42", 2)).map((e) => e.verb)).toEqual(["list", "list"])
    })))

  it.live("a watch: RequestReceived, ResponseStarted when the stream opens, ResponseComplete when it ends", () =>
    Effect.scoped(Effect.gen(function* () {
      const { send, eventsOf } = yield* audited([{ level: "RequestResponse" }])
      const w = yield* send("tok-bob", "GET", "/api/v1/namespaces/default/configmaps?watch=true&timeoutSeconds=1")
      expect(w.code).toBe(200)
      const events = yield* eventsOf(w.auditId, 3)
      expect(events.map((e) => [e.stage, e.responseStatus])).toEqual([
        ["RequestReceived", undefined],
        ["ResponseStarted", { metadata: {}, code: 200 }],
        ["ResponseComplete", { metadata: {}, code: 200 }]
      ])
      expect(events.map((e) => e.verb)).toEqual(["watch", "watch", "watch"])
      // a watch's stream is no response object
      expect(events.some((e) => "responseObject" in e)).toBe(false)
    })))

  it.live("a failed authentication: one ResponseStarted event without a user, the methods tried as the message", () =>
    Effect.scoped(Effect.gen(function* () {
      const { send, eventsOf } = yield* audited([{ level: "Metadata" }])
      const r = yield* send("tok-wrong", "GET", "/api/v1/pods")
      expect(r.code).toBe(401)
      const events = yield* eventsOf(r.auditId, 1)
      yield* Effect.sleep(50)
      const all = yield* eventsOf(r.auditId, 1)
      expect(all).toHaveLength(1)
      expect(events[0]).toMatchObject({ stage: "ResponseStarted", user: {}, verb: "list", responseStatus: { metadata: {}, message: "Authentication failed, attempted: bearer", code: 401 } })
      expect(events[0]!.annotations).toBeUndefined()
    })))

  it.live("a timeout that is no Go duration: its 400 audited as upstream's withFailedRequestAudit, one ResponseStarted event without a user", () =>
    Effect.scoped(Effect.gen(function* () {
      const { send, eventsOf } = yield* audited([{ level: "Metadata" }])
      const r = yield* send("tok-bob", "GET", "/api/v1/namespaces/default/configmaps?timeout=abc")
      expect(r.code).toBe(400)
      expect(r.auditId).toMatch(uuid)
      const message = 'invalid timeout specified in the request URL - time: invalid duration "abc"'
      expect(r.json).toMatchObject({ kind: "Status", code: 400, reason: "BadRequest", message })
      yield* eventsOf(r.auditId, 1)
      yield* Effect.sleep(50)
      const events = yield* eventsOf(r.auditId, 1)
      expect(events).toHaveLength(1)
      expect(events[0]).toMatchObject({
        stage: "ResponseStarted",
        user: {},
        verb: "list",
        requestURI: "/api/v1/namespaces/default/configmaps?timeout=abc",
        objectRef: { resource: "configmaps", namespace: "default", apiVersion: "v1" },
        responseStatus: { metadata: {}, message, code: 400 }
      })
    })))
})

describe("impersonation, audited", () => {
  const rbac = "/apis/rbac.authorization.k8s.io/v1"
  const setup = Effect.gen(function* () {
    const s = yield* audited([{ level: "Metadata" }], { authorizationMode: "RBAC" })
    const root = (method: string, path: string, body: unknown) => s.send("tok-root", method, path, { body })
    expect((yield* root("POST", `${rbac}/clusterroles`, { metadata: { name: "as-alice" }, rules: [{ verbs: ["impersonate"], apiGroups: [""], resources: ["users"], resourceNames: ["alice"] }] })).code).toBe(201)
    const bind = (name: string, role: string, user: string) => ({
      metadata: { name },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
      subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: user }]
    })
    expect((yield* root("POST", `${rbac}/clusterrolebindings`, bind("imp-as-alice", "as-alice", "imp"))).code).toBe(201)
    expect((yield* root("POST", `${rbac}/clusterrolebindings`, bind("alice-view", "view", "alice"))).code).toBe(201)
    return s
  })

  it.live("allowed: the request runs as the impersonated user (authorized as alice), recorded as impersonatedUser", () =>
    Effect.scoped(Effect.gen(function* () {
      const { send, eventsOf } = yield* setup
      const r = yield* send("tok-imp", "GET", "/api/v1/namespaces/default/pods", { headers: { "impersonate-user": "alice" } })
      expect(r.code).toBe(200)
      const [received, complete] = yield* eventsOf(r.auditId, 2)
      // the policy and `user` see the requester; impersonatedUser the user it acts as, with system:authenticated added
      expect(received!.user).toEqual({ username: "imp", uid: "2", groups: ["system:authenticated"] })
      expect(received!.impersonatedUser).toBeUndefined()
      expect(complete!.impersonatedUser).toEqual({ username: "alice", groups: ["system:authenticated"] })
      expect(Object.keys(complete!).slice(7, 9)).toEqual(["user", "impersonatedUser"])
      expect(complete!.annotations).toEqual({
        "authorization.k8s.io/decision": "allow",
        "authorization.k8s.io/reason": 'RBAC: allowed by ClusterRoleBinding "alice-view" of ClusterRole "view" to User "alice"'
      })
      // alice may not delete: the 403 names her, and the annotation says forbid
      const del = yield* send("tok-imp", "DELETE", "/api/v1/namespaces/default/pods/p", { headers: { "impersonate-user": "alice" } })
      expect(del.json.message).toBe('pods "p" is forbidden: User "alice" cannot delete resource "pods" in API group "" in the namespace "default"')
      const [, denied] = yield* eventsOf(del.auditId, 2)
      expect(denied!.annotations).toEqual({ "authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": "" })
      expect(denied!.responseStatus).toMatchObject({ reason: "Forbidden", code: 403 })
    })))

  it.live("refused: upstream's 403 message, recorded without an impersonated user", () =>
    Effect.scoped(Effect.gen(function* () {
      const { send, eventsOf } = yield* setup
      const r = yield* send("tok-bob", "GET", "/api/v1/namespaces/default/pods", { headers: { "impersonate-user": "alice" } })
      expect(r.code).toBe(403)
      expect(r.json).toMatchObject({
        reason: "Forbidden",
        message: 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
        details: { name: "alice", kind: "users" }
      })
      const [, complete] = yield* eventsOf(r.auditId, 2)
      expect(complete!.impersonatedUser).toBeUndefined()
      expect(complete!.user.username).toBe("bob")
      expect(complete!.responseStatus).toEqual({
        metadata: {},
        status: "Failure",
        message: 'users "alice" is forbidden: User "bob" cannot impersonate resource "users" in API group "" at the cluster scope',
        reason: "Forbidden",
        details: { name: "alice", kind: "users" },
        code: 403
      })
    })))
})

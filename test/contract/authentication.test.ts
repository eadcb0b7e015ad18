/**
 * Authentication over both transports: client certificates (CN, O), the static token file, service-account tokens
 * from TokenRequest (expiring in server time), anonymous on and off; 401 and 403 exactly as upstream's.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, TestClock } from "effect"
import { ClusterRoleBindings, Nodes, Pods, RoleBindings, SelfSubjectAccessReviews, SelfSubjectReviews, ServiceAccounts } from "../../src/api/Resources.js"
import { authServer, identityTransports, type Identity } from "../support/identities.js"
import { serverAnswer } from "../support/serverAnswer.js"

const admin: Identity = { user: "admin", groups: ["system:masters"] }
const tokens = new Map([["tok-alice", { name: "alice", uid: "u-1", groups: ["devs"] }]])
const unauthorized = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 }

const groupBinding = (name: string, group: string, clusterRole: string) => ({
  metadata: { name },
  roleRef: { apiGroup: "rbac.authorization.platform", kind: "ClusterRole", name: clusterRole },
  subjects: [{ kind: "Group", name: group }]
})

describe.each(identityTransports)("authentication over %s", (transport) => {
  const rbac = (anonymous = true) => authServer(transport, { authorizationMode: "RBAC", authentication: { anonymous, tokens } })

  it.scoped("a static token authenticates as its user and groups, plus system:authenticated", () =>
    Effect.gen(function* () {
      const s = yield* rbac()
      const root = yield* s.clientAs(admin)
      yield* root.create(RoleBindings, groupBinding("devs-view", "devs", "view"), { namespace: "default" })
      const alice = yield* s.clientAs({ token: "tok-alice" })
      const pods = yield* alice.list(Pods, { namespace: "default" })
      expect(pods.items).toEqual([])
      const denied = yield* serverAnswer(alice.list(Pods, { namespace: "platform-system" }))
      expect(denied.status).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "platform-system"',
        reason: "Forbidden",
        details: { kind: "pods" },
        code: 403
      })
      // system:basic-user is bound to system:authenticated: alice may ask about herself.
      const review = yield* alice.create(SelfSubjectAccessReviews, {
        spec: { resourceAttributes: { verb: "get", resource: "pods", namespace: "default" } }
      })
      expect(review.object.status).toEqual({ allowed: true, reason: 'RBAC: allowed by RoleBinding "devs-view/default" of ClusterRole "view" to Group "devs"' })
    }))

  it.scoped("an unknown bearer token is 401 even with anonymous on", () =>
    Effect.gen(function* () {
      const s = yield* rbac(true)
      const stranger = yield* s.clientAs({ token: "nope" })
      const err = yield* serverAnswer(stranger.list(Pods, { namespace: "default" }))
      expect(err.status).toEqual(unauthorized)
    }))

  it.scoped("anonymous on: system:anonymous is authorized like any user (403); off: 401", () =>
    Effect.gen(function* () {
      const open = yield* rbac(true)
      const anon = yield* open.clientAs("anonymous")
      const forbidden = yield* serverAnswer(anon.get(Nodes, "n1"))
      expect(forbidden.status.message).toBe('nodes "n1" is forbidden: User "system:anonymous" cannot get resource "nodes" in API group "" at the cluster scope')
      expect(forbidden.status.details).toEqual({ name: "n1", kind: "nodes" })
      const closed = yield* rbac(false)
      const nobody = yield* closed.clientAs("anonymous")
      expect((yield* serverAnswer(nobody.get(Nodes, "n1"))).status).toEqual(unauthorized)
    }))

  it.scoped("a client certificate: user = CN, groups = O", () =>
    Effect.gen(function* () {
      const s = yield* rbac(false)
      const root = yield* s.clientAs(admin)
      yield* root.create(ClusterRoleBindings, groupBinding("ops-view-nodes", "ops", "system:node"))
      const carol = yield* s.clientAs({ user: "carol", groups: ["ops"] })
      expect((yield* carol.list(Nodes)).items).toEqual([])
      const denied = yield* serverAnswer(carol.delete(Nodes, "n1"))
      expect(denied.status.message).toBe('nodes "n1" is forbidden: User "carol" cannot delete resource "nodes" in API group "" at the cluster scope')
    }))

  it.scoped("service-account tokens: issued by TokenRequest, refused once expired in server time or when the account is gone", () =>
    Effect.gen(function* () {
      const s = yield* rbac(false)
      const root = yield* s.clientAs(admin)
      yield* root.create(ServiceAccounts, { metadata: { name: "robot" } }, { namespace: "default" })
      const tooShort = yield* serverAnswer(root.create(ServiceAccounts, { metadata: { name: "robot" }, spec: { expirationSeconds: 599 } }, { namespace: "default", subresource: "token" }))
      expect(tooShort.status.code).toBe(422)
      expect(tooShort.status.message).toBe('TokenRequest.authentication.platform "" is invalid: spec.expirationSeconds: Invalid value: 599: may not specify a duration less than 10 minutes')
      const token = (spec: object) => serverAnswer(root.create(ServiceAccounts, { metadata: { name: "robot" }, spec }, { namespace: "default", subresource: "token" }))
      // ValidateTokenRequest: more than 1<<32 seconds is refused, 1<<32 itself is not.
      const tooLong = yield* token({ expirationSeconds: 8589934592 })
      expect([tooLong.status.code, tooLong.status.message]).toEqual([
        422,
        'TokenRequest.authentication.platform "" is invalid: spec.expirationSeconds: Invalid value: 8589934592: may not specify a duration larger than 2^32 seconds'
      ])
      expect((yield* root.create(ServiceAccounts, { metadata: { name: "robot" }, spec: { expirationSeconds: 4294967296 } }, { namespace: "default", subresource: "token" })).code).toBe(201)
      // A string is the decoder's 400, not the default duration.
      const asString = yield* token({ expirationSeconds: "600" })
      expect([asString.status.code, asString.status.message]).toEqual([
        400,
        'TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal string into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64'
      ])
      const huge = yield* token({ expirationSeconds: 1e22 })
      expect(huge.status.message).toBe('TokenRequest in version "v1" cannot be handled as a TokenRequest: json: cannot unmarshal number 1e22 into Go struct field TokenRequestSpec.spec.expirationSeconds of type int64')
      const issued = yield* root.create(ServiceAccounts, { metadata: { name: "robot" }, spec: { expirationSeconds: 600 } }, { namespace: "default", subresource: "token" })
      expect(issued.code).toBe(201)
      const status = issued.object.status as { token: string; expirationTimestamp: string }
      expect(status.expirationTimestamp).toBe("1970-01-01T00:10:00Z")
      const robot = yield* s.clientAs({ token: status.token })
      const denied = yield* serverAnswer(robot.list(Pods, { namespace: "default" }))
      expect(denied.status.message).toBe('pods is forbidden: User "system:serviceaccount:default:robot" cannot list resource "pods" in API group "" in the namespace "default"')
      yield* root.create(RoleBindings, groupBinding("sa-view", "system:serviceaccounts:default", "view"), { namespace: "default" })
      expect((yield* robot.list(Pods, { namespace: "default" })).items).toEqual([])
      // go-jose's minute of leeway after exp, then 401.
      yield* TestClock.adjust("660 seconds")
      expect((yield* robot.list(Pods, { namespace: "default" })).items).toEqual([])
      yield* TestClock.adjust("2 seconds")
      expect((yield* serverAnswer(robot.list(Pods, { namespace: "default" }))).status).toEqual(unauthorized)
      const fresh = yield* root.create(ServiceAccounts, { metadata: { name: "robot" } }, { namespace: "default", subresource: "token" })
      const again = yield* s.clientAs({ token: (fresh.object.status as { token: string }).token })
      expect((yield* again.list(Pods, { namespace: "default" })).items).toEqual([])
      yield* root.delete(ServiceAccounts, "robot", { namespace: "default" })
      expect((yield* serverAnswer(again.list(Pods, { namespace: "default" }))).status).toEqual(unauthorized)
    }))

  it.scoped("a token bound to a pod (TokenRequest boundObjectRef): the pod named as the user's extras, refused once the pod is gone", () =>
    Effect.gen(function* () {
      const s = yield* rbac(false)
      const root = yield* s.clientAs(admin)
      yield* root.create(ServiceAccounts, { metadata: { name: "robot" } }, { namespace: "default" })
      yield* root.create(RoleBindings, groupBinding("sa-view", "system:serviceaccounts:default", "view"), { namespace: "default" })
      const pod = (name: string, serviceAccountName = "robot") => ({ metadata: { name }, spec: { serviceAccountName, containers: [{ name: "c", image: "i" }] } })
      const a = (yield* root.create(Pods, pod("robot-a"), { namespace: "default" })).object
      yield* root.create(Pods, pod("other", "default"), { namespace: "default" })
      const request = (ref: Record<string, unknown>) =>
        root.create(ServiceAccounts, { metadata: { name: "robot" }, spec: { boundObjectRef: ref } }, { namespace: "default", subresource: "token" })
      const refused = (ref: Record<string, unknown>) => Effect.map(serverAnswer(request(ref)), (a) => [a.status.code, a.status.reason, a.status.message])
      expect(yield* refused({ kind: "ConfigMap", apiVersion: "v1", name: "x" })).toEqual([400, "BadRequest", "cannot bind token to object of type /v1, Kind=ConfigMap"])
      expect(yield* refused({ kind: "Pod", apiVersion: "v1", name: "gone" })).toEqual([404, "NotFound", 'pods "gone" not found'])
      expect(yield* refused({ kind: "Pod", apiVersion: "v1", name: "other" })).toEqual([
        400,
        "BadRequest",
        'cannot bind token for serviceaccount "robot" to pod running with different serviceaccount name.'
      ])
      expect(yield* refused({ kind: "Pod", apiVersion: "v1", name: "robot-a", uid: "not-its-uid" })).toEqual([
        409,
        "Conflict",
        'Operation cannot be fulfilled on Pod "robot-a": the UID in the bound object reference (not-its-uid) does not match the UID in record. The object might have been deleted and then recreated'
      ])
      const ref = { kind: "Pod", apiVersion: "v1", name: "robot-a", uid: a.metadata.uid }
      const issued = yield* request(ref)
      expect((issued.object.spec as { boundObjectRef: unknown }).boundObjectRef).toEqual(ref)
      const robot = yield* s.clientAs({ token: (issued.object.status as { token: string }).token })
      const review = yield* robot.create(SelfSubjectReviews, {})
      expect((review.object.status as { userInfo: unknown }).userInfo).toEqual({
        username: "system:serviceaccount:default:robot",
        uid: (yield* root.get(ServiceAccounts, "robot", { namespace: "default" })).metadata.uid,
        groups: ["system:serviceaccounts", "system:serviceaccounts:default", "system:authenticated"],
        extra: { "authentication.platform.io/pod-name": ["robot-a"], "authentication.platform.io/pod-uid": [a.metadata.uid] }
      })
      expect((yield* robot.list(Pods, { namespace: "default" })).items.length).toBe(2)
      // the pod deleted (unscheduled: at once) and made again under the same name: the token stays dead
      yield* root.delete(Pods, "robot-a", { namespace: "default" })
      expect((yield* serverAnswer(robot.list(Pods, { namespace: "default" }))).status).toEqual(unauthorized)
      yield* root.create(Pods, pod("robot-a"), { namespace: "default" })
      expect((yield* serverAnswer(robot.list(Pods, { namespace: "default" }))).status).toEqual(unauthorized)
    }))
})

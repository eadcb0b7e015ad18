/**
 * Impersonation headers as attacks (issue 36): each thing asked for — user, groups, extras, uid — needs its own
 * `impersonate` permission, as upstream's impersonation filter; the refused request does nothing, and the server
 * answers on.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "undici"
import { httpServer } from "../support/transports.js"

const tokens = new Map([
  ["tok-root", { name: "root", uid: "0", groups: ["system:masters"] }],
  ["tok-alice", { name: "alice", uid: "1", groups: [] as string[] }],
  ["tok-imp", { name: "imp", uid: "2", groups: [] as string[] }],
  ["tok-imp2", { name: "imp2", uid: "3", groups: [] as string[] }]
])

const json = { "content-type": "application/json" }
const auth = "authentication.platform"

interface Reply {
  readonly code: number
  readonly json: any
  readonly text: string
}

const cluster = Effect.gen(function* () {
  const base = yield* httpServer({ authorizationMode: "RBAC", authentication: { anonymous: true, tokens } })
  const send = (token: string, method: string, path: string, headers: Record<string, string | string[]> = {}, body?: unknown) =>
    Effect.promise(async (): Promise<Reply> => {
      const res = await request(base + path, {
        method: method as "GET",
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : json), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) })
      })
      const text = await res.body.text()
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        parsed = undefined
      }
      return { code: res.statusCode, json: parsed, text }
    })
  const root = (method: string, path: string, body?: unknown) => send("tok-root", method, path, {}, body)
  const created = (r: Reply) => expect(r.code, r.text).toBe(201)
  const clusterRole = (name: string, rules: ReadonlyArray<object>) => ({ metadata: { name }, rules })
  const bindTo = (name: string, role: string, user: string, kind = "ClusterRole") => ({
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind, name: role },
    subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name: user }]
  })
  const rbac = "/apis/rbac.authorization.k8s.io/v1"
  created(yield* root("POST", `${rbac}/clusterroles`, clusterRole("as-bob", [{ verbs: ["impersonate"], apiGroups: [""], resources: ["users"], resourceNames: ["bob"] }])))
  created(yield* root("POST", `${rbac}/clusterrolebindings`, bindTo("imp-as-bob", "as-bob", "imp")))
  created(
    yield* root(
      "POST",
      `${rbac}/clusterroles`,
      clusterRole("as-bob-fully", [
        { verbs: ["impersonate"], apiGroups: [""], resources: ["users"], resourceNames: ["bob"] },
        { verbs: ["impersonate"], apiGroups: ["authentication.k8s.io"], resources: ["uids"], resourceNames: ["u-7"] },
        { verbs: ["impersonate"], apiGroups: ["authentication.k8s.io"], resources: ["userextras/scopes"], resourceNames: ["read"] }
      ])
    )
  )
  created(yield* root("POST", `${rbac}/clusterrolebindings`, bindTo("imp2-as-bob", "as-bob-fully", "imp2")))
  created(yield* root("POST", `${rbac}/namespaces/default/rolebindings`, bindTo("bob-view", "view", "bob")))
  /**
   * The server answers /healthz within 100 ms: the attack left it serving. Best of three tries, so a loaded test
   * machine's pause is not taken for a wedged server (which would miss all three).
   */
  const alive = Effect.gen(function* () {
    let fastest = Number.POSITIVE_INFINITY
    for (let i = 0; i < 3 && fastest >= 100; i++) {
      const started = performance.now()
      expect((yield* root("GET", "/healthz")).text).toBe("ok")
      fastest = Math.min(fastest, performance.now() - started)
    }
    expect(fastest).toBeLessThan(100)
  })
  const clusterRoleBindings = Effect.map(root("GET", `${rbac}/clusterrolebindings`), (r) => r.json.items.map((b: { metadata: { name: string } }) => b.metadata.name).sort())
  return { send, root, alive, clusterRoleBindings, bindTo, rbac }
})

/** A 403 as upstream's `NewForbidden` (an empty group is omitted from the details). */
const forbidden = (message: string, name: string, group: string, kind: string) => ({
  code: 403,
  reason: "Forbidden",
  message,
  details: { name, ...(group === "" ? {} : { group }), kind }
})
const statusOf = (r: Reply) => ({ code: r.code, reason: r.json?.reason, message: r.json?.message, details: r.json?.details })

describe("impersonation: every part asked for is authorized", () => {
  it.scoped("allowed to impersonate only bob, a user adds Impersonate-Uid: 403 on uids, nothing done", () =>
    Effect.gen(function* () {
      const { send, alive, clusterRoleBindings, bindTo, rbac } = yield* cluster
      expect((yield* send("tok-imp", "GET", "/api/v1/namespaces/default/pods", { "impersonate-user": "bob" })).code).toBe(200)
      const before = yield* clusterRoleBindings
      const uid = yield* send("tok-imp", "POST", `${rbac}/clusterrolebindings`, { "impersonate-user": "bob", "impersonate-uid": "u-1" }, bindTo("x", "cluster-admin", "imp"))
      expect(statusOf(uid)).toEqual(
        forbidden(`uids.${auth} "u-1" is forbidden: User "imp" cannot impersonate resource "uids" in API group "${auth}" at the cluster scope`, "u-1", auth, "uids")
      )
      expect(yield* clusterRoleBindings).toEqual(before)
      yield* alive
    }))

  it.scoped("allowed to impersonate only bob, a user adds Impersonate-Extra-Scopes: 403 on userextras/scopes", () =>
    Effect.gen(function* () {
      const { send, alive } = yield* cluster
      const extra = yield* send("tok-imp", "GET", "/api/v1/namespaces/default/pods", { "impersonate-user": "bob", "impersonate-extra-scopes": "write" })
      expect(statusOf(extra)).toEqual(
        forbidden(
          `userextras.${auth} "write" is forbidden: User "imp" cannot impersonate resource "userextras/scopes" in API group "${auth}" at the cluster scope`,
          "write",
          auth,
          "userextras"
        )
      )
      // The key is lower-cased and %-unescaped before it is authorized.
      const encoded = yield* send("tok-imp", "GET", "/api/v1/namespaces/default/pods", { "impersonate-user": "bob", "Impersonate-Extra-Example.org%2FScope": "x" })
      expect(encoded.json.message).toBe(`userextras.${auth} "x" is forbidden: User "imp" cannot impersonate resource "userextras/example.org/scope" in API group "${auth}" at the cluster scope`)
      yield* alive
    }))

  it.scoped("allowed to impersonate only bob, a user adds system:masters as a group: 403 on groups, no binding created", () =>
    Effect.gen(function* () {
      const { send, alive, clusterRoleBindings, bindTo, rbac } = yield* cluster
      const before = yield* clusterRoleBindings
      const masters = yield* send("tok-imp", "POST", `${rbac}/clusterrolebindings`, { "impersonate-user": "bob", "impersonate-group": "system:masters" }, bindTo("x", "cluster-admin", "imp"))
      expect(statusOf(masters)).toEqual(
        forbidden('groups "system:masters" is forbidden: User "imp" cannot impersonate resource "groups" in API group "" at the cluster scope', "system:masters", "", "groups")
      )
      expect(yield* clusterRoleBindings).toEqual(before)
      yield* alive
    }))

  it.scoped("service accounts are authorized in their namespace; a name that is not a valid account is a user", () =>
    Effect.gen(function* () {
      const { send } = yield* cluster
      const sa = yield* send("tok-imp", "GET", "/api/v1/namespaces/default/pods", { "impersonate-user": "system:serviceaccount:kube:builder" })
      expect(statusOf(sa)).toEqual(
        forbidden('serviceaccounts "builder" is forbidden: User "imp" cannot impersonate resource "serviceaccounts" in API group "" in the namespace "kube"', "builder", "", "serviceaccounts")
      )
      const invalid = yield* send("tok-imp", "GET", "/api/v1/namespaces/default/pods", { "impersonate-user": "system:serviceaccount:Kube:builder" })
      expect(invalid.json.message).toBe('users "system:serviceaccount:Kube:builder" is forbidden: User "imp" cannot impersonate resource "users" in API group "" at the cluster scope')
    }))

  it.scoped("each part allowed: the request runs as the impersonated user", () =>
    Effect.gen(function* () {
      const { send } = yield* cluster
      const full = yield* send("tok-imp2", "GET", "/api/v1/namespaces/default/pods", { "impersonate-user": "bob", "impersonate-uid": "u-7", "impersonate-extra-scopes": "read" })
      expect(full.code, full.text).toBe(200)
      const asBob = yield* send("tok-imp2", "GET", "/api/v1/namespaces/kube-system/pods", { "impersonate-user": "bob", "impersonate-uid": "u-7" })
      expect(asBob.json.message).toBe('pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "kube-system"')
    }))
})

describe("impersonation: headers that ask for nothing, or for parts without a user", () => {
  it.scoped("an empty Impersonate-User (or Impersonate-Uid) impersonates nobody: the request runs as the requester", () =>
    Effect.gen(function* () {
      const { send } = yield* cluster
      expect((yield* send("tok-root", "GET", "/api/v1/namespaces/default/pods", { "impersonate-user": "" })).code).toBe(200)
      const alice = yield* send("tok-alice", "GET", "/api/v1/namespaces/default/pods", { "impersonate-user": "", "impersonate-uid": "" })
      expect(alice.json.message).toBe('pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"')
    }))

  it.scoped("groups, a uid or extras without a user: 400 listing what was asked for, as Go prints object references", () =>
    Effect.gen(function* () {
      const { send, alive } = yield* cluster
      const groups = yield* send("tok-root", "GET", "/api/v1/pods", { "impersonate-group": ["devs", "system:masters"] })
      expect(statusOf(groups)).toEqual({ code: 400, reason: "BadRequest", message: "requested [{Group  devs    } {Group  system:masters    }] without impersonating a user", details: undefined })
      const uid = yield* send("tok-root", "GET", "/api/v1/pods", { "impersonate-user": "", "impersonate-uid": "u-1" })
      expect(uid.json.message).toBe(`requested [{UID  u-1  ${auth}/v1  }] without impersonating a user`)
      const extra = yield* send("tok-alice", "GET", "/api/v1/pods", { "impersonate-extra-scopes": "read" })
      expect(extra.json.message).toBe(`requested [{UserExtra  read  ${auth}/v1  scopes}] without impersonating a user`)
      yield* alive
    }))

  it.scoped("impersonating system:anonymous adds system:unauthenticated, so what everyone may read it may", () =>
    Effect.gen(function* () {
      const { send } = yield* cluster
      expect((yield* send("tok-root", "GET", "/version", { "impersonate-user": "system:anonymous" })).code).toBe(200)
      const apis = yield* send("tok-root", "GET", "/apis", { "impersonate-user": "system:anonymous" })
      expect(apis.json.message).toBe('forbidden: User "system:anonymous" cannot get path "/apis"')
    }))
})

/**
 * Text from clients in answers (docs/security.md "Text from clients"): names, namespaces, paths and users in
 * error messages are quoted as Go's `%q` quotes them (apimachinery `pkg/api/errors/errors.go`, the apiserver's
 * `forbiddenMessage`), so a newline or a bidirectional override cannot forge a line or reorder a message; and
 * header values are the UTF-8 text their bytes spell, as Go reads them (`Impersonate-User: josé` is `josé`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { httpServer } from "../support/transports.js"
import { send } from "../support/wire.js"

const tokens = new Map([
  ["tok-root", { name: "root", uid: "0", groups: ["system:masters"] }],
  ["tok-alice", { name: "alice", uid: "1", groups: ["devs"] }]
])
const json = { "content-type": "application/json" }
/** How a Go client (kubectl) puts text in a header: its UTF-8 bytes, which undici sends one byte per UTF-16 unit. */
const goHeader = (text: string) => Buffer.from(text, "utf8").toString("latin1")

describe("client text in error messages is quoted as Go's %q", () => {
  it.scoped("404 and 422 name the object in Go's quoting; plain names are as before", () =>
    Effect.gen(function* () {
      const url = yield* httpServer()
      const missing = yield* send(url, "GET", "/api/v1/namespaces/default/configmaps/a%0Ab%E2%80%AE")
      expect([missing.code, missing.json.reason, missing.json.message]).toEqual([404, "NotFound", 'configmaps "a\\nb\\u202e" not found'])
      expect(missing.json.details).toEqual({ name: "a\nb\u202e", kind: "configmaps" })
      const plain = yield* send(url, "GET", "/api/v1/namespaces/default/configmaps/x")
      expect(plain.json.message).toBe('configmaps "x" not found')
      const quoted = yield* send(url, "GET", '/api/v1/namespaces/default/configmaps/say%22hi%22%5C')
      expect(quoted.json.message).toBe('configmaps "say\\"hi\\"\\\\" not found')
      const invalid = yield* send(url, "POST", "/api/v1/namespaces/default/configmaps", { headers: json, body: JSON.stringify({ metadata: { name: "a\u202eb" } }) })
      expect([invalid.code, invalid.json.reason]).toEqual([422, "Invalid"])
      expect(invalid.json.message).toMatch(/^ConfigMap "a\\u202eb" is invalid: metadata\.name: Invalid value: "a\\u202eb": /)
      expect(invalid.json.details.name).toBe("a\u202eb")
    }))

  it.scoped("403: the namespace and the non-resource path of the refused request are quoted", () =>
    Effect.gen(function* () {
      const url = yield* httpServer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens } })
      const alice = { authorization: "Bearer tok-alice" }
      const inNamespace = yield* send(url, "GET", "/api/v1/namespaces/te%0Aam/pods", { headers: alice })
      expect([inNamespace.code, inNamespace.json.message]).toEqual([
        403,
        'pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "te\\nam"'
      ])
      const path = yield* send(url, "GET", "/foo%0Abar", { headers: alice })
      expect([path.code, path.json.message]).toEqual([403, 'forbidden: User "alice" cannot get path "/foo\\nbar"'])
    }))
})

describe("header values are UTF-8 text, as Go reads them", () => {
  it.scoped("Impersonate-User, Impersonate-Group and Impersonate-Extra-*: josé is josé", () =>
    Effect.gen(function* () {
      const url = yield* httpServer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens } })
      const asJose = { authorization: "Bearer tok-root", "impersonate-user": goHeader("josé") }
      const denied = yield* send(url, "GET", "/api/v1/namespaces/team/pods", { headers: asJose })
      expect([denied.code, denied.json.message]).toEqual([403, 'pods is forbidden: User "josé" cannot list resource "pods" in API group "" in the namespace "team"'])
      const review = yield* send(url, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
        headers: { ...asJose, ...json, "impersonate-group": goHeader("équipe"), "impersonate-extra-scopes": goHeader("lecture-für-alle") },
        body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" })
      })
      expect(review.code, review.text).toBe(201)
      expect(review.json.status.userInfo).toEqual({ username: "josé", groups: ["équipe", "system:authenticated"], extra: { scopes: ["lecture-für-alle"] } })
    }))

  it.scoped("User-Agent: the field manager named after it is the text the client sent", () =>
    Effect.gen(function* () {
      const url = yield* httpServer()
      const created = yield* send(url, "POST", "/api/v1/namespaces/default/configmaps", {
        headers: { ...json, "user-agent": goHeader("outil-été/1.0 (linux/amd64)") },
        body: JSON.stringify({ metadata: { name: "agent" }, data: { a: "1" } })
      })
      expect(created.code, created.text).toBe(201)
      expect(created.json.metadata.managedFields[0].manager).toBe("outil-été")
    }))
})

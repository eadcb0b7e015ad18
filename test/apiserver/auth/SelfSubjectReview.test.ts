/**
 * `kubectl auth whoami` (issue 40): a SelfSubjectReview in the three versions kubectl 1.27–1.33 ask for answers
 * 201 with the caller's user info, in JSON and in protobuf (kubectl 1.33 posts protobuf), as upstream's
 * `registry/authentication/selfsubjectreview/rest.go`; every authenticated user may ask (`system:basic-user`).
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { request } from "undici"
import { decodeObject, encodeObject } from "../../../src/api/protobuf/Envelope.js"
import { httpServer } from "../../support/transports.js"

const tokens = new Map([
  ["tok-alice", { name: "alice", uid: "u-1", groups: ["devs"] }],
  ["tok-root", { name: "root", uid: "0", groups: ["system:masters"] }]
])

const server = httpServer({ authorizationMode: "RBAC", authentication: { anonymous: false, tokens } })

const post = (base: string, path: string, headers: Record<string, string>, body: string | Uint8Array) =>
  Effect.promise(async () => {
    const res = await request(base + path, { method: "POST", headers, body })
    const bytes = new Uint8Array(await res.body.arrayBuffer())
    return { code: res.statusCode, contentType: String(res.headers["content-type"]), bytes, text: Buffer.from(bytes).toString() }
  })

const review = (version: string) => ({ kind: "SelfSubjectReview", apiVersion: `authentication.k8s.io/${version}`, metadata: { creationTimestamp: null }, status: { userInfo: {} } })
const json = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json", accept: "application/json" })

describe("SelfSubjectReview (kubectl auth whoami)", () => {
  it.scoped("v1, v1beta1 and v1alpha1 answer 201 with the caller's name, uid and groups, in the version asked", () =>
    Effect.gen(function* () {
      const base = yield* server
      for (const version of ["v1", "v1beta1", "v1alpha1"]) {
        const answer = yield* post(base, `/apis/authentication.k8s.io/${version}/selfsubjectreviews`, json("tok-alice"), JSON.stringify(review(version)))
        expect(answer.code).toBe(201)
        const body = JSON.parse(answer.text)
        expect(body.kind).toBe("SelfSubjectReview")
        expect(body.apiVersion).toBe(`authentication.k8s.io/${version}`)
        expect(body.metadata.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/)
        expect(body.status).toEqual({ userInfo: { username: "alice", uid: "u-1", groups: ["devs", "system:authenticated"] } })
      }
      // This API's own name answers too.
      const own = yield* post(base, "/apis/authentication.platform/v1/selfsubjectreviews", json("tok-alice"), JSON.stringify({ ...review("v1"), apiVersion: "authentication.platform/v1" }))
      expect(JSON.parse(own.text)).toMatchObject({ apiVersion: "authentication.platform/v1", status: { userInfo: { username: "alice" } } })
    }))

  it.scoped("kubectl 1.33's protobuf request gets a protobuf answer", () =>
    Effect.gen(function* () {
      const base = yield* server
      const body = Either.getOrThrow(encodeObject({ ...review("v1"), status: {} }))
      const answer = yield* post(base, "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
        authorization: "Bearer tok-alice",
        "content-type": "application/vnd.kubernetes.protobuf",
        accept: "application/vnd.kubernetes.protobuf, */*"
      }, body)
      expect(answer.code).toBe(201)
      expect(answer.contentType).toBe("application/vnd.kubernetes.protobuf")
      const decoded = Either.getOrThrow(decodeObject(answer.bytes))
      expect(decoded.kind).toBe("SelfSubjectReview")
      expect(decoded.object.status).toEqual({ userInfo: { username: "alice", uid: "u-1", groups: ["devs", "system:authenticated"] } })
    }))

  it.scoped("an impersonated user with extras is answered as that user, extras included (JSON: protobuf has no lossless form)", () =>
    Effect.gen(function* () {
      const base = yield* server
      const answer = yield* post(base, "/apis/authentication.k8s.io/v1/selfsubjectreviews", {
        authorization: "Bearer tok-root",
        "impersonate-user": "bob",
        "impersonate-group": "team-a",
        "impersonate-extra-scopes": "read",
        "content-type": "application/json",
        accept: "application/vnd.kubernetes.protobuf, */*"
      }, JSON.stringify(review("v1")))
      expect(answer.code).toBe(201)
      expect(answer.contentType).toBe("application/json")
      expect(JSON.parse(answer.text).status.userInfo).toEqual({ username: "bob", groups: ["team-a", "system:authenticated"], extra: { scopes: ["read"] } })
    }))

  it.scoped("only create: a GET of the collection is 403 for who may only create, 405 for who may do anything", () =>
    Effect.gen(function* () {
      const base = yield* server
      for (const [token, code] of [["tok-alice", 403], ["tok-root", 405]] as const) {
        const res = yield* Effect.promise(() => request(base + "/apis/authentication.k8s.io/v1/selfsubjectreviews", { headers: { authorization: `Bearer ${token}` } }))
        expect(res.statusCode).toBe(code)
        yield* Effect.promise(() => res.body.text())
      }
    }))
})

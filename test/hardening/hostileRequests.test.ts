/**
 * Requests that once killed, wedged or corrupted the server (issue 14): each answered with a Status,
 * nothing stored that cannot be served back, and the server still answering afterwards.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import protobuf from "protobufjs"
import { httpServer } from "../support/transports.js"
import { send, type Reply } from "../support/wire.js"

const json = { "content-type": "application/json" }
const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64url")
const nestedArrays = (n: number) => "[".repeat(n) + "]".repeat(n)

const statusOf = (r: Reply) => ({ code: r.code, kind: r.json?.kind, reason: r.json?.reason, message: r.json?.message })

describe("hostile requests", () => {
  it.scoped("a continue token nesting [ 20,000 deep: 400 with encoding/json's max-depth text", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const reply = yield* send(base, "GET", `/api/v1/namespaces/default/configmaps?limit=1&continue=${b64(nestedArrays(20000))}`)
      expect(statusOf(reply)).toEqual({
        code: 400,
        kind: "Status",
        reason: "BadRequest",
        message: "invalid continue token: continue key is not valid: invalid character '[' exceeded max depth"
      })
      expect((yield* send(base, "GET", "/api/v1/namespaces/default")).code).toBe(200)
    }))

  it.scoped("a config map whose data nests arrays 4,500 deep: 400 as upstream's decoder, nothing stored", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const body = `{"metadata":{"name":"deep"},"data":{"a":${nestedArrays(4500)}}}`
      const reply = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { body, headers: json })
      expect(statusOf(reply)).toEqual({
        code: 400,
        kind: "Status",
        reason: "BadRequest",
        message: 'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal array into Go struct field ConfigMap.data of type string'
      })
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/configmaps/deep")).code).toBe(404)
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/configmaps")).json.items).toEqual([])
    }))

  it.scoped("a free-form field nesting past the body depth limit: 400 naming the limit, nothing stored", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      // headless: a valid Service without ports (ValidateService)
      const deep = (n: number) => `{"metadata":{"name":"deep"},"spec":{"clusterIP":"None","x":${nestedArrays(n)}}}`
      const refused = yield* send(base, "POST", "/api/v1/namespaces/default/services", { body: deep(5000), headers: json })
      expect(statusOf(refused)).toEqual({
        code: 400,
        kind: "Status",
        reason: "BadRequest",
        message: 'Service in version "v1" cannot be handled as a Service: exceeded max depth of 1000'
      })
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/services/deep")).code).toBe(404)
      // At the limit the object is stored and served back, alone and in a list.
      const stored = yield* send(base, "POST", "/api/v1/namespaces/default/services", { body: deep(997), headers: json })
      expect(stored.code).toBe(201)
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/services/deep")).code).toBe(200)
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/services")).json.items).toHaveLength(1)
      const patch = yield* send(base, "PATCH", "/api/v1/namespaces/default/services/deep", {
        body: `{"spec":{"y":${nestedArrays(5000)}}}`,
        headers: { "content-type": "application/merge-patch+json" }
      })
      expect(statusOf(patch)).toEqual({ code: 400, kind: "Status", reason: "BadRequest", message: "error decoding patch: exceeded max depth of 1000" })
    }))

  it.scoped("a protobuf envelope carrying deep raw JSON: the same 400, nothing stored", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const json = `{"metadata":{"name":"deep"},"spec":{"x":${nestedArrays(5000)}}}`
      // runtime.Unknown: raw (field 2) and contentType (field 4), after the k8s\0 magic.
      const unknown = protobuf.Writer.create().uint32((2 << 3) | 2).bytes(Buffer.from(json)).uint32((4 << 3) | 2).string("application/json").finish()
      const body = Buffer.concat([Buffer.from([0x6b, 0x38, 0x73, 0x00]), unknown])
      const reply = yield* send(base, "POST", "/api/v1/namespaces/default/services", { body, headers: { "content-type": "application/vnd.kubernetes.protobuf" } })
      expect(statusOf(reply)).toEqual({
        code: 400,
        kind: "Status",
        reason: "BadRequest",
        message: 'Service in version "v1" cannot be handled as a Service: exceeded max depth of 1000'
      })
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/services/deep")).code).toBe(404)
    }))

  it.scoped("wrong types in metadata are refused for every kind with upstream's texts; nothing is stored", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const cases: ReadonlyArray<readonly [string, string, string, string]> = [
        ["/api/v1/namespaces/default/configmaps", "ConfigMap", '"finalizers":5', "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.finalizers of type []string"],
        ["/api/v1/namespaces/default/pods", "Pod", '"ownerReferences":{}', "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference"],
        ["/api/v1/namespaces/default/services", "Service", '"generateName":5', "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.generateName of type string"],
        ["/apis/apps/v1/namespaces/default/deployments", "Deployment", '"labels":{"a":1}', "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"],
        ["/api/v1/nodes", "Node", '"annotations":[]', "json: cannot unmarshal array into Go struct field ObjectMeta.metadata.annotations of type map[string]string"],
        ["/api/v1/namespaces", "Namespace", '"uid":{}', "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.uid of type types.UID"],
        ["/api/v1/namespaces/default/pods", "Pod", '"ownerReferences":[{"controller":"yes"}]', "json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool"],
        ["/api/v1/namespaces/default/configmaps", "ConfigMap", '"creationTimestamp":7', "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"],
        ["/api/v1/namespaces/default/configmaps", "ConfigMap", '"managedFields":{}', "json: cannot unmarshal object into Go struct field ObjectMeta.metadata.managedFields of type []v1.ManagedFieldsEntry"]
      ]
      for (const [path, kind, field, detail] of cases) {
        const reply = yield* send(base, "POST", path, { body: `{"metadata":{"name":"typed",${field}}}`, headers: json })
        expect(statusOf(reply)).toEqual({ code: 400, kind: "Status", reason: "BadRequest", message: `${kind} in version "v1" cannot be handled as a ${kind}: ${detail}` })
        expect((yield* send(base, "GET", `${path}/typed`)).code).toBe(404)
      }
      // A well-typed object of the same kinds still goes in and comes out, and DELETE answers 200.
      const ok = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", {
        body: '{"metadata":{"name":"ok","finalizers":["a/b"],"labels":{"a":"b"}},"data":{"k":"v"}}',
        headers: json
      })
      expect(ok.code).toBe(201)
      const deleted = yield* send(base, "DELETE", "/api/v1/namespaces/default/configmaps/ok")
      expect(deleted.code).toBe(200)
    }))

  it.scoped("an unknown field with non-Latin-1 characters: the object's answer, the warning quoted as Go's strconv.Quote", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const body = JSON.stringify({ metadata: { name: "l" }, spec: { "名前": 1, "tab\there": 2 } })
      const reply = yield* send(base, "POST", "/apis/coordination.platform/v1/namespaces/default/leases", { body, headers: json })
      expect(reply.code).toBe(201)
      expect(reply.json.kind).toBe("Lease")
      // The header's bytes are UTF-8 on the wire, as Go writes them; undici reads them as Latin-1.
      const warnings = ([] as string[]).concat(reply.headers.warning ?? []).map((w) => Buffer.from(w, "latin1").toString("utf8"))
      expect(warnings).toEqual(['299 - "unknown field \\"spec.名前\\""', '299 - "unknown field \\"spec.tab\\\\there\\""'])
      expect((yield* send(base, "GET", "/apis/coordination.platform/v1/namespaces/default/leases/l")).code).toBe(200)
    }))
  it.scoped("a field name carrying CR LF, a bell and a no-break space: quoted as Go's %q in the Warning and the Strict 400, no header injected", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const path = "/api/v1/namespaces/default/configmaps"
      const key = "x\r\nX-Injected: 1\u0007\u00a0"
      const quoted = String.raw`"x\r\nX-Injected: 1\a\u00a0"`
      const warned = yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "a" }, data: { k: "v" }, [key]: 1 }), headers: json })
      expect(warned.code).toBe(201)
      expect(warned.headers["x-injected"]).toBeUndefined()
      expect(warned.headers.warning).toBe(`299 - "unknown field ${quoted.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`)
      const strict = yield* send(base, "POST", `${path}?fieldValidation=Strict`, { body: JSON.stringify({ metadata: { name: "b" }, [key]: 1 }), headers: json })
      expect(statusOf(strict)).toEqual({
        code: 400,
        kind: "Status",
        reason: "BadRequest",
        message: `ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field ${quoted}`
      })
      // Alive and unchanged: nothing of b stored, a as it was written.
      const started = performance.now()
      expect((yield* send(base, "GET", "/healthz")).code).toBe(200)
      expect(performance.now() - started).toBeLessThan(100)
      expect((yield* send(base, "GET", `${path}/b`)).code).toBe(404)
      const a = yield* send(base, "GET", `${path}/a`)
      expect({ code: a.code, data: a.json.data, resourceVersion: a.json.metadata.resourceVersion }).toEqual({
        code: 200,
        data: { k: "v" },
        resourceVersion: warned.json.metadata.resourceVersion
      })
    }))
})

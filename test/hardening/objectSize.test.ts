/**
 * Objects stay bounded (issue 36): YAML aliases cannot blow an apply or a YAML POST up past the request size limit, and a
 * config map holds at most 1 MiB of values, by every write — each refused with upstream's text, nothing stored,
 * and every later list of the kind still answers.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { httpServer } from "../support/transports.js"
import { send } from "../support/wire.js"
import { healthz, statusOf } from "./liveness.js"

const json = { "content-type": "application/json" }
const applyYaml = { "content-type": "application/apply-patch+yaml" }
const path = "/api/v1/namespaces/default/configmaps"
const tooBig = 'is invalid: []: Too long: must have at most 1048576 bytes'

/** The server answers a list of config maps and `/healthz` at once. */
const stillServing = (base: string) =>
  Effect.gen(function* () {
    const list = yield* send(base, "GET", path)
    expect(list.code).toBe(200)
    expect(yield* healthz(base)).toEqual({ code: 200, fast: true })
    return list.json.items as ReadonlyArray<any>
  })

describe("YAML aliases in server-side apply", () => {
  it.scoped("one 2.9 MB anchor aliased 99 times: 400 'excessive aliasing', nothing stored, lists still answer", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const aliases = Array.from({ length: 99 }, (_, i) => `  k${i + 1}: *big\n`).join("")
      const body = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bomb\ndata:\n  k0: &big "${"x".repeat(2_900_000)}"\n${aliases}`
      for (let i = 0; i < 2; i++) {
        const reply = yield* send(base, "PATCH", `${path}/bomb?fieldManager=attacker`, { body, headers: applyYaml })
        expect(statusOf(reply)).toEqual({
          code: 400,
          kind: "Status",
          reason: "BadRequest",
          message: "error decoding YAML: error converting YAML to JSON: yaml: document contains excessive aliasing"
        })
      }
      expect((yield* send(base, "GET", `${path}/bomb`)).code).toBe(404)
      expect(yield* stillServing(base)).toEqual([])
    }))

  it.scoped("nested anchors (a billion laughs) are refused the same way, without expanding them", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      let levels = `  l0: &l0 ["${"x".repeat(10)}"]\n`
      for (let i = 1; i < 30; i++) levels += `  l${i}: &l${i} [*l${i - 1}, *l${i - 1}]\n`
      const body = `apiVersion: v1\nkind: Service\nmetadata:\n  name: laughs\nspec:\n  x:\n${levels}`
      const reply = yield* send(base, "PATCH", `/api/v1/namespaces/default/services/laughs?fieldManager=attacker`, { body, headers: applyYaml })
      expect(statusOf(reply).message).toBe("error decoding YAML: error converting YAML to JSON: yaml: document contains excessive aliasing")
      expect(reply.code).toBe(400)
      expect(yield* healthz(base)).toEqual({ code: 200, fast: true })
    }))

  it.scoped("an anchor holding an alias of itself: 400 with go-yaml's text, nothing stored", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const body = "apiVersion: v1\nkind: Service\nmetadata:\n  name: loop\nspec:\n  x: &x {y: *x}\n"
      const reply = yield* send(base, "PATCH", `/api/v1/namespaces/default/services/loop?fieldManager=attacker`, { body, headers: applyYaml })
      expect(statusOf(reply)).toEqual({
        code: 400,
        kind: "Status",
        reason: "BadRequest",
        message: "error decoding YAML: error converting YAML to JSON: yaml: anchor 'x' value contains itself"
      })
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/services/loop")).code).toBe(404)
      expect(yield* healthz(base)).toEqual({ code: 200, fast: true })
    }))

  it.scoped("POST and PUT take YAML through the same guards: the bomb is a 400, nothing stored; an ordinary document is written", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const yaml = { "content-type": "application/yaml" }
      const aliases = Array.from({ length: 99 }, (_, i) => `  k${i + 1}: *big\n`).join("")
      const bomb = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  k0: &big "${"x".repeat(2_900_000)}"\n${aliases}`
      for (const [method, at] of [["POST", path], ["PUT", `${path}/y`]] as const) {
        const reply = yield* send(base, method, at, { body: bomb, headers: yaml })
        expect(statusOf(reply)).toEqual({
          code: 400,
          kind: "Status",
          reason: "BadRequest",
          message: "error decoding YAML: error converting YAML to JSON: yaml: document contains excessive aliasing"
        })
      }
      expect((yield* send(base, "GET", `${path}/y`)).code).toBe(404)
      const body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y\ndata:\n  a: &v x\n  b: *v\n"
      const created = yield* send(base, "POST", path, { body, headers: yaml })
      expect([created.code, created.json.data]).toEqual([201, { a: "x", b: "x" }])
      const replaced = yield* send(base, "PUT", `${path}/y`, { body: body.replace("a: &v x", "a: &v z"), headers: yaml })
      expect([replaced.code, replaced.json.data]).toEqual([200, { a: "z", b: "z" }])
      const broken = yield* send(base, "POST", path, { body: "metadata: {name: [\n", headers: yaml })
      expect([broken.code, statusOf(broken).reason, statusOf(broken).message.startsWith("error decoding YAML: ")]).toEqual([400, "BadRequest", true])
      expect(yield* stillServing(base)).toHaveLength(1)
    }))

  it.scoped("ordinary anchors still apply: an anchored map used three times", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const body = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: anchors\n  labels: &l {app: web}\n  annotations: *l\ndata:\n  a: &v hello\n  b: *v\n"
      const reply = yield* send(base, "PATCH", `${path}/anchors?fieldManager=me`, { body, headers: applyYaml })
      expect(reply.code).toBe(201)
      expect(reply.json.metadata.labels).toEqual({ app: "web" })
      expect(reply.json.metadata.annotations).toEqual({ app: "web" })
      expect(reply.json.data).toEqual({ a: "hello", b: "hello" })
    }))
})

describe("config map size and keys (ValidateConfigMap)", () => {
  it.scoped("2 MB of data: 422 from POST, PUT, patch and apply; exactly 1 MiB is fine", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const big = "x".repeat(2_000_000)
      const post = yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "big" }, data: { k: big } }), headers: json })
      expect(statusOf(post)).toEqual({ code: 422, kind: "Status", reason: "Invalid", message: `ConfigMap "big" ${tooBig}` })
      expect(post.json.details.causes).toEqual([{ reason: "FieldValueTooLong", message: "Too long: must have at most 1048576 bytes", field: "[]" }])
      expect((yield* send(base, "GET", `${path}/big`)).code).toBe(404)

      // At the limit, counted over every key in bytes (a two-byte character counts twice).
      const half = "é".repeat(262_144)
      const atLimit = yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "cm" }, data: { a: half, b: half } }), headers: json })
      expect(atLimit.code).toBe(201)
      const stored = (yield* send(base, "GET", `${path}/cm`)).json

      const writes = [
        { method: "PUT", type: "application/json", body: { ...stored, data: { ...stored.data, c: "!" } } },
        { method: "PATCH", type: "application/merge-patch+json", body: { data: { c: big } } },
        { method: "PATCH", type: "application/strategic-merge-patch+json", body: { data: { c: "!" } } },
        { method: "PATCH", type: "application/json-patch+json", body: [{ op: "add", path: "/data/c", value: "!" }] }
      ]
      for (const write of writes) {
        const reply = yield* send(base, write.method, `${path}/cm`, { body: JSON.stringify(write.body), headers: { "content-type": write.type } })
        expect(statusOf(reply)).toEqual({ code: 422, kind: "Status", reason: "Invalid", message: `ConfigMap "cm" ${tooBig}` })
      }
      const applied = yield* send(base, "PATCH", `${path}/cm?fieldManager=other`, {
        body: JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "cm" }, data: { c: "!" } }),
        headers: applyYaml
      })
      expect(statusOf(applied)).toEqual({ code: 422, kind: "Status", reason: "Invalid", message: `ConfigMap "cm" ${tooBig}` })
      expect((yield* send(base, "GET", `${path}/cm`)).json).toEqual(stored)
      expect(yield* stillServing(base)).toHaveLength(1)
    }))

  it.scoped("binaryData counts its decoded bytes: 1 MiB + 1 decoded is 422, 1 MiB is fine", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const encoded = (n: number) => Buffer.alloc(n, 7).toString("base64")
      const over = yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "bin" }, binaryData: { b: encoded(1_048_577) } }), headers: json })
      expect(statusOf(over)).toEqual({ code: 422, kind: "Status", reason: "Invalid", message: `ConfigMap "bin" ${tooBig}` })
      const at = yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "bin" }, binaryData: { b: encoded(1_048_576) } }), headers: json })
      expect(at.code).toBe(201)
    }))

  it.scoped("keys: IsConfigMapKey's text, a key in both data and binaryData, on create and update", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const keyMessage =
        "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"
      const bad = yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "keys" }, data: { "bad key!": "v" } }), headers: json })
      expect(statusOf(bad)).toEqual({ code: 422, kind: "Status", reason: "Invalid", message: `ConfigMap "keys" is invalid: data[bad key!]: Invalid value: "bad key!": ${keyMessage}` })
      const both = yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "keys" }, data: { k: "v" }, binaryData: { k: "AA==" } }), headers: json })
      expect(statusOf(both).message).toBe('ConfigMap "keys" is invalid: data[k]: Invalid value: "k": duplicate of key present in binaryData')
      const dots = yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "keys" }, binaryData: { "..": "AA==" } }), headers: json })
      expect(statusOf(dots).message).toBe(`ConfigMap "keys" is invalid: binaryData[..]: Invalid value: "..": must not be '..'`)
      expect((yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "keys" }, data: { "ok.key_1-A": "v" } }), headers: json })).code).toBe(201)
      const patched = yield* send(base, "PATCH", `${path}/keys`, { body: '{"data":{"../etc":"v"}}', headers: { "content-type": "application/merge-patch+json" } })
      expect(statusOf(patched)).toEqual({
        code: 422,
        kind: "Status",
        reason: "Invalid",
        message: `ConfigMap "keys" is invalid: [data[../etc]: Invalid value: "../etc": ${keyMessage}, data[../etc]: Invalid value: "../etc": must not start with '..']`
      })
    }))

  it.scoped("an immutable config map keeps its data and its immutability (ValidateConfigMapUpdate)", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      expect((yield* send(base, "POST", path, { body: JSON.stringify({ metadata: { name: "frozen" }, data: { k: "v" }, immutable: true }), headers: json })).code).toBe(201)
      const merge = { "content-type": "application/merge-patch+json" }
      const changed = yield* send(base, "PATCH", `${path}/frozen`, { body: '{"data":{"k":"w"}}', headers: merge })
      expect(statusOf(changed)).toEqual({ code: 422, kind: "Status", reason: "Invalid", message: 'ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set' })
      const thawed = yield* send(base, "PATCH", `${path}/frozen`, { body: '{"immutable":false}', headers: merge })
      expect(statusOf(thawed).message).toBe('ConfigMap "frozen" is invalid: immutable: Forbidden: field is immutable when `immutable` is set')
      // Metadata may still change.
      expect((yield* send(base, "PATCH", `${path}/frozen`, { body: '{"metadata":{"labels":{"a":"b"}}}', headers: merge })).code).toBe(200)
    }))
})

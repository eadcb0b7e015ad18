/** The protobuf envelope on the wire: bodies, answers, errors, fallbacks and watch streams over real HTTP. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { request } from "undici"
import type { WatchEvent } from "../../src/api/Object.js"
import { decodeObject, encodeObject, watchFrameDecoder } from "../../src/api/protobuf/Envelope.js"
import { httpServer } from "../support/transports.js"

interface Reply {
  readonly code: number
  readonly contentType: string | undefined
  readonly bytes: Buffer
}

const send = (base: string, method: string, path: string, opts: { body?: string | Uint8Array; headers?: Record<string, string> } = {}) =>
  Effect.promise(async (): Promise<Reply> => {
    const res = await request(base + path, { method: method as "GET", body: opts.body, headers: opts.headers })
    const bytes = Buffer.from(await res.body.arrayBuffer())
    return { code: res.statusCode, contentType: res.headers["content-type"] as string | undefined, bytes }
  })

const upstream = "application/vnd.kubernetes.protobuf"
const platform = "application/vnd.platform.protobuf"
const decoded = (r: Reply) => Either.getOrThrow(decodeObject(r.bytes)).object as Record<string, any>
const envelope = (obj: Record<string, unknown>) => Either.getOrThrow(encodeObject(obj))

describe("protobuf over HTTP", () => {
  it.scoped("creates from a protobuf body and answers in the name the client asked for (kubectl ≥ 1.32)", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const created = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps?fieldValidation=Strict", {
        body: envelope({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "cm" }, data: { a: "b" } }),
        headers: { "content-type": upstream, accept: `${upstream},application/json` }
      })
      expect(created.code).toBe(201)
      expect(created.contentType).toBe(upstream)
      expect(created.bytes.subarray(0, 4).toString("hex")).toBe("6b387300")
      const cm = decoded(created)
      expect(cm.kind).toBe("ConfigMap")
      expect(cm.data).toEqual({ a: "b" })
      expect(cm.metadata.namespace).toBe("default")
      const got = yield* send(base, "GET", "/api/v1/namespaces/default/configmaps/cm", { headers: { accept: platform } })
      expect(got.contentType).toBe(platform)
      expect(decoded(got)).toEqual(cm)
      const asJson = yield* send(base, "GET", "/api/v1/namespaces/default/configmaps/cm")
      expect(JSON.parse(asJson.bytes.toString())).toEqual(cm)
      const list = yield* send(base, "GET", "/api/v1/namespaces/default/configmaps", { headers: { accept: upstream } })
      const items = decoded(list)
      expect(items.kind).toBe("ConfigMapList")
      expect(items.items).toEqual([{ metadata: cm.metadata, data: { a: "b" } }])
    }))

  it.scoped("updates from a protobuf body; an empty typeMeta takes the URL's type", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const ns = yield* send(base, "POST", "/api/v1/namespaces", {
        body: envelope({ kind: "Namespace", apiVersion: "v1", metadata: { name: "team-a", labels: { team: "a" } } }),
        headers: { "content-type": platform, accept: platform }
      })
      const stored = decoded(ns)
      const { kind: _k, apiVersion: _a, ...untyped }: Record<string, any> = { ...stored, metadata: { ...stored.metadata, labels: { team: "b" } } }
      // typeMeta {}, raw = the object, as a client that leaves TypeMeta unset sends it
      const bytes = Buffer.from(envelope({ kind: "Namespace", apiVersion: "v1", ...untyped }))
      const typeMetaLength = bytes[5]!
      const withEmptyTypeMeta = Buffer.concat([bytes.subarray(0, 4), Buffer.from([0x0a, 0x00]), bytes.subarray(6 + typeMetaLength)])
      const updated = yield* send(base, "PUT", "/api/v1/namespaces/team-a", { body: withEmptyTypeMeta, headers: { "content-type": upstream, accept: upstream } })
      expect(updated.code).toBe(200)
      expect(decoded(updated).metadata.labels).toEqual({ team: "b" })
    }))

  it.scoped("reads a protobuf DeleteOptions body (client-go's protobuf clients send one)", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { body: '{"metadata":{"name":"d"}}', headers: { "content-type": "application/json" } })
      const options = (o: Record<string, unknown>) => envelope({ kind: "DeleteOptions", apiVersion: "v1", ...o })
      const guarded = yield* send(base, "DELETE", "/api/v1/namespaces/default/configmaps/d", {
        body: options({ preconditions: { uid: "not-the-uid" } }),
        headers: { "content-type": upstream, accept: upstream }
      })
      expect(guarded.code).toBe(409)
      expect(decoded(guarded).reason).toBe("Conflict")
      const dryRun = yield* send(base, "DELETE", "/api/v1/namespaces/default/configmaps/d", { body: options({ dryRun: ["All"] }), headers: { "content-type": upstream } })
      expect(dryRun.code).toBe(200)
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/configmaps/d")).code).toBe(200)
      const deleted = yield* send(base, "DELETE", "/api/v1/namespaces/default/configmaps/d", { body: options({ gracePeriodSeconds: 0 }), headers: { "content-type": upstream } })
      expect(deleted.code).toBe(200)
      expect((yield* send(base, "GET", "/api/v1/namespaces/default/configmaps/d")).code).toBe(404)
    }))

  it.scoped("answers errors as a protobuf Status when protobuf was negotiated", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const missing = yield* send(base, "GET", "/api/v1/namespaces/default/pods/nope", { headers: { accept: upstream } })
      expect(missing.code).toBe(404)
      expect(missing.contentType).toBe(upstream)
      expect(decoded(missing)).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: 'pods "nope" not found',
        reason: "NotFound",
        details: { name: "nope", kind: "pods" },
        code: 404
      })
      // Route-level negotiation failures stay JSON (go-restful writes them).
      const table = yield* send(base, "GET", "/api/v1/pods", { headers: { accept: `${upstream};as=Table;v=v1;g=meta.platform` } })
      expect(table.code).toBe(406)
      expect(table.contentType).toBe("application/json")
      expect(JSON.parse(table.bytes.toString()).message).toBe(
        "only the following media types are accepted: application/json, application/yaml, application/vnd.platform.protobuf"
      )
    }))

  it.scoped("400 for a body without the magic or with a field number the schema does not know", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const noMagic = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", {
        body: '{"metadata":{"name":"x"}}',
        headers: { "content-type": upstream }
      })
      expect(noMagic.code).toBe(400)
      expect(JSON.parse(noMagic.bytes.toString()).message).toBe(
        'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"metadata":{"name":"x"}})'
      )
      // ConfigMap with field 99 (varint 1) at the top level
      const bytes = Buffer.from(envelope({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "x" } }))
      const raw = Buffer.from("0a030a0178" + "980601", "hex")
      const typeMeta = bytes.subarray(4, 6 + bytes[5]!)
      const forged = Buffer.concat([bytes.subarray(0, 4), typeMeta, Buffer.from([0x12, raw.length]), raw, Buffer.from("1a002200", "hex")])
      const unknown = yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", { body: forged, headers: { "content-type": upstream } })
      expect(unknown.code).toBe(400)
      expect(JSON.parse(unknown.bytes.toString()).message).toBe(
        'ConfigMap in version "v1" cannot be handled as a ConfigMap: unknown field number 99 in v1.ConfigMap at .'
      )
      const after = yield* send(base, "GET", "/healthz")
      expect(after.code).toBe(200)
    }))

  it.scoped("a field the kind does not know is dropped on decode, so the stored object encodes as protobuf", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      // Pods decode against the same schema the protobuf messages give (src/api/kinds/BuiltinSchemas.ts).
      const pod = { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "i" }], futureField: { x: 1 } } }
      const created = yield* send(base, "POST", "/api/v1/namespaces/default/pods?fieldValidation=Ignore", {
        body: JSON.stringify(pod),
        headers: { "content-type": "application/json", accept: `${upstream}, application/json` }
      })
      expect(created.code).toBe(201)
      expect(created.contentType).toBe(upstream)
      const only = yield* send(base, "GET", "/api/v1/namespaces/default/pods/p", { headers: { accept: "application/json" } })
      expect(only.code).toBe(200)
      expect(JSON.parse(only.bytes.toString()).spec.futureField).toBeUndefined()
    }))

  it.scoped("watches as length-prefixed frames with the stream=watch type", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const res = yield* Effect.promise(() =>
        request(`${base}/api/v1/namespaces/default/configmaps?watch=true&allowWatchBookmarks=true`, {
          headers: { accept: `${upstream};stream=watch` }
        })
      )
      expect(res.headers["content-type"]).toBe(`${upstream};stream=watch`)
      yield* send(base, "POST", "/api/v1/namespaces/default/configmaps", {
        body: envelope({ kind: "ConfigMap", apiVersion: "v1", metadata: { name: "w" }, data: { k: "v" } }),
        headers: { "content-type": upstream }
      })
      yield* send(base, "DELETE", "/api/v1/namespaces/default/configmaps/w")
      const frames = watchFrameDecoder()
      const changes = yield* Effect.promise(async () => {
        const out: WatchEvent[] = []
        for await (const chunk of res.body) {
          out.push(...frames(chunk as Buffer).filter((e) => e.type !== "BOOKMARK"))
          if (out.length >= 2) break
        }
        return out
      })
      expect(changes.map((e) => [e.type, e.object.kind, e.object.metadata.name])).toEqual([
        ["ADDED", "ConfigMap", "w"],
        ["DELETED", "ConfigMap", "w"]
      ])
      expect(changes[0]!.object.data).toEqual({ k: "v" })
    }))
})

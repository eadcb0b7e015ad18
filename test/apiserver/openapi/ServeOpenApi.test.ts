/** The OpenAPI endpoints over a real socket: the index, hashed documents and their caching, v2 in JSON and protobuf. */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { request } from "undici"
import { decodeOpenApiV2 } from "../../../src/api/openapi/ProtobufV2.js"
import { httpServer } from "../../support/transports.js"

const get = (base: string, path: string, headers: Record<string, string> = {}, method = "GET") =>
  Effect.promise(async () => {
    const res = await request(base + path, { method: method as "GET", headers })
    const bytes = Buffer.from(await res.body.arrayBuffer())
    return { code: res.statusCode, headers: res.headers, bytes, text: bytes.toString("utf8") }
  })

describe("OpenAPI endpoints", () => {
  it.scoped("the v3 index points at each document with its hash; that URL is immutable, a stale hash redirects", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const index = yield* get(base, "/openapi/v3")
      expect(index.code).toBe(200)
      expect(index.headers["content-type"]).toBe("application/json")
      const url: string = JSON.parse(index.text).paths["api/v1"].serverRelativeURL
      expect(url).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]{128}$/)
      const doc = yield* get(base, url)
      expect(doc.code).toBe(200)
      expect(doc.headers["cache-control"]).toBe("public, immutable")
      expect(doc.headers.etag).toBe(`"${url.slice(url.indexOf("=") + 1)}"`)
      expect(JSON.parse(doc.text).openapi).toBe("3.0.0")
      const unhashed = yield* get(base, "/openapi/v3/api/v1")
      expect([unhashed.code, unhashed.headers["cache-control"], unhashed.text]).toEqual([200, "no-cache, private", doc.text])
      const stale = yield* get(base, "/openapi/v3/api/v1?hash=ABC")
      expect([stale.code, stale.headers.location]).toEqual([301, url])
      const cached = yield* get(base, url, { "if-none-match": String(doc.headers.etag) })
      expect([cached.code, cached.bytes.length]).toEqual([304, 0])
    })
  )

  it.scoped("v2 as JSON, and as protobuf under the content type Go's mime parser accepts", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const json = yield* get(base, "/openapi/v2", { accept: "application/json" })
      expect([json.code, json.headers["content-type"], JSON.parse(json.text).swagger]).toEqual([200, "application/json", "2.0"])
      const pb = yield* get(base, "/openapi/v2", { accept: "application/com.github.proto-openapi.spec.v2@v1.0+protobuf" })
      expect([pb.code, pb.headers["content-type"]]).toEqual([200, "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"])
      expect(Object.keys(JSON.parse(json.text).definitions)).toEqual(((decodeOpenApiV2(pb.bytes).definitions as any).additional_properties as any[]).map((d) => d.name))
    })
  )

  it.scoped("an unknown document is the 404 page; a write is 405 with a Status", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const missing = yield* get(base, "/openapi/v3/apis/nosuch.example/v1")
      expect([missing.code, missing.text]).toEqual([404, "404 page not found\n"])
      const post = yield* get(base, "/openapi/v2", {}, "POST")
      expect(post.code).toBe(405)
      expect(JSON.parse(post.text)).toMatchObject({ kind: "Status", reason: "MethodNotAllowed", code: 405 })
    })
  )
})

import { gzipSync } from "node:zlib"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { yamlDepthExceeds } from "../../../simulator/apiserver/http/RequestBody.js"
import { goJsonSyntaxError } from "../../../src/api/go/JsonSyntaxError.js"
import { httpServer } from "../../support/transports.js"
import { send } from "../../support/wire.js"

const flow = (depth: number) => "[".repeat(depth) + "]".repeat(depth)
const block = (depth: number) => Array.from({ length: depth }, (_, i) => `${" ".repeat(i)}k${i}:`).join("\n") + " v\n"
const dashes = (depth: number) => "- ".repeat(depth) + "x\n"

describe("apply bodies: nesting checked before the YAML parser sees them", () => {
  it("flow brackets, block indentation and same-line `- ` markers count; a document at the limit passes", () => {
    expect(yamlDepthExceeds(flow(1000), 1000)).toBe(false)
    expect(yamlDepthExceeds(flow(1001), 1000)).toBe(true)
    expect(yamlDepthExceeds(block(1000), 1000)).toBe(false)
    expect(yamlDepthExceeds(block(1002), 1000)).toBe(true)
    expect(yamlDepthExceeds(dashes(500), 1000)).toBe(false)
    expect(yamlDepthExceeds(dashes(501), 1000)).toBe(true)
    expect(yamlDepthExceeds('metadata:\n  name: "[[[["\n', 2)).toBe(false)
  })

  it.live("a deep apply-patch+yaml body is a 400 and the server keeps answering", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const path = "/api/v1/namespaces/default/configmaps/c?fieldManager=m"
      const headers = { "content-type": "application/apply-patch+yaml" }
      for (const body of [`data: ${flow(5000)}`, dashes(20_000), block(1200)]) {
        const r = yield* send(base, "PATCH", path, { body, headers })
        expect([r.code, (r.json as { message?: string }).message]).toEqual([400, "error decoding patch: exceeded max depth of 1000"])
      }
      const ok = yield* send(base, "PATCH", path, { body: "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n", headers })
      expect(ok.code).toBe(201)
    }).pipe(Effect.scoped)
  )
})

describe("malformed JSON bodies: Go's encoding/json errors in upstream's messages, never V8's wording", () => {
  it("the mapping covers the scanner's common states", () => {
    const go = (text: string) => {
      try {
        JSON.parse(text)
        return "parsed"
      } catch (e) {
        return goJsonSyntaxError(text, e)
      }
    }
    expect(go('{"metadata":')).toBe("unexpected end of JSON input")
    expect(go("{")).toBe("unexpected end of JSON input")
    expect(go('"abc')).toBe("unexpected end of JSON input")
    expect(go("\u001f\ufffd\b")).toBe("invalid character '\\x1f' looking for beginning of value")
    expect(go("'a'")).toBe("invalid character '\\'' looking for beginning of value")
    expect(go("é")).toBe("invalid character 'Ã' looking for beginning of value")
    expect(go('{"a" 1}')).toBe("invalid character '1' after object key")
    expect(go('{"a":1 x')).toBe("invalid character 'x' after object key:value pair")
    expect(go("[1 2]")).toBe("invalid character '2' after array element")
    expect(go("{,}")).toBe("invalid character ',' looking for beginning of object key string")
    expect(go("{} x")).toBe("invalid character 'x' after top-level value")
    expect(go('{"a":"x\ny"}')).toBe("invalid character '\\n' in string literal")
    expect(go('{"a":"\\q"}')).toBe("invalid character 'q' in string escape code")
    expect(go("-x")).toBe("invalid character 'x' in numeric literal")
  })

  it.live("create, delete and patch bodies answer as upstream's handlers", () =>
    Effect.gen(function* () {
      const base = yield* httpServer()
      const json = { "content-type": "application/json" }
      const post = (body: string | Buffer) => send(base, "POST", "/api/v1/namespaces/default/configmaps", { body, headers: json })
      const truncated = yield* post('{"metadata":')
      expect([truncated.code, truncated.json.reason, truncated.json.message]).toEqual([
        400,
        "BadRequest",
        'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"metadata":)'
      ])
      const gzipped = yield* post(gzipSync('{"metadata":{"name":"z"}}'))
      expect(gzipped.json.message).toMatch(
        /^the object provided is unrecognized \(must be of type ConfigMap\): couldn't get version\/kind; json parse error: invalid character '\\x1f' looking for beginning of value \(1f8b08[0-9a-f]{54} \.\.\.\)$/
      )
      const array = yield* post("[1,2]")
      expect(array.json.message).toBe(
        'the object provided is unrecognized (must be of type ConfigMap): couldn\'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" } (5b312c325d)'
      )
      const empty = yield* post("")
      expect(empty.json.message).toBe("the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: unexpected end of JSON input (<empty>)")
      const del = yield* send(base, "DELETE", "/api/v1/namespaces/default/configmaps/x", { body: "{", headers: json })
      expect([del.code, del.json.message]).toEqual([400, "couldn't get version/kind; json parse error: unexpected end of JSON input"])
      const grace = yield* send(base, "DELETE", "/api/v1/namespaces/default/configmaps/x", { body: '{"gracePeriodSeconds":-1e300}', headers: json })
      expect([grace.code, grace.json.message]).toEqual([400, "json: cannot unmarshal number -1e300 into Go struct field DeleteOptions.gracePeriodSeconds of type int64"])
      const patch = yield* send(base, "PATCH", "/api/v1/namespaces/default/configmaps/x", { body: '{"data":x}', headers: { "content-type": "application/merge-patch+json" } })
      expect([patch.code, patch.json.message]).toEqual([400, "error decoding patch: json parse error: invalid character 'x' looking for beginning of value"])
    }).pipe(Effect.scoped)
  )
})

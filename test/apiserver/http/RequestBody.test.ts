import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { yamlDepthExceeds } from "../../../simulator/apiserver/http/RequestBody.js"
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

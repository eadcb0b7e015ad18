import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import { applyPatch, patchTypeOf } from "../../src/api/Patch.js"
import type { ApiError } from "../../src/api/Status.js"

const statusOf = <A>(r: Either.Either<A, ApiError>) => Either.getLeft(r).pipe(Option.getOrThrow).status
const right = <A>(r: Either.Either<A, ApiError>) => Either.getOrThrow(r)

const lease = () => ({
  apiVersion: "coordination.platform/v1",
  kind: "Lease",
  metadata: { name: "l", namespace: "default", labels: { a: "1", b: "2" } },
  spec: { holderIdentity: "x", leaseDurationSeconds: 40, list: [1, 2, 3] }
})

const invalidPatch = {
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message: "the server rejected our request due to an error in our request",
  reason: "Invalid",
  details: {},
  code: 422
}
const badRequest = (message: string) => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message,
  reason: "BadRequest",
  code: 400
})

describe("applyPatch merge", () => {
  it("merges objects, deletes nulls and replaces arrays", () => {
    const target = lease()
    const out = right(applyPatch(target, "merge", { metadata: { labels: { a: null, c: "3" } }, spec: { holderIdentity: "y", list: [9] } }))
    expect(out).toEqual({
      ...lease(),
      metadata: { name: "l", namespace: "default", labels: { b: "2", c: "3" } },
      spec: { holderIdentity: "y", leaseDurationSeconds: 40, list: [9] }
    })
    expect(target).toEqual(lease())
  })

  it("prunes nulls from new subtrees but keeps nulls inside arrays", () => {
    const out = right(applyPatch({ a: 1 }, "merge", { b: { c: null, d: { e: null, f: 1 } }, g: [null, { h: null }] }))
    expect(out).toEqual({ a: 1, b: { d: { f: 1 } }, g: [null, {}] })
  })

  it("replaces a scalar with an object and an object with a scalar", () => {
    expect(right(applyPatch({ a: 1, b: { c: 1 } }, "merge", { a: { x: null, y: 1 }, b: 5 }))).toEqual({ a: { y: 1 }, b: 5 })
  })

  it("never changes the patch; shares its parts without nulls, copies the parts it prunes", () => {
    const patch = { spec: { kept: { x: 1 }, pruned: { y: null, z: 2 } } }
    const out = right(applyPatch({}, "merge", patch)) as { spec: { kept: object; pruned: object } }
    expect(out).toEqual({ spec: { kept: { x: 1 }, pruned: { z: 2 } } })
    expect(out.spec.kept).toBe(patch.spec.kept)
    expect(patch).toEqual({ spec: { kept: { x: 1 }, pruned: { y: null, z: 2 } } })
  })

  it("keeps a __proto__ key as data", () => {
    const patch = JSON.parse('{"metadata":{"labels":{"__proto__":"x"}}}')
    const out = right(applyPatch({ metadata: {} }, "merge", patch)) as { metadata: { labels: Record<string, string> } }
    expect(Object.keys(out.metadata.labels)).toEqual(["__proto__"])
    expect(Object.getPrototypeOf(out.metadata.labels)).toBe(Object.prototype)
  })

  it("answers a null or scalar body with 400 Invalid JSON Patch", () => {
    expect(statusOf(applyPatch(lease(), "merge", null))).toEqual(badRequest("Invalid JSON Patch"))
    expect(statusOf(applyPatch(lease(), "merge", "x"))).toEqual(badRequest("Invalid JSON Patch"))
    expect(statusOf(applyPatch(lease(), "merge", 3))).toEqual(badRequest("Invalid JSON Patch"))
  })

  it("returns an array body as the document, as json-patch v4 does", () => {
    expect(right(applyPatch(lease(), "merge", [{ a: null, b: 1 }, null]))).toEqual([{ b: 1 }, null])
  })

  it("applies strategic merge patches as merge patches", () => {
    expect(right(applyPatch(lease(), "strategic", { spec: { holderIdentity: null } }))).toEqual(
      right(applyPatch(lease(), "merge", { spec: { holderIdentity: null } }))
    )
  })
})

describe("applyPatch json", () => {
  it("applies the RFC 6902 operations in order", () => {
    const target = lease()
    const out = right(
      applyPatch(target, "json", [
        { op: "test", path: "/spec/holderIdentity", value: "x" },
        { op: "replace", path: "/spec/holderIdentity", value: "y" },
        { op: "add", path: "/metadata/labels/c", value: "3" },
        { op: "remove", path: "/metadata/labels/a" },
        { op: "add", path: "/spec/list/-", value: 4 },
        { op: "copy", from: "/spec/holderIdentity", path: "/spec/copy" },
        { op: "move", from: "/spec/copy", path: "/spec/moved" }
      ])
    )
    expect(out).toEqual({
      ...lease(),
      metadata: { name: "l", namespace: "default", labels: { b: "2", c: "3" } },
      spec: { holderIdentity: "y", leaseDurationSeconds: 40, list: [1, 2, 3, 4], moved: "y" }
    })
    expect(target).toEqual(lease())
  })

  it("treats a null body as an empty patch", () => {
    expect(right(applyPatch(lease(), "json", null))).toEqual(lease())
  })

  it("answers a failed test with the generic 422", () => {
    expect(statusOf(applyPatch(lease(), "json", [{ op: "test", path: "/spec/holderIdentity", value: "nope" }]))).toEqual(invalidPatch)
  })

  it("answers a missing path, a bad op and a null op with the generic 422", () => {
    expect(statusOf(applyPatch(lease(), "json", [{ op: "remove", path: "/spec/missing" }]))).toEqual(invalidPatch)
    expect(statusOf(applyPatch(lease(), "json", [{ op: "replace", path: "/nope/x", value: 1 }]))).toEqual(invalidPatch)
    expect(statusOf(applyPatch(lease(), "json", [{ op: "add", path: "/a/b/c", value: 1 }]))).toEqual(invalidPatch)
    expect(statusOf(applyPatch(lease(), "json", [{ op: "frobnicate", path: "/spec" }]))).toEqual(invalidPatch)
    expect(statusOf(applyPatch(lease(), "json", [{ op: "_get", path: "/spec" }]))).toEqual(invalidPatch)
    expect(statusOf(applyPatch(lease(), "json", [{ path: "/spec" }]))).toEqual(invalidPatch)
    expect(statusOf(applyPatch(lease(), "json", [null]))).toEqual(invalidPatch)
    expect(statusOf(applyPatch(lease(), "json", [{ op: "add", path: "/__proto__/x", value: 1 }]))).toEqual(invalidPatch)
  })

  it("a __proto__ pointer segment is a plain key, as merge patches and upstream's Go maps take it; nothing reaches a prototype", () => {
    const configMap = { metadata: { name: "c" }, data: { a: "1" } }
    const added = applyPatch(configMap, "json", [{ op: "add", path: "/data/__proto__", value: "x" }])
    expect(Either.isRight(added)).toBe(true)
    const data = (Either.getOrThrow(added) as { data: Record<string, unknown> }).data
    expect([Object.keys(data), Object.getPrototypeOf(data) === Object.prototype, data.__proto__]).toEqual([["a", "__proto__"], true, "x"])
    expect(({} as Record<string, unknown>).x).toBeUndefined()
    // The same key reached again: tested, moved, removed; an object value there stays data too.
    const stored = Either.getOrThrow(added)
    const moved = Either.getOrThrow(
      applyPatch(stored, "json", [
        { op: "test", path: "/data/__proto__", value: "x" },
        { op: "move", from: "/data/__proto__", path: "/data/b" },
        { op: "add", path: "/metadata/__proto__", value: { polluted: true } }
      ])
    ) as { data: Record<string, unknown>; metadata: Record<string, unknown> }
    expect([moved.data, Object.keys(moved.metadata)]).toEqual([{ a: "1", b: "x" }, ["name", "__proto__"]])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect(statusOf(applyPatch(configMap, "json", [{ op: "remove", path: "/data/__proto__" }]))).toEqual(invalidPatch)
  })

  it("leaves the target untouched when a later operation fails", () => {
    const target = lease()
    applyPatch(target, "json", [
      { op: "replace", path: "/spec/holderIdentity", value: "changed" },
      { op: "test", path: "/spec/holderIdentity", value: "other" }
    ])
    expect(target).toEqual(lease())
  })

  it("answers a body that is not an array with Go's decode error", () => {
    expect(statusOf(applyPatch(lease(), "json", { op: "add" }))).toEqual(
      badRequest("json: cannot unmarshal object into Go value of type jsonpatch.Patch")
    )
    expect(statusOf(applyPatch(lease(), "json", "x")).message).toBe("json: cannot unmarshal string into Go value of type jsonpatch.Patch")
    expect(statusOf(applyPatch(lease(), "json", true)).message).toBe("json: cannot unmarshal bool into Go value of type jsonpatch.Patch")
    expect(statusOf(applyPatch(lease(), "json", [{ op: "test", path: "", value: 1 }, 7])).message).toBe(
      "json: cannot unmarshal number into Go value of type jsonpatch.Operation"
    )
  })

  it("allows 10000 operations and rejects 10001 with 413", () => {
    const ops = (n: number) => Array.from({ length: n }, () => ({ op: "test", path: "/kind", value: "Lease" }))
    expect(Either.isRight(applyPatch(lease(), "json", ops(10000)))).toBe(true)
    expect(statusOf(applyPatch(lease(), "json", ops(10001)))).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001",
      reason: "RequestEntityTooLarge",
      code: 413
    })
  })
})

describe("patchTypeOf", () => {
  it("maps the four patch content types", () => {
    expect(patchTypeOf("application/json-patch+json")).toBe("json")
    expect(patchTypeOf("application/merge-patch+json")).toBe("merge")
    expect(patchTypeOf("application/strategic-merge-patch+json")).toBe("strategic")
    expect(patchTypeOf("application/apply-patch+yaml")).toBe("apply")
  })

  it("strips parameters", () => {
    expect(patchTypeOf("application/merge-patch+json; charset=utf-8")).toBe("merge")
    expect(patchTypeOf("application/json-patch+json;charset=UTF-8")).toBe("json")
  })

  it("rejects anything else, case included", () => {
    expect(patchTypeOf("application/json")).toBeUndefined()
    expect(patchTypeOf("Application/Merge-Patch+JSON")).toBeUndefined()
    expect(patchTypeOf("")).toBeUndefined()
    expect(patchTypeOf("toString")).toBeUndefined()
  })
})

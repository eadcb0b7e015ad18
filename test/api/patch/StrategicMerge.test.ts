import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { podSchema } from "../../../src/api/kinds/BuiltinSchemas.js"
import { FieldSchema } from "../../../src/api/kinds/FieldSchema.js"
import { strategicMergePatch } from "../../../src/api/patch/StrategicMerge.js"
import { makeWorkBudget } from "../../../src/api/patch/WorkBudget.js"

const apply = (target: Record<string, unknown>, patch: unknown, schema: FieldSchema | undefined = podSchema) => {
  const result = strategicMergePatch(target, patch, schema)
  if (Either.isLeft(result)) throw new Error(`patch failed: ${JSON.stringify(result.left.status)}`)
  return result.right as Record<string, unknown>
}
const failure = (target: Record<string, unknown>, patch: unknown, schema: FieldSchema | undefined = podSchema) => {
  const result = strategicMergePatch(target, patch, schema)
  if (Either.isRight(result)) throw new Error("patch succeeded")
  const { code, reason, message, details } = result.left.status
  return { code, reason, message, details }
}

const pod = () => ({
  metadata: { name: "p", finalizers: ["a", "b"], labels: { app: "x" } },
  spec: {
    containers: [
      { name: "a", image: "a:1", env: [{ name: "X", value: "1" }, { name: "Y", value: "2" }], ports: [{ containerPort: 80, protocol: "TCP" }] },
      { name: "b", image: "b:1" }
    ],
    tolerations: [{ key: "k", operator: "Exists" }],
    volumes: [{ name: "v", emptyDir: {} }]
  }
})

/** The upstream test list of `patch_test.go`: `mergingList` merged by `name`, `mergingIntList` a merged set. */
const testSchema = FieldSchema.object("T", {
  mergingList: FieldSchema.array(FieldSchema.object("M", { name: FieldSchema.any(), value: FieldSchema.any(), other: FieldSchema.any() }), {
    patchStrategy: "merge",
    patchMergeKey: "name"
  }),
  mergingIntList: FieldSchema.array(FieldSchema.int64(), { patchStrategy: "merge" }),
  nonMergingList: FieldSchema.array(FieldSchema.any())
})

describe("strategic merge patch", () => {
  it("merges containers by name: the others stay, the named one is merged", () => {
    const target = pod()
    const out = apply(target, { spec: { containers: [{ name: "b", image: "b:2" }] } })
    expect(out.spec).toEqual({ ...target.spec, containers: [target.spec.containers[0], { name: "b", image: "b:2" }] })
    // The target is not changed and untouched parts are shared.
    expect(target.spec.containers[1]).toEqual({ name: "b", image: "b:1" })
    expect((out.spec as typeof target.spec).containers[0]).toBe(target.spec.containers[0])
  })

  it("puts new items first, merges nested lists by their own keys", () => {
    const out = apply(pod(), { spec: { containers: [{ name: "a", env: [{ name: "Y", value: "3" }, { name: "Z", value: "4" }] }, { name: "c", image: "c:1" }] } })
    const containers = (out.spec as { containers: Array<{ name: string; env?: unknown }> }).containers
    expect(containers.map((c) => c.name)).toEqual(["a", "c", "b"])
    expect(containers[0]!.env).toEqual([{ name: "X", value: "1" }, { name: "Y", value: "3" }, { name: "Z", value: "4" }])
  })

  it("replaces untagged lists whole (tolerations) and merges finalizers as a set", () => {
    const out = apply(pod(), { metadata: { finalizers: ["c", "a"] }, spec: { tolerations: [{ key: "other", operator: "Exists" }] } })
    expect((out.spec as { tolerations: unknown }).tolerations).toEqual([{ key: "other", operator: "Exists" }])
    expect((out.metadata as { finalizers: unknown }).finalizers).toEqual(["c", "a", "b"])
  })

  it("$patch: delete removes a list item by key; replace replaces the list; null deletes a field", () => {
    const deleted = apply(pod(), { spec: { containers: [{ name: "a", $patch: "delete" }] }, metadata: { labels: { app: null } } })
    expect((deleted.spec as { containers: unknown[] }).containers).toEqual([{ name: "b", image: "b:1" }])
    expect((deleted.metadata as { labels: unknown }).labels).toEqual({})
    const replaced = apply(pod(), { spec: { containers: [{ name: "z", image: "z:1" }, { $patch: "replace" }] } })
    expect((replaced.spec as { containers: unknown[] }).containers).toEqual([{ name: "z", image: "z:1" }])
    const emptied = apply(pod(), { metadata: { labels: { $patch: "delete" } } })
    expect((emptied.metadata as { labels: unknown }).labels).toEqual({})
    const mapReplaced = apply(pod(), { metadata: { labels: { $patch: "replace", only: "this" } } })
    expect((mapReplaced.metadata as { labels: unknown }).labels).toEqual({ only: "this" })
  })

  it("$deleteFromPrimitiveList removes scalars from a merged list", () => {
    const out = apply(pod(), { metadata: { "$deleteFromPrimitiveList/finalizers": ["a"] } })
    expect((out.metadata as { finalizers: unknown }).finalizers).toEqual(["b"])
  })

  it("$retainKeys clears the keys of a one-of struct not listed (volumes: merge,retainKeys)", () => {
    const out = apply(pod(), { spec: { volumes: [{ name: "v", hostPath: { path: "/x" }, $retainKeys: ["name", "hostPath"] }] } })
    expect((out.spec as { volumes: unknown }).volumes).toEqual([{ name: "v", hostPath: { path: "/x" } }])
    expect(failure(pod(), { spec: { volumes: [{ name: "v", hostPath: { path: "/x" }, $retainKeys: ["name"] }] } })).toEqual({
      code: 400,
      reason: "BadRequest",
      message: "invalid patch format of retainKeys",
      details: undefined
    })
  })

  it("$setElementOrder as upstream's 'merge lists of maps' case", () => {
    const current = { mergingList: [{ name: 1, other: "a" }, { name: 2, value: 2, other: "b" }] }
    const patch = {
      "$setElementOrder/mergingList": [{ name: 4 }, { name: 1 }, { name: 2 }, { name: 3 }],
      mergingList: [{ name: 4, value: 4 }, { name: 3, value: 3 }]
    }
    expect(apply(current, patch, testSchema)).toEqual({
      mergingList: [{ name: 4, value: 4 }, { name: 1, other: "a" }, { name: 2, value: 2, other: "b" }, { name: 3, value: 3 }]
    })
    expect(apply({ mergingIntList: [1, 2] }, { "$setElementOrder/mergingIntList": [1, 2, 4], mergingIntList: [4] }, testSchema)).toEqual({ mergingIntList: [1, 2, 4] })
  })

  it("errors: missing merge key and unknown $patch are 500s with the raw text, bad directives 400, lists of lists 422", () => {
    expect(failure(pod(), { spec: { containers: [{ image: "x" }] } })).toEqual({
      code: 500,
      reason: undefined,
      message: "map: map[image:x] does not contain declared merge key: name",
      details: undefined
    })
    expect(failure(pod(), { spec: { containers: [{ name: "a", $patch: "merge" }] } }).message).toBe("merging lists cannot yet be specified in the patch")
    expect(failure(pod(), { metadata: { labels: { $patch: "explode" } } }).message).toBe("unknown patch type: explode in map: map[$patch:explode]")
    expect(failure(pod(), { metadata: { $deleteFromPrimitiveList: ["a"] } })).toMatchObject({ code: 400, message: "invalid patch format of primitive list" })
    expect(failure({ mergingIntList: [[1]] }, { mergingIntList: [[2]] }, testSchema)).toEqual({
      code: 422,
      reason: "Invalid",
      message: "the server rejected our request due to an error in our request",
      details: { causes: [{ reason: "UnexpectedServerResponse", message: "lists of lists are not supported" }] }
    })
    expect(failure(pod(), [{ op: "add" }])).toMatchObject({ code: 400, message: "json: cannot unmarshal array into Go value of type map[string]interface {}" })
  })
})

describe("strategic merge patch: long lists and the work budget", () => {
  const names = (n: number) => Array.from({ length: n }, (_, i) => `example.com/f${i}`)

  it("reverses 5,000 finalizers by list and by $setElementOrder, and 5,000 containers by name", () => {
    const finalizers = names(5000)
    const reversed = [...finalizers].reverse()
    const target = { metadata: { name: "p", finalizers } }
    expect((apply(target, { metadata: { finalizers: reversed } }).metadata as { finalizers: unknown }).finalizers).toEqual(reversed)
    expect((apply(target, { metadata: { "$setElementOrder/finalizers": reversed } }).metadata as { finalizers: unknown }).finalizers).toEqual(reversed)
    const containers = finalizers.map((name) => ({ name, image: "i:1" }))
    const out = apply({ spec: { containers } }, { spec: { containers: [...containers].reverse().map(({ name }) => ({ name, image: "i:2" })) } })
    expect((out.spec as { containers: unknown }).containers).toEqual([...containers].reverse().map(({ name }) => ({ name, image: "i:2" })))
  })

  it("merges patch items with repeated keys into the first match, as upstream's scan does", () => {
    const out = apply({ mergingList: [{ name: "a", value: 1 }, { name: "b" }] }, { mergingList: [{ name: "c" }, { name: "a", other: "x" }, { name: "c", value: 3 }] }, testSchema)
    expect(out.mergingList).toEqual([{ name: "c", value: 3 }, { name: "a", value: 1, other: "x" }, { name: "b" }])
    // A null key: the item merged loses it (null deletes), and the list then holds a map without its merge key.
    expect(failure({ mergingList: [{ name: null, value: 1 }] }, { mergingList: [{ name: null, other: "x" }] }, testSchema)).toMatchObject({
      code: 500,
      message: "map: map[other:x value:1] does not contain declared merge key: name"
    })
  })

  it("refuses a merge past the work budget with 422 and a cause; within it the merge is done", () => {
    const finalizers = names(1000)
    const target = { metadata: { name: "p", finalizers } }
    const patch = { metadata: { finalizers: [...finalizers].reverse() } }
    const small = strategicMergePatch(target, patch, podSchema, makeWorkBudget(1000))
    expect(Either.isLeft(small) && small.left.status).toMatchObject({
      code: 422,
      reason: "Invalid",
      message: "the server rejected our request due to an error in our request",
      details: {
        causes: [
          {
            reason: "UnexpectedServerResponse",
            message: "the patch takes more than 1000 steps of work to apply (clustersim's bound on one request's CPU time, docs/limits.md)"
          }
        ]
      }
    })
    expect(Either.isRight(strategicMergePatch(target, patch, podSchema, makeWorkBudget()))).toBe(true)
  })
})

describe("strategic merge patch: upstream's ordering cases (patch_test.go)", () => {
  it("preserves the patch's order, server-only items keeping their place", () => {
    const current = { mergingList: [{ name: 1 }, { name: 2, value: "b" }, { name: 3 }] }
    expect(apply(current, { mergingList: [{ name: 3, value: "c" }, { name: 1, value: "a" }, { name: 2, other: "x" }] }, testSchema)).toEqual({
      mergingList: [{ name: 3, value: "c" }, { name: 1, value: "a" }, { name: 2, value: "b", other: "x" }]
    })
    expect(apply(current, { mergingList: [{ name: 3, value: "c" }, { name: 1, value: "a" }] }, testSchema)).toEqual({
      mergingList: [{ name: 2, value: "b" }, { name: 3, value: "c" }, { name: 1, value: "a" }]
    })
    expect(apply({ mergingIntList: [1, 2, 3] }, { mergingIntList: [3, 1] }, testSchema)).toEqual({ mergingIntList: [2, 3, 1] })
  })

  it("$setElementOrder naming an item the list does not hold", () => {
    const patch = { "$setElementOrder/mergingList": [{ name: 3 }, { name: 2 }, { name: 1 }], mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] }
    expect(apply({ mergingList: [{ name: 1 }, { name: 3 }] }, patch, testSchema)).toEqual({ mergingList: [{ name: 3, value: 3 }, { name: 1, value: 1 }] })
    expect(apply({ mergingIntList: [1, 3] }, { "$setElementOrder/mergingIntList": [3, 2, 1] }, testSchema)).toEqual({ mergingIntList: [3, 1] })
  })
})

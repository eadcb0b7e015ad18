import { describe, expect, it } from "@effect/vitest"
import { aggregate, formatFieldError, invalid } from "../../../src/api/FieldError.js"
import type { KindRules } from "../../../src/api/kinds/KindRules.js"
import { validateForCreate, validateForUpdate } from "../../../src/api/kinds/Validation.js"
import type { KObject } from "../../../src/api/Object.js"

const obj = (metadata: Record<string, unknown>, spec: Record<string, unknown> = {}): KObject => ({ metadata: { name: "o", namespace: "default", ...metadata }, spec })
const specRule = (o: KObject) => ((o.spec as { bad?: boolean }).bad ? [invalid("spec.bad", true, "must not be set")] : [])

describe("the one validation path", () => {
  it("a kind without rules of its own still gets the ObjectMeta rules, on create and on update", () => {
    const none: KindRules = {}
    expect(aggregate(validateForCreate(none, true, obj({ labels: { "a b": "c" } })))).toMatch(/^metadata\.labels: Invalid value: "a b": name part must consist/)
    const old = obj({ uid: "u", resourceVersion: "1" })
    expect(validateForUpdate(none, obj({ uid: "u", resourceVersion: "1", labels: { ok: "yes" } }), old)).toEqual([])
    expect(validateForUpdate(none, obj({ uid: "u", resourceVersion: "1", annotations: { a: "x".repeat(262_144) } }), old).map(formatFieldError)).toEqual([
      "metadata.annotations: Too long: must have at most 262144 bytes"
    ])
    expect(validateForUpdate(none, obj({ uid: "v", resourceVersion: "1", finalizers: ["nope"] }), old).map(formatFieldError)).toEqual([
      'metadata.uid: Invalid value: "v": field is immutable',
      'metadata.finalizers[0]: Invalid value: "nope": name is neither a standard finalizer name nor is it fully qualified'
    ])
  })

  it("ObjectMeta errors come before the kind's", () => {
    const rules: KindRules = { validateCreate: specRule, validateUpdate: specRule }
    expect(validateForCreate(rules, true, obj({ name: "Bad" }, { bad: true })).map((e) => e.field)).toEqual(["metadata.name", "spec.bad"])
    const old = obj({ uid: "u" })
    expect(validateForUpdate(rules, obj({ uid: "x" }, { bad: true }), old).map((e) => e.field)).toEqual(["metadata.uid", "spec.bad"])
  })

  it("a kind that places the ObjectMeta rules itself is left to do so (once)", () => {
    const rules: KindRules = { validatesMetadata: true, validateCreate: specRule, validateUpdate: specRule }
    expect(validateForCreate(rules, true, obj({ name: "Bad" }, { bad: true })).map((e) => e.field)).toEqual(["spec.bad"])
    expect(validateForUpdate(rules, obj({ uid: "x" }), obj({ uid: "u" }))).toEqual([])
  })
})

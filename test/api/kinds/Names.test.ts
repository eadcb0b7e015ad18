import { describe, expect, it } from "@effect/vitest"
import { aggregate, formatFieldError } from "../../../src/api/FieldError.js"
import type { KObject } from "../../../src/api/Object.js"
import {
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSSubdomain,
  validateObjectMetaCreate,
  validateObjectMetaUpdate
} from "../../../src/api/kinds/Names.js"

const SUBDOMAIN =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
const LABEL =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
const QUALIFIED =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

describe("name syntax", () => {
  it("DNS-1123 subdomain", () => {
    for (const ok of ["a", "a.b", "0-a.b-9", "x".repeat(253)]) expect(isDNS1123Subdomain(ok)).toEqual([])
    for (const bad of ["", "A", "a..b", ".a", "a.", "-a", "a-", "a_b", "a.-b"]) expect(isDNS1123Subdomain(bad)).toEqual([SUBDOMAIN])
    expect(isDNS1123Subdomain("x".repeat(254))).toEqual(["must be no more than 253 characters"])
    expect(isDNS1123Subdomain("X".repeat(254))).toEqual(["must be no more than 253 characters", SUBDOMAIN])
  })

  it("DNS-1123 label", () => {
    expect(isDNS1123Label("my-name")).toEqual([])
    expect(isDNS1123Label("a.b")).toEqual([LABEL])
    expect(isDNS1123Label("x".repeat(64))).toEqual(["must be no more than 63 characters"])
  })

  it("qualified name, with the double spaces of the upstream text", () => {
    expect(isQualifiedName("my.Name_1")).toEqual([])
    expect(isQualifiedName("example.com/My-name")).toEqual([])
    expect(isQualifiedName("")).toEqual(["name part must be non-empty", `name part ${QUALIFIED}`])
    expect(isQualifiedName("-x")).toEqual([`name part ${QUALIFIED}`])
    expect(isQualifiedName("/x")).toEqual(["prefix part must be non-empty"])
    expect(isQualifiedName("Bad_/x")).toEqual([`prefix part ${SUBDOMAIN}`])
    expect(isQualifiedName("x".repeat(64))).toEqual(["name part must be no more than 63 characters"])
    expect(isQualifiedName("a/b/c")).toEqual([
      `a qualified name ${QUALIFIED} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`
    ])
  })

  it("label values may be empty", () => {
    expect(isValidLabelValue("")).toEqual([])
    expect(isValidLabelValue("a b")).toHaveLength(1)
    expect(isValidLabelValue("a b")[0]).toMatch(/^a valid label must be an empty string or consist of/)
  })

  it("a generateName prefix may end with a dash", () => {
    expect(nameIsDNSSubdomain("web-", true)).toEqual([])
    expect(nameIsDNSSubdomain("web-", false)).toEqual([SUBDOMAIN])
  })

  it("is linear on long hostile input", () => {
    const start = performance.now()
    expect(isDNS1123Subdomain(`${"a-".repeat(500_000)}-`)).toHaveLength(2)
    expect(performance.now() - start).toBeLessThan(500)
  })
})

const obj = (metadata: Record<string, unknown>): KObject => ({ metadata })

describe("validateObjectMetaCreate", () => {
  it("accepts a plain named object", () => {
    expect(validateObjectMetaCreate(obj({ name: "x", namespace: "default" }), true)).toEqual([])
  })

  it("requires a name or generateName", () => {
    expect(aggregate(validateObjectMetaCreate(obj({ namespace: "default" }), true))).toBe(
      "metadata.name: Required value: name or generateName is required"
    )
  })

  it("checks name, generateName and namespace syntax in order", () => {
    const errs = validateObjectMetaCreate(obj({ name: "Bad", generateName: "Bad-", namespace: "a.b" }), true)
    expect(errs.map(formatFieldError)).toEqual([
      `metadata.generateName: Invalid value: "Bad-": ${SUBDOMAIN}`,
      `metadata.name: Invalid value: "Bad": ${SUBDOMAIN}`,
      `metadata.namespace: Invalid value: "a.b": ${LABEL}`
    ])
  })

  it("requires or forbids the namespace by scope", () => {
    expect(aggregate(validateObjectMetaCreate(obj({ name: "x" }), true))).toBe("metadata.namespace: Required value")
    expect(aggregate(validateObjectMetaCreate(obj({ name: "x", namespace: "d" }), false))).toBe(
      "metadata.namespace: Forbidden: not allowed on this type"
    )
  })

  it("checks labels, annotations, owner references and finalizers", () => {
    const errs = validateObjectMetaCreate(
      obj({
        name: "x",
        namespace: "d",
        generation: -1,
        labels: { "a/b/c": "ok", good: "bad value" },
        annotations: { "Example.com/Key": "fine", "-bad": "" },
        ownerReferences: [{ apiVersion: "apps/", kind: "", name: "n", uid: "u" }],
        finalizers: ["orphan", "foregroundDeletion", "custom", "example.com/ok"]
      }),
      true
    ).map(formatFieldError)
    expect(errs).toEqual([
      "metadata.generation: Invalid value: -1: must be greater than or equal to 0",
      `metadata.labels: Invalid value: "a/b/c": a qualified name ${QUALIFIED} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
      expect.stringMatching(/^metadata\.labels: Invalid value: "bad value": a valid label must be an empty string/),
      `metadata.annotations: Invalid value: "-bad": name part ${QUALIFIED}`,
      'metadata.ownerReferences.apiVersion: Invalid value: "apps/": version must not be empty',
      'metadata.ownerReferences.kind: Invalid value: "": kind must not be empty',
      'metadata.finalizers: Invalid value: []string{"orphan", "foregroundDeletion", "custom", "example.com/ok"}: finalizer orphan and foregroundDeletion cannot be both set',
      'metadata.finalizers[2]: Invalid value: "custom": name is neither a standard finalizer name nor is it fully qualified'
    ])
  })

  it("limits the total annotation size", () => {
    expect(aggregate(validateObjectMetaCreate(obj({ name: "x", namespace: "d", annotations: { a: "x".repeat(262144) } }), true))).toBe(
      "metadata.annotations: Too long: must have at most 262144 bytes"
    )
    expect(validateObjectMetaCreate(obj({ name: "x", namespace: "d", annotations: { a: "x".repeat(262143) } }), true)).toEqual([])
  })
})

describe("validateObjectMetaUpdate", () => {
  const stored = {
    name: "x",
    namespace: "d",
    uid: "u1",
    resourceVersion: "5",
    creationTimestamp: "2023-05-01T12:00:00Z"
  }

  it("accepts an unchanged identity", () => {
    expect(validateObjectMetaUpdate(obj({ ...stored, labels: { a: "b" } }), obj(stored))).toEqual([])
    // The same instant written with an offset is the same time.
    expect(validateObjectMetaUpdate(obj({ ...stored, creationTimestamp: "2023-05-01T14:00:00+02:00" }), obj(stored))).toEqual([])
  })

  it("reports immutable fields in upstream order", () => {
    const errs = validateObjectMetaUpdate(
      obj({ name: "y", namespace: "e", uid: "u2", creationTimestamp: "2023-05-02T00:00:00Z", deletionGracePeriodSeconds: 30 }),
      obj(stored)
    ).map(formatFieldError)
    expect(errs).toEqual([
      'metadata.name: Invalid value: "y": field is immutable',
      'metadata.namespace: Invalid value: "e": field is immutable',
      'metadata.uid: Invalid value: "u2": field is immutable',
      "metadata.creationTimestamp: Invalid value: 2023-05-02 00:00:00 +0000 UTC: field is immutable",
      "metadata.deletionGracePeriodSeconds: Invalid value: 30: field is immutable"
    ])
  })

  it("prints an unset deletionTimestamp as null", () => {
    expect(
      aggregate(validateObjectMetaUpdate(obj(stored), obj({ ...stored, deletionTimestamp: "2023-05-01T12:00:00Z" })))
    ).toBe('metadata.deletionTimestamp: Invalid value: "null": field is immutable')
  })

  it("forbids new finalizers while deleting", () => {
    const deleting = { ...stored, deletionTimestamp: "2023-05-01T12:00:00Z", finalizers: ["a.io/x"] }
    expect(aggregate(validateObjectMetaUpdate(obj({ ...deleting, finalizers: ["z.io/b", "a.io/x", "b.io/a"] }), obj(deleting)))).toBe(
      'metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"b.io/a", "z.io/b"}'
    )
  })

  it("forbids decrementing generation", () => {
    expect(aggregate(validateObjectMetaUpdate(obj({ ...stored, generation: 1 }), obj({ ...stored, generation: 2 })))).toBe(
      "metadata.generation: Invalid value: 1: must not be decremented"
    )
  })
})

import { describe, expect, it } from "@effect/vitest"
import {
  decodesCleanly,
  FieldSchema,
  goTypeOf,
  kindSchema,
  objectMetaSchema,
  splitUnknownFields,
  typeError,
  unknownFields
} from "../../../src/api/kinds/FieldSchema.js"
import { eventSchema } from "../../../src/api/kinds/Event.js"
import { leaseSchema } from "../../../src/api/kinds/Lease.js"

const lease = (spec: unknown, metadata: unknown = { name: "x" }) => ({
  apiVersion: "coordination.platform/v1",
  kind: "Lease",
  metadata,
  spec
})
const leaseError = (obj: unknown, body?: string) => typeError(leaseSchema, obj, "Lease", "v1", body)
const prefix = 'Lease in version "v1" cannot be handled as a Lease: '

describe("unknownFields", () => {
  it("reports nothing for a fully known object", () => {
    expect(
      unknownFields(
        leaseSchema,
        lease(
          { holderIdentity: "a", leaseDurationSeconds: 40, renewTime: "2023-05-01T12:00:00.000000Z" },
          { name: "x", labels: { a: "b" }, ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n", uid: "u" }] }
        )
      )
    ).toEqual([])
  })

  it("names unknown fields at every depth in document order", () => {
    const obj = {
      foo: 1,
      metadata: { name: "x", bar: true, ownerReferences: [{ kind: "Node" }, { kind: "Node", extra: 1 }] },
      spec: { strategy: "Older", holderIdentity: "a", preferredHolder: "b" },
      zed: { deep: { deeper: 1 } }
    }
    expect(unknownFields(leaseSchema, obj)).toEqual([
      "foo",
      "metadata.bar",
      "metadata.ownerReferences[1].extra",
      "spec.strategy",
      "spec.preferredHolder",
      "zed"
    ])
  })

  it("does not look below values of the wrong type or free-form fields", () => {
    expect(unknownFields(leaseSchema, lease("not-an-object"))).toEqual([])
    expect(
      unknownFields(leaseSchema, lease({}, { name: "x", managedFields: [{ manager: "m", fieldsV1: { "f:a": {} }, bogus: 1 }] }))
    ).toEqual(["metadata.managedFields[0].bogus"])
  })

  it("walks Event fields with their own names", () => {
    expect(
      unknownFields(eventSchema, {
        metadata: { name: "e" },
        note: "n",
        message: "core name, unknown here",
        series: { count: 2, lastObservedTime: "2023-05-01T12:00:00.000000Z", state: "Ongoing" },
        deprecatedSource: { component: "c", host: "h", zone: "z" },
        regarding: { kind: "Pod", fieldPath: "spec", path: "x" }
      })
    ).toEqual(["message", "series.state", "deprecatedSource.zone", "regarding.path"])
  })

  it("knows every ObjectMeta field", () => {
    const fields = (objectMetaSchema as Extract<FieldSchema, { type: "object" }>).fields
    expect(Object.keys(fields).sort()).toEqual(
      [
        "annotations",
        "creationTimestamp",
        "deletionGracePeriodSeconds",
        "deletionTimestamp",
        "finalizers",
        "generateName",
        "generation",
        "labels",
        "managedFields",
        "name",
        "namespace",
        "ownerReferences",
        "resourceVersion",
        "selfLink",
        "uid"
      ].sort()
    )
  })
})

describe("typeError", () => {
  it("accepts a well-typed object, nulls included", () => {
    expect(
      leaseError(
        lease(
          {
            holderIdentity: null,
            leaseDurationSeconds: 2147483647,
            acquireTime: "2023-05-01T12:00:00.123456Z",
            renewTime: "2023-05-01T14:00:00.000000+02:00",
            leaseTransitions: 0
          },
          { name: "x", creationTimestamp: null, generation: 3, deletionTimestamp: "2023-05-01T12:00:00Z", labels: {} }
        )
      )
    ).toBeUndefined()
  })

  it("reports a wrong JSON type with the struct, JSON path and Go type", () => {
    expect(leaseError(lease({ leaseDurationSeconds: "15" }))).toBe(
      `${prefix}json: cannot unmarshal string into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32`
    )
    expect(leaseError(lease({ holderIdentity: 5 }))).toBe(
      `${prefix}json: cannot unmarshal number into Go struct field LeaseSpec.spec.holderIdentity of type string`
    )
    expect(leaseError(lease({ holderIdentity: true }))).toBe(
      `${prefix}json: cannot unmarshal bool into Go struct field LeaseSpec.spec.holderIdentity of type string`
    )
    expect(leaseError(lease("x"))).toBe(`${prefix}json: cannot unmarshal string into Go struct field Lease.spec of type v1.LeaseSpec`)
    expect(leaseError(lease([]))).toBe(`${prefix}json: cannot unmarshal array into Go struct field Lease.spec of type v1.LeaseSpec`)
    expect(leaseError(lease({}, "x"))).toBe(`${prefix}json: cannot unmarshal string into Go struct field Lease.metadata of type v1.ObjectMeta`)
  })

  it("prints the number literal for integers that do not fit", () => {
    expect(leaseError(lease({ leaseDurationSeconds: 1.5 }))).toBe(
      `${prefix}json: cannot unmarshal number 1.5 into Go struct field LeaseSpec.spec.leaseDurationSeconds of type int32`
    )
    expect(leaseError(lease({ leaseTransitions: 2147483648 }))).toBe(
      `${prefix}json: cannot unmarshal number 2147483648 into Go struct field LeaseSpec.spec.leaseTransitions of type int32`
    )
    expect(leaseError(lease({ leaseTransitions: -2147483648 }))).toBeUndefined()
    expect(leaseError(lease({}, { generation: 2147483648 }))).toBeUndefined()
  })

  it("names maps, slices and their elements like Go", () => {
    expect(leaseError(lease({}, { labels: { a: 1 } }))).toBe(
      `${prefix}json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string`
    )
    expect(leaseError(lease({}, { labels: ["a"] }))).toBe(
      `${prefix}json: cannot unmarshal array into Go struct field ObjectMeta.metadata.labels of type map[string]string`
    )
    expect(leaseError(lease({}, { finalizers: "a" }))).toBe(
      `${prefix}json: cannot unmarshal string into Go struct field ObjectMeta.metadata.finalizers of type []string`
    )
    expect(leaseError(lease({}, { finalizers: ["a", 1] }))).toBe(
      `${prefix}json: cannot unmarshal number into Go struct field ObjectMeta.metadata.finalizers of type string`
    )
    expect(leaseError(lease({}, { uid: 7 }))).toBe(
      `${prefix}json: cannot unmarshal number into Go struct field ObjectMeta.metadata.uid of type types.UID`
    )
    // Array indices are not part of the path; the struct is the element's.
    expect(leaseError(lease({}, { ownerReferences: [{}, { controller: "yes" }] }))).toBe(
      `${prefix}json: cannot unmarshal string into Go struct field OwnerReference.metadata.ownerReferences.controller of type bool`
    )
    expect(leaseError(lease({}, { ownerReferences: {} }))).toBe(
      `${prefix}json: cannot unmarshal object into Go struct field ObjectMeta.metadata.ownerReferences of type []v1.OwnerReference`
    )
  })

  it("reports the first of several type errors", () => {
    expect(leaseError(lease({ leaseDurationSeconds: "a", leaseTransitions: "b" }, { name: 1 }))).toBe(
      `${prefix}json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string`
    )
  })

  it("ignores unknown fields", () => {
    expect(leaseError(lease({ strategy: 5, holderIdentity: "a" }))).toBeUndefined()
  })

  it("rejects a MicroTime without exactly six fractional digits", () => {
    const micro = (t: string, tail: string) =>
      expect(leaseError(lease({ renewTime: t }))).toBe(
        `${prefix}parsing time "${t}" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ${tail} as ".000000"`
      )
    micro("2023-05-01T12:00:00Z", '"Z"')
    micro("2023-05-01T12:00:00.000Z", '".000Z"')
    micro("2023-05-01T12:00:00.00000Z", '".00000Z"')
    expect(leaseError(lease({ renewTime: "2023-05-01T12:00:00.000000000Z" }))).toBe(
      `${prefix}parsing time "2023-05-01T12:00:00.000000000Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "000Z" as "Z07:00"`
    )
  })

  it("stops at a bad time even after an earlier type error", () => {
    expect(leaseError(lease({ leaseDurationSeconds: "x", acquireTime: "2023-05-01T12:00:00Z" }))).toBe(
      `${prefix}parsing time "2023-05-01T12:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"`
    )
  })

  it("reports a non-string time as the inner string decode failing", () => {
    expect(leaseError(lease({ renewTime: 5 }))).toBe(
      `${prefix}json: cannot unmarshal number into Go struct field LeaseSpec.spec.renewTime of type string`
    )
    expect(leaseError(lease({}, { creationTimestamp: {} }))).toBe(
      `${prefix}json: cannot unmarshal object into Go struct field ObjectMeta.metadata.creationTimestamp of type string`
    )
  })

  it("accepts RFC3339 times with any fraction, rejects others", () => {
    expect(leaseError(lease({}, { creationTimestamp: "2023-05-01T12:00:00.5Z" }))).toBeUndefined()
    expect(leaseError(lease({}, { creationTimestamp: "2023-05-01" }))).toBe(
      `${prefix}parsing time "2023-05-01" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"`
    )
  })

  it("uses the Event struct names", () => {
    const err = typeError(eventSchema, { series: { count: "2" } }, "Event", "v1")
    expect(err).toBe(
      'Event in version "v1" cannot be handled as a Event: json: cannot unmarshal string into Go struct field EventSeries.series.count of type int32'
    )
    expect(typeError(eventSchema, { deprecatedCount: 1.5 }, "Event", "v1")).toBe(
      'Event in version "v1" cannot be handled as a Event: json: cannot unmarshal number 1.5 into Go struct field Event.deprecatedCount of type int32'
    )
    expect(typeError(eventSchema, { eventTime: "2023-05-01T12:00:00Z" }, "Event", "v1")).toBe(
      'Event in version "v1" cannot be handled as a Event: parsing time "2023-05-01T12:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"'
    )
  })

  it("reports apiVersion/kind errors from the version sniffing decoder", () => {
    const body = '{"kind":5,"apiVersion":"coordination.platform/v1","metadata":{"name":"x"}}'
    expect(leaseError(JSON.parse(body), body)).toBe(
      'the object provided is unrecognized (must be of type Lease): couldn\'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({"kind":5,"apiVersion":"coordi ...)'
    )
    expect(leaseError({ apiVersion: "a/b/c" }, '{"apiVersion":"a/b/c"}')).toBe(
      'the object provided is unrecognized (must be of type Lease): unexpected GroupVersion string: a/b/c ({"apiVersion":"a/b/c"})'
    )
  })
})

describe("schema constructors", () => {
  it("derive Go type names", () => {
    expect(goTypeOf(FieldSchema.map(FieldSchema.string()))).toBe("map[string]string")
    expect(goTypeOf(FieldSchema.array(FieldSchema.int64()))).toBe("[]int64")
    expect(goTypeOf(kindSchema({}))).toBe("struct {}")
  })
})

describe("decodesCleanly", () => {
  const spec = { holderIdentity: "a", leaseDurationSeconds: 40, renewTime: "2023-05-01T12:00:00.000000Z" }
  const bodies: Array<[string, Record<string, unknown>]> = [
    ["clean", lease(spec, { name: "x", labels: { a: "b" } })],
    ["a wrong type", lease({ ...spec, leaseDurationSeconds: "40" })],
    ["an int32 out of range", lease({ ...spec, leaseDurationSeconds: 2 ** 31 })],
    ["an unknown field", lease({ ...spec, strategy: "Older" })],
    ["an unknown top-level field", { ...lease(spec), extra: 1 }],
    ["a time with an offset (valid, but not canonical)", lease({ ...spec, renewTime: "2023-05-01T14:00:00.000000+02:00" })],
    ["a malformed time", lease({ ...spec, renewTime: "2023-05-01T12:00:00Z" })],
    ["an apiVersion with two slashes", { ...lease(spec), apiVersion: "a/b/c" }],
    ["a kind that is not a string", { ...lease(spec), kind: 3 }]
  ]

  it("is true exactly when there is neither a type error nor an unknown field, and canonical times", () => {
    const verdicts = bodies.map(([what, body]) => [what, decodesCleanly(leaseSchema, body)])
    expect(verdicts).toEqual(bodies.map(([what]) => [what, what === "clean"]))
    for (const [, body] of bodies) {
      if (decodesCleanly(leaseSchema, body)) {
        expect(leaseError(body)).toBeUndefined()
        expect(splitUnknownFields(leaseSchema, body).unknown).toEqual([])
      }
    }
  })

  it("does not walk top-level parts identical to the stored object's", () => {
    const stored = { metadata: { name: "x", labels: { a: "b" } }, spec }
    // a part taken from the stored object is trusted; a fresh part with the same bad shape is not
    const trusted = { metadata: stored.metadata, spec: { ...spec, renewTime: "2023-05-01T12:00:01.000000Z" } }
    expect(decodesCleanly(leaseSchema, trusted, stored)).toBe(true)
    expect(decodesCleanly(leaseSchema, { ...trusted, spec: { ...spec, leaseDurationSeconds: "x" } }, stored)).toBe(false)
    expect(decodesCleanly(leaseSchema, { ...trusted, metadata: { name: 1 } }, stored)).toBe(false)
  })
})

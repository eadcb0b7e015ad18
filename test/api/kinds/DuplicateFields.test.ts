import { describe, expect, it } from "@effect/vitest"
import { duplicateFields, strictDecodingErrors } from "../../../src/api/kinds/DuplicateFields.js"
import { leaseSchema } from "../../../src/api/kinds/Lease.js"

describe("duplicateFields", () => {
  it("finds nothing in a clean body", () => {
    expect(duplicateFields('{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}')).toEqual([])
  })

  it("reports top-level and nested duplicates with their paths, in document order", () => {
    const json = '{"metadata":{"name":"a","labels":{"x":"1","x":"2"},"name":"b"},"kind":"Lease","kind":"Lease"}'
    expect(duplicateFields(json)).toEqual(["metadata.labels.x", "metadata.name", "kind"])
  })

  it("indexes array elements", () => {
    const json = '{"items":[{"a":1},{"a":1,"a":2},[{"b":1,"b":2}]]}'
    expect(duplicateFields(json)).toEqual(["items[1].a", "items[2][0].b"])
  })

  it("reports a path once however often it repeats", () => {
    expect(duplicateFields('{"a":1,"a":2,"a":3}')).toEqual(["a"])
  })

  it("compares decoded keys and is not fooled by strings, escapes or whitespace", () => {
    const json = ' { "a\\u0062" : "{\\"x\\":1,\\"x\\":2}" ,\n\t"ab" : [ "]" , "}" ] , "q\\"" : 1, "q\\"": 2 } '
    expect(duplicateFields(json)).toEqual(["ab", 'q"'])
  })

  it("handles scalars and empty containers", () => {
    expect(duplicateFields("5")).toEqual([])
    expect(duplicateFields('"x"')).toEqual([])
    expect(duplicateFields("{}")).toEqual([])
    expect(duplicateFields('{"a":{},"b":[],"c":null,"d":true,"e":-1.5e3,"a":[]}')).toEqual(["a"])
  })

  it("survives deep nesting without recursion", () => {
    const depth = 100_000
    const json = `${'{"a":'.repeat(depth)}{"b":1,"b":2}${"}".repeat(depth)}`
    const out = duplicateFields(json)
    expect(out).toHaveLength(1)
    expect(out[0]!.endsWith(".a.b")).toBe(true)
  })

  // Speed is a benchmark's concern (never timed in a unit test): here only that a large body is scanned whole.
  it("scans a 3 MiB body to its end", () => {
    const item = '{"name":"n","labels":{"a":"b","c":"d"},"values":[1,2,3,"x\\"y"]}'
    const count = Math.ceil((3 * 1024 * 1024) / item.length)
    const json = `{"items":[${Array(count).fill(item).join(",")}],"items":[]}`
    expect(duplicateFields(json)).toEqual(["items"])
  })
})

describe("with a schema", () => {
  it("follows the strict decoder: unknown fields are reported once and not looked into", () => {
    const json =
      '{"spec":{"foo":{"x":1,"x":2},"foo":1,"holderIdentity":"a","holderIdentity":"b"},"metadata":{"name":"a","name":"b"}}'
    expect(duplicateFields(json, leaseSchema)).toEqual(["spec.holderIdentity", "metadata.name"])
    expect(strictDecodingErrors(json, leaseSchema)).toEqual([
      'unknown field "spec.foo"',
      'duplicate field "spec.holderIdentity"',
      'duplicate field "metadata.name"'
    ])
  })

  it("does not look into time values or values of the wrong type", () => {
    const json = '{"spec":{"renewTime":{"a":1,"a":2},"holderIdentity":{"a":1,"a":2}}}'
    expect(strictDecodingErrors(json, leaseSchema)).toEqual([])
  })

  it("walks maps and arrays of structs, with indices", () => {
    const json =
      '{"metadata":{"labels":{"k":"1","k":"2"},"ownerReferences":[{"name":"a"},{"name":"a","name":"b","bogus":1}]},"extra":[1]}'
    expect(strictDecodingErrors(json, leaseSchema)).toEqual([
      'duplicate field "metadata.labels.k"',
      'duplicate field "metadata.ownerReferences[1].name"',
      'unknown field "metadata.ownerReferences[1].bogus"',
      'unknown field "extra"'
    ])
  })

  it("escapes quotes in the path like Go's %q", () => {
    expect(strictDecodingErrors('{"a\\"b":1}', leaseSchema)).toEqual(['unknown field "a\\"b"'])
  })

  it("escapes control and non-printable runes like Go's %q (\\a, \\x7f, \\u00a0), keeps printable Unicode", () => {
    expect(strictDecodingErrors('{"a\\u0007\\u007f\\u00a0é":1}', leaseSchema)).toEqual([String.raw`unknown field "a\a\x7f\u00a0é"`])
  })
})

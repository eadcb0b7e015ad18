import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { ListInSlices } from "../../src/client/ListInSlices.js"

/** Every step's value and the number of steps taken; a throw is returned, not raised. */
const sliced = (text: string, sliceBytes = 16): { value?: unknown; error?: unknown; steps: number } => {
  const decoder = new ListInSlices(Buffer.from(text, "utf8"), sliceBytes)
  let steps = 0
  try {
    for (;;) {
      steps++
      if (decoder.step()) return { value: decoder.value, steps }
    }
  } catch (error) {
    return { error, steps }
  }
}

const whole = (text: string): { value?: unknown; error?: unknown } => {
  try {
    return { value: JSON.parse(text) }
  } catch (error) {
    return { error }
  }
}

/** Same value with the same key order as `JSON.parse`, or the same error. */
const expectSameAsJsonParse = (text: string, sliceBytes = 16) => {
  const a = sliced(text, sliceBytes)
  const b = whole(text)
  if ("error" in b) {
    expect(a.error).toBeInstanceOf(SyntaxError)
    expect((a.error as Error).message).toBe((b.error as Error).message)
  } else {
    expect(a.error).toBeUndefined()
    expect(JSON.stringify(a.value)).toBe(JSON.stringify(b.value))
    expect(a.value).toStrictEqual(b.value)
  }
}

const configMap = (i: number) => ({ metadata: { name: `cm-${i}`, namespace: "storm", resourceVersion: String(100 + i) }, data: { payload: "0123456789abcdef".repeat(3) } })
const list = (n: number) => ({ kind: "ConfigMapList", apiVersion: "v1", metadata: { resourceVersion: "4711" }, items: Array.from({ length: n }, (_, i) => configMap(i)) })

describe("ListInSlices", () => {
  it("parses a list's items a slice per step, the result equal to JSON.parse, key order included", () => {
    const text = JSON.stringify(list(3000))
    const result = sliced(text, 64 * 1024)
    expect(result.value).toStrictEqual(JSON.parse(text))
    expect(JSON.stringify(result.value)).toBe(text)
    // ~330 KB of items in 64 KiB slices: several steps, none parsing the whole
    expect(result.steps).toBeGreaterThanOrEqual(Math.floor(Buffer.byteLength(text) / (64 * 1024)))
    expect(result.steps).toBeLessThanOrEqual(Math.ceil(Buffer.byteLength(text) / (64 * 1024)) + 1)
  })

  it("a step parses no more than one slice and one item", () => {
    const text = JSON.stringify(list(200))
    const original = JSON.parse
    const parsed: Array<number> = []
    JSON.parse = ((s: string, ...rest: []) => (parsed.push(s.length), original(s, ...rest))) as typeof JSON.parse
    try {
      sliced(text, 1024)
    } finally {
      JSON.parse = original
    }
    const item = JSON.stringify(configMap(199)).length + 1
    expect(Math.max(...parsed)).toBeLessThanOrEqual(1024 + item + 2)
    // the envelope, then slices of at least 1 KiB and at most one item more
    expect(parsed.length).toBeGreaterThanOrEqual(1 + Math.floor((200 * item) / (1024 + item)))
  })

  it.each([
    ["escaped quotes and backslashes", String.raw`{"items":[{"a":"say \"hi\" \\"},{"b":"\\\\"},{"c":"\\\"]}"}],"kind":"L"}`],
    ["brackets and braces inside strings", `{"kind":"L","items":[{"a":"]}],{["},"}{",{"x":["[","]"]}]}`],
    ["unicode, escaped and raw", `{"items":[{"ü":"日本語 \\u00e9 \\ud83d\\ude00 😀"},"\\u2028"],"metadata":{}}`],
    ["nested arrays and scalars as items", `{"items":[[1,[2,[3]]],null,true,false,-1.5e3,"s",{},[]]}`],
    ["an empty items array", `{"kind":"L","items":[],"metadata":{"resourceVersion":"1"}}`],
    ["whitespace everywhere", ` \n{ "kind" : "L" ,\t"items" :\r\n [ {"a" : 1} ,\n {"b":2}\n ] , "x" : [ ] }\n `],
    ["items first, envelope after", `{"items":[{"a":1},{"a":2}],"kind":"L","metadata":{"continue":"abc"}}`],
    ["a key spelled with escapes", `{"kind":"L","ite\\u006ds":[{"a":1},{"a":2}]}`],
    ["a nested items key only", `{"metadata":{"items":[1,2]},"spec":{"items":[3]}}`],
    ["items that is not an array", `{"items":null,"kind":"L"}`],
    ["a second items key (the last one wins)", `{"items":[{"a":1},{"a":2}],"items":[{"b":3}]}`],
    ["a second items key that is not an array", `{"items":[{"a":1}],"items":"x"}`],
    ["an empty object", `{}`],
    ["not an object", `[{"items":[1]}]`],
    ["__proto__ as a key", `{"__proto__":{"x":1},"items":[{"__proto__":[1]}]}`]
  ])("equal to JSON.parse: %s", (_name, text) => {
    expectSameAsJsonParse(text, 1)
    expectSameAsJsonParse(text, 1024)
  })

  it.each([
    ["a missing comma between items", `{"items":[{"a":1} {"b":2}]}`],
    ["a trailing comma", `{"items":[{"a":1},]}`],
    ["two commas", `{"items":[{"a":1},,{"b":2}]}`],
    ["an unterminated string in an item", `{"items":[{"a":"x]}]}`],
    ["a mismatched bracket in an item", `{"items":[{"a":1]]}`],
    ["a bad scalar item", `{"items":[tru,1]}`],
    ["garbage after the document", `{"items":[1,2]} x`],
    ["a malformed envelope after the items", `{"items":[1,2],"kind":}`],
    ["a malformed envelope before the items", `{"kind":"L" "items":[1]}`],
    ["an unclosed items array", `{"items":[1,2`],
    ["a byte order mark", `\ufeff{"items":[1]}`],
    ["an empty text", ``]
  ])("the error of JSON.parse: %s", (_name, text) => {
    expectSameAsJsonParse(text, 1)
    expectSameAsJsonParse(text, 1024)
  })

  it("equal to JSON.parse on generated documents and slice sizes", () => {
    const key = fc.oneof(fc.constantFrom("items", "kind", "metadata", "a", "\"", "\\", "]", "}"), fc.string())
    const value = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: "small" },
        fc.string({ unit: "binary" }),
        fc.constantFrom("]", "}", "\\", "\"", "[{", "\\\""),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("value"), { maxLength: 4 }),
        fc.dictionary(key, tie("value"), { maxKeys: 4 })
      )
    })).value
    const document = fc.record({ before: fc.dictionary(key, value, { maxKeys: 3 }), items: fc.array(value, { maxLength: 12 }), after: fc.dictionary(key, value, { maxKeys: 3 }) })
    fc.assert(
      fc.property(document, fc.integer({ min: 1, max: 200 }), fc.boolean(), ({ before, items, after }, sliceBytes, spaced) => {
        const text = JSON.stringify({ ...before, items, ...after }, null, spaced ? 2 : undefined)
        expectSameAsJsonParse(text, sliceBytes)
        // cut short anywhere: the same SyntaxError
        expectSameAsJsonParse(text.slice(0, Math.floor(text.length / 2)), sliceBytes)
      }),
      { numRuns: 500 }
    )
  })
})

/** JSON.parse's errors as a line and column (V8 names a character offset, or shows the token in context). */
import { describe, expect, it } from "@effect/vitest"
import { jsonSyntaxPlace } from "../../src/loadgen/JsonSyntaxPlace.js"

const placeOf = (text: string) => {
  try {
    JSON.parse(text)
  } catch (e) {
    return jsonSyntaxPlace(text, e as SyntaxError)
  }
  throw new Error("parsed")
}

describe("jsonSyntaxPlace", () => {
  it("a truncated file: the place it ends, V8's words without the offset", () => {
    expect(placeOf('{\n  "format": "clustersim/run-v2",\n  "scenario": {\n    "name": "trunc')).toEqual({ line: 4, column: 19, message: "Unterminated string in JSON" })
    expect(placeOf('{\n  "format": "clustersim/run-v2",\n')).toEqual({ line: 3, column: 1, message: "Expected double-quoted property name in JSON" })
    expect(placeOf('{\n  "a": 1')).toEqual({ line: 2, column: 9, message: "Expected ',' or '}' after property value in JSON" })
    expect(placeOf("")).toEqual({ line: 1, column: 1, message: "Unexpected end of JSON input" })
  })

  it("an unexpected token: its own place, whether V8's context is cut before, after, both or not at all", () => {
    const row = (before: number, after: number) => `[${"1,".repeat(before)}x${",1".repeat(after)}]`
    for (const [before, after] of [[0, 0], [2, 2], [20, 0], [0, 20], [20, 20], [5, 5]] as const) {
      const text = `{\n  "list":\n${row(before, after)}}`
      expect([before, after, placeOf(text)]).toEqual([before, after, { line: 3, column: 2 + 2 * before, message: "Unexpected token 'x'" }])
    }
  })
})

import { describe, expect, it } from "@effect/vitest"
import { parseDocument } from "yaml"
import { aliasExpansionProblem, containsItself, excessiveAliasing } from "../../../simulator/apiserver/http/YamlAliases.js"

const problem = (text: string, limit: number) => aliasExpansionProblem(parseDocument(text), limit)

describe("YAML alias expansion", () => {
  it("a document without aliases adds nothing, however large", () => {
    expect(problem(`a: "${"x".repeat(10_000)}"\nb: [1, 2, 3]\n`, 0)).toBeUndefined()
  })

  it("counts what each alias adds: one 1,000-byte anchor aliased 10 times adds ~10,000", () => {
    const text = `a: &x "${"x".repeat(1000)}"\n${Array.from({ length: 10 }, (_, i) => `b${i}: *x\n`).join("")}`
    expect(problem(text, 10_100)).toBeUndefined()
    expect(problem(text, 9_900)).toBe(excessiveAliasing)
  })

  it("nested anchors are measured, not expanded: 2^60 copies are refused at once", () => {
    let text = "l0: &l0 [x]\n"
    for (let i = 1; i <= 60; i++) text += `l${i}: &l${i} [*l${i - 1}, *l${i - 1}]\n`
    expect(problem(text, 3 * 1024 * 1024)).toBe(excessiveAliasing)
  })

  it("an anchor whose value holds an alias of itself: go-yaml's text", () => {
    expect(problem("a: &x {b: *x}\n", 1_000_000)).toBe(containsItself("x"))
    expect(problem("a: &loop [1, [2, *loop]]\n", 1_000_000)).toBe(containsItself("loop"))
  })

  it("the texts are sigs.k8s.io/yaml's", () => {
    expect(excessiveAliasing).toBe("error converting YAML to JSON: yaml: document contains excessive aliasing")
    expect(containsItself("x")).toBe("error converting YAML to JSON: yaml: anchor 'x' value contains itself")
  })
})

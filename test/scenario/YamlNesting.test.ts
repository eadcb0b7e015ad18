/**
 * A deeply nested scenario is refused with a located validation error (file:line:col, exit 2), the same wherever
 * it is read — before, `yaml`'s recursive composer overflowed and the message was "Maximum call stack size
 * exceeded" at the position the stack ran out (issue 36, item 10).
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { validateFiles } from "../../app/cli/validate.js"
import { parseScenario } from "../../app/scenario/load.js"
import { MaxYamlNesting, nestingPastBound } from "../../app/scenario/YamlNesting.js"

const head = `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: deep }
setup:
  objects:
    - name: cms
      resource: configmaps
      namespace: default
      count: 1
      template: `

/** The template nests `levels` flow sequences; the scenario's own nesting adds 4 (root, setup, objects, the item). */
const flow = (levels: number) => `${head}${"[".repeat(levels)}${"]".repeat(levels)}\nphases: []\n`


/** The template nests `levels` + 1 block maps (the last holds `b`). */
const block = (levels: number) => `${head}\n${Array.from({ length: levels }, (_, i) => `${"  ".repeat(i + 4)}a:\n`).join("")}${"  ".repeat(levels + 4)}b: 1\nphases: []\n`

describe("YAML nesting", () => {
  it("finds the first collection past the bound, without recursion, flow or block", () => {
    expect(MaxYamlNesting).toBe(256)
    expect(nestingPastBound(flow(MaxYamlNesting - 4))).toBeUndefined()
    expect(nestingPastBound(flow(MaxYamlNesting - 3))).toBe(head.length + MaxYamlNesting - 4)
    expect(nestingPastBound(flow(100_000))).toBe(head.length + MaxYamlNesting - 4)
    expect(nestingPastBound(block(MaxYamlNesting - 5))).toBeUndefined()
    expect(nestingPastBound(block(MaxYamlNesting - 4))).toBeDefined()
    expect(nestingPastBound(block(3_000))).toBeDefined()
    expect(nestingPastBound("a: [1, {b: [2]}]\n", 4)).toBeUndefined()
    expect(nestingPastBound("a: [1, {b: [2]}]\n", 3)).toBe(11)
    // quotes, comments and block scalars hold no levels
    expect(nestingPastBound('a: "[[[" # {{{\nb: |\n  [[[[\n  - - - -\nc: 1\n', 1)).toBeUndefined()
  })

  it("a scenario nested past the bound is a located validation error, the same for 1,000 and 100,000 levels", () => {
    const messages = [1_000, 100_000].map((n) => {
      const r = parseScenario(flow(n), "deep.yaml")
      return Either.isLeft(r) ? r.left.message : "accepted"
    })
    expect(messages).toEqual([`deep.yaml:10:${17 + MaxYamlNesting - 4}: YAML: nested deeper than 256 levels`, `deep.yaml:10:${17 + MaxYamlNesting - 4}: YAML: nested deeper than 256 levels`])
    const b = parseScenario(block(5_000), "deep.yaml")
    expect(Either.isLeft(b) && b.left.message).toBe(`deep.yaml:${10 + MaxYamlNesting - 3}:${2 * (MaxYamlNesting - 3) + 7}: YAML: nested deeper than 256 levels`)
  })

  it("a scenario at the bound still reads", () => {
    const r = parseScenario(flow(MaxYamlNesting - 4), "ok.yaml")
    // read past the YAML: what is left to say is about the scenario's fields, not its nesting
    expect(Either.isLeft(r) ? r.left.message : "").not.toContain("nested deeper")
  })

  it("validate: exit 2 naming the file, line and column", () => {
    const file = join(mkdtempSync(join(tmpdir(), "clustersim-deep-")), "deep.yaml")
    writeFileSync(file, flow(5_000))
    const err: Array<string> = []
    expect(validateFiles([file], () => {}, (s) => void err.push(s))).toBe(2)
    expect(err.join("")).toBe(`${file}:10:${17 + MaxYamlNesting - 4}: YAML: nested deeper than 256 levels\n`)
  })
})

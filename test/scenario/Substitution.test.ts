import { Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { parseScenario } from "../../app/scenario/load.js"
import { plainScalarValue, substituteString } from "../../app/scenario/Substitution.js"

const scenario = (cluster: string) => `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: t
  description: "\${DESCRIPTION:-a what-if}"
# a comment may mention \${ANYTHING} and $\{NOT_CLOSED
cluster:
${cluster}
phases: []
`

const load = (text: string, env: Record<string, string>) => parseScenario(text, "s.yaml", undefined, { env })
const loaded = (text: string, env: Record<string, string>) => {
  const r = load(text, env)
  if (Either.isLeft(r)) throw new Error(r.left.message)
  return r.right
}
const errors = (text: string, env: Record<string, string>) => {
  const r = load(text, env)
  if (Either.isRight(r)) throw new Error("expected the file to be refused")
  return r.left.message.split("\n")
}

describe("${VAR} in scenario files", () => {
  it("substitutes in strings: set, unset with a default, empty with a default (as the shell's :-), the $${ escape", () => {
    expect(substituteString("a-${X}-b", { X: "1" })).toEqual({ value: "a-1-b", names: ["X"] })
    expect(substituteString("${X:-5s}", {})).toEqual({ value: "5s", names: ["X"] })
    expect(substituteString("${X:-5s}", { X: "" })).toEqual({ value: "5s", names: ["X"] })
    expect(substituteString("${X}", { X: "" })).toEqual({ value: "", names: ["X"] })
    expect(substituteString("$${X} costs $5", {})).toEqual({ value: "${X} costs $5", names: [] })
    expect(substituteString("${X}", {})).toEqual({ problem: "environment variable X is not set (set it, or give a default: ${X:-value})", name: "X", at: 0 })
    expect(substituteString("x ${1X}", {})).toEqual({
      problem: 'invalid variable reference "${1X}": expected ${NAME} or ${NAME:-default} (a literal "${" is written "$${")',
      name: "${1X}",
      at: 2
    })
  })

  it("a plain scalar that becomes a number or boolean is one; a quoted one stays text; comments are not substituted", () => {
    const r = loaded(scenario(`  nodes: \${NODES:-20}\n  namePrefix: "\${PREFIX}"\n  nodeLifecycle:\n    enabled: \${LIFECYCLE:-true}`), { NODES: "5000", PREFIX: "007" })
    expect(r.scenario.cluster!.nodes).toBe(5000)
    expect(r.scenario.cluster!.namePrefix).toBe("007")
    expect(r.scenario.cluster!.nodeLifecycle!.enabled).toBe(true)
    expect(r.scenario.metadata.description).toBe("a what-if")
    expect(r.variables).toEqual(["DESCRIPTION", "LIFECYCLE", "NODES", "PREFIX"])
    expect((r.effective as { cluster: { nodes: unknown } }).cluster.nodes).toBe(5000)
    // a value cannot change the document's structure: it stays one scalar
    // (here one namePrefix, which makes node names the server refuses, on a cluster that still has 1 node)
    expect(errors(scenario(`  nodes: 1\n  namePrefix: \${PREFIX}`), { PREFIX: "a: b\nnodes: 9" }).join("\n")).toMatch(/^s\.yaml:9:15: cluster\.namePrefix: node name "a: b\nnodes: 90" would be refused/)
    expect(plainScalarValue("0x10")).toBe(16)
    expect(plainScalarValue("5s")).toBe("5s")
    expect(plainScalarValue("[a]")).toBe("[a]")
  })

  it("an unset variable without a default is an error naming the file, line, column, field and variable", () => {
    expect(errors(scenario(`  nodes: \${NODES}\n  namePrefix: "node-\${POOL}-"`), {})).toEqual([
      "s.yaml:8:10: cluster.nodes: environment variable NODES is not set (set it, or give a default: ${NODES:-value})",
      "s.yaml:9:21: cluster.namePrefix: environment variable POOL is not set (set it, or give a default: ${POOL:-value})"
    ])
    expect(errors(scenario(`  nodes: 2\n  zones: [a, "\${ZONE"]`), {})).toEqual([
      's.yaml:9:15: cluster.zones[1]: invalid variable reference "${ZONE": expected ${NAME} or ${NAME:-default} (a literal "${" is written "$${")'
    ])
  })

  it("the substituted value is validated like the file's, at its line", () => {
    expect(errors(scenario(`  nodes: \${NODES}`), { NODES: "lots" })).toEqual(['s.yaml:8:10: cluster.nodes: Expected number, actual "lots"'])
  })
})

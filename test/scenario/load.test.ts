import { Either } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { parseScenario } from "../../src/scenario/load.js"

const errorsOf = (text: string): ReadonlyArray<string> => {
  const r = parseScenario(text, "s.yaml")
  if (Either.isRight(r)) throw new Error("expected an invalid scenario")
  return r.left.message.split("\n")
}

const head = `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: t
`

describe("scenario validation", () => {
  it("names file, line, column and field path for type, range and unknown-field errors", () => {
    const text = `${head}phases:
  - name: p1
    duration: 10s
    actions:
      - type: constant-arrival-rate
        rate: -5
        request: { verb: get, name: x, resource: configmaps }
      - type: watch
        resource: configmapz
        count: 2
        colour: red
`
    expect(errorsOf(text)).toEqual([
      "s.yaml:10:15: phases[0].actions[0].rate: Expected a positive number, actual -5",
      "s.yaml:13:19: phases[0].actions[1].resource: unknown resource \"configmapz\"",
      "s.yaml:15:9: phases[0].actions[1].colour: unknown field"
    ])
  })

  it("reports an unknown action type, a bad duration and a bad name", () => {
    const text = `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: Bad_Name
phases:
  - name: p1
    duration: 10x
    actions:
      - type: bogus
`
    expect(errorsOf(text)).toEqual([
      "s.yaml:4:9: metadata.name: must be lower-case letters, digits, '-' or '.'",
      's.yaml:7:15: phases[0].duration: time: unknown unit "x" in duration "10x"',
      's.yaml:9:15: phases[0].actions[0].type: Expected "constant-arrival-rate" | "ramping-arrival-rate" | "closed" | "watch" | "informers" | "compact" | "drop-watches" | "pause" | "expire-continue-token", actual "bogus"'
    ])
  })

  it("points a missing required field at its parent", () => {
    const text = `${head}phases:
  - name: p1
    duration: 1s
    actions:
      - type: pause
        at: 1s
`
    expect(errorsOf(text)).toEqual(["s.yaml:9:9: phases[0].actions[0].for: required field is missing"])
  })

  it("checks thresholds with the k6 parser and names the token", () => {
    const text = `${head}phases: []
thresholds:
  "latency{operation:GET}": ["p(99) < 1parsec"]
  "latencyy": ["p(99) < 1s"]
`
    expect(errorsOf(text)).toEqual([
      's.yaml:7:29: thresholds["latency{operation:GET}"]: invalid threshold "p(99) < 1parsec": unknown unit (expected us, ms, s, m, h) "parsec"'
    ])
  })

  it("checks references between sections", () => {
    const text = `${head}setup:
  objects:
    - { name: cms, resource: configmaps, count: 3 }
phases:
  - name: p1
    duration: 1s
    actions:
      - type: closed
        workers: 1
        request: { verb: get, objects: nope }
      - type: closed
        workers: 1
        request: { verb: get, resource: pods, objects: cms }
`
    expect(errorsOf(text)).toEqual([
      's.yaml:14:40: phases[0].actions[0].request.objects: no setup object set named "nope"',
      "s.yaml:17:41: phases[0].actions[1].request.resource: object set \"cms\" holds configmaps, not pods"
    ])
  })

  it("reports YAML syntax errors and empty files with their position", () => {
    expect(errorsOf("a: [1\n")[0]).toMatch(/^s\.yaml:2:1: YAML: /)
    expect(errorsOf("")).toEqual(["s.yaml: empty file"])
    expect(errorsOf("a: 1\na: 2\n")[0]).toMatch(/^s\.yaml:2:1: YAML: Map keys must be unique/)
  })

  it("rejects a wrong apiVersion", () => {
    expect(errorsOf(`apiVersion: v1\nkind: Scenario\nmetadata: { name: t }\nphases: []\n`)).toEqual([
      's.yaml:1:13: apiVersion: Expected "clustersim/v1", actual "v1"'
    ])
  })

  it("accepts every shipped scenario", () => {
    for (const f of readdirSync("scenarios").filter((n) => n.endsWith(".yaml") && !n.includes("failover") && !n.includes("memory-pressure"))) {
      const r = parseScenario(readFileSync(`scenarios/${f}`, "utf8"), f)
      expect(Either.isRight(r) ? "ok" : r.left.message).toBe("ok")
    }
  })
})

import { Either } from "effect"
import { describe, expect, it } from "@effect/vitest"
import { parseScenario } from "../../app/scenario/load.js"
import { Scenario } from "../../app/scenario/Scenario.js"
import { closestPath, parseSetOverride, parseSetOverrides } from "../../app/scenario/SetOverrides.js"

const text = `apiVersion: clustersim/v1
kind: Scenario
metadata:
  name: t
duration: 1m
cluster:
  nodes: 20
  serviceTime:
    writeBaseMs: 20
phases:
  - name: steady
    duration: 30s
    actions:
      - type: constant-arrival-rate
        rate: 10
        request: { verb: list, resource: pods }
thresholds:
  lease_writes: ["rate >= 1"]
`

const load = (...sets: Array<string>) => parseScenario(text, "s.yaml", undefined, { env: {}, sets: sets.map((s) => Either.getOrThrow(parseSetOverride(s))) })
const effective = (...sets: Array<string>) => {
  const r = load(...sets)
  if (Either.isLeft(r)) throw new Error(r.left.message)
  return r.right
}
const errors = (...sets: Array<string>) => {
  const r = load(...sets)
  if (Either.isRight(r)) throw new Error("expected the overrides to be refused")
  return r.left.message.split("\n")
}

describe("--set path=value", () => {
  it("parses dotted paths, list indices and quoted keys; the value is everything after the first '='", () => {
    expect(Either.getOrThrow(parseSetOverride("cluster.nodes=5000"))).toEqual({ source: "cluster.nodes=5000", path: ["cluster", "nodes"], text: "5000" })
    expect(Either.getOrThrow(parseSetOverride("phases[0].actions.0.rate=5")).path).toEqual(["phases", 0, "actions", 0, "rate"])
    expect(Either.getOrThrow(parseSetOverride('thresholds["latency{metric:api_call}"]=p(99) < 1s'))).toEqual({
      source: 'thresholds["latency{metric:api_call}"]=p(99) < 1s',
      path: ["thresholds", "latency{metric:api_call}"],
      text: "p(99) < 1s"
    })
    expect(Either.getOrThrow(parseSetOverride("metadata.description=a=b")).text).toBe("a=b")
  })

  it("refuses a malformed --set, naming it", () => {
    expect(parseSetOverride("cluster.nodes")).toEqual(Either.left("--set cluster.nodes: expected path=value, e.g. cluster.nodes=5000"))
    expect(parseSetOverride("=5")).toEqual(Either.left('--set =5: the path before "=" is empty'))
    expect(parseSetOverride("cluster..nodes=5")).toEqual(Either.left("--set cluster..nodes=5: empty field name in the path"))
    expect(parseSetOverride("phases[x]=5")).toEqual(Either.left('--set phases[x]=5: expected a list index [0] or a quoted key ["name"] in the path, got [x]'))
    expect(parseSetOverrides(["cluster.nodes=1", "bad"])).toEqual(Either.left("--set bad: expected path=value, e.g. cluster.nodes=5000"))
  })

  it("types the value by the schema: numbers, booleans, durations and literals; creates missing mappings; applies in order", () => {
    const r = effective("cluster.nodes=5000", "cluster.serviceTime.apf=false", "phases[0].duration=45s", "cluster.driver.podWatch=per-node", "cluster.nodes=300")
    expect(r.scenario.cluster!.nodes).toBe(300)
    expect(r.scenario.cluster!.serviceTime!.apf).toBe(false)
    expect(r.scenario.cluster!.driver!.podWatch).toBe("per-node")
    expect(r.scenario.phases[0]!.duration).toBe("45s")
    expect(r.sets).toEqual(["cluster.nodes=5000", "cluster.serviceTime.apf=false", "phases[0].duration=45s", "cluster.driver.podWatch=per-node", "cluster.nodes=300"])
    // the effective scenario is what was decoded: the file's other fields as they were
    expect((r.effective as { cluster: Record<string, unknown> }).cluster).toEqual({ nodes: 300, serviceTime: { writeBaseMs: 20, apf: false }, driver: { podWatch: "per-node" } })
    // a duration the schema decodes to milliseconds is given as the file gives it
    expect(effective("cluster.nodeLifecycle.gracePeriod=40s").scenario.cluster!.nodeLifecycle!.gracePeriod).toBe(40_000)
    // a text field keeps the text: a name that looks like a number stays a string
    expect(effective("phases[0].name=123").scenario.phases[0]!.name).toBe("123")
    // a list field takes a YAML flow value, a free-form field YAML's scalar rules
    expect(effective("cluster.zones=[a, b]").scenario.cluster!.zones).toEqual(["a", "b"])
    expect(effective("cluster.nodeAgent.config.maxPods=30").scenario.cluster!.nodeAgent!.config).toEqual({ maxPods: 30 })
    expect(effective('thresholds["lease_writes"]=rate >= 5').scenario.thresholds).toEqual({ lease_writes: "rate >= 5" })
  })

  it("a value of the wrong type names the --set and the field", () => {
    expect(errors("cluster.nodes=many")).toEqual(['s.yaml: --set cluster.nodes=many: cluster.nodes: expected a number, got "many"'])
    expect(errors("cluster.serviceTime.apf=no")).toEqual(['s.yaml: --set cluster.serviceTime.apf=no: cluster.serviceTime.apf: expected true or false, got "no"'])
    expect(errors("cluster.driver.podWatch=each")).toEqual([
      's.yaml: --set cluster.driver.podWatch=each: cluster.driver.podWatch: expected one of "shared", "per-node", got "each"'
    ])
  })

  it("the value is validated exactly like the file's: the schema's message, at the --set instead of a line", () => {
    expect(errors("cluster.nodes=200000")).toEqual(["s.yaml: --set cluster.nodes=200000: cluster.nodes: Expected a number between 0 and 100000, actual 200000"])
    expect(errors("phases[0].duration=10x")).toEqual(['s.yaml: --set phases[0].duration=10x: phases[0].duration: time: unknown unit "x" in duration "10x"'])
    // the cross-field rules too: sharedSeats and APF exclude each other
    expect(errors("cluster.serviceTime.sharedSeats=1", "cluster.serviceTime.apf=true")).toEqual([
      "s.yaml: --set cluster.serviceTime.sharedSeats=1: cluster.serviceTime.sharedSeats: one shared pool replaces API Priority and Fairness's priority levels: leave apf out or set it to false"
    ])
    // a problem the --set did not cause keeps its line in the file
    const bad = parseScenario(text.replace("rate: 10", "rate: -1"), "s.yaml", undefined, { env: {}, sets: [Either.getOrThrow(parseSetOverride("cluster.nodes=5"))] })
    expect(Either.isLeft(bad) && bad.left.message).toBe("s.yaml:15:15: phases[0].actions[0].rate: Expected a positive number, actual -1")
  })

  it("an unknown path is refused with the closest valid path", () => {
    expect(errors("cluster.apiServer.apf.enabled=false")).toEqual([
      's.yaml: --set cluster.apiServer.apf.enabled=false: cluster.apiServer: unknown field "apiServer" in cluster; the closest valid path is cluster.serviceTime.apf'
    ])
    expect(errors("cluster.node=5000")).toEqual(['s.yaml: --set cluster.node=5000: cluster.node: unknown field "node" in cluster; the closest valid path is cluster.nodes'])
    expect(errors("phases[0].actions[0].rat=5")).toEqual([
      's.yaml: --set phases[0].actions[0].rat=5: phases[0].actions[0].rat: unknown field "rat" in phases[0].actions[0]; the closest valid path is phases[0].actions[0].rate'
    ])
    expect(errors("nodes=5")).toEqual(['s.yaml: --set nodes=5: nodes: unknown field "nodes" in the scenario; the closest valid path is cluster.nodes'])
  })

  it("a list index must exist in the file", () => {
    expect(errors("phases[3].duration=1s")).toEqual(["s.yaml: --set phases[3].duration=1s: phases[3]: the list has 1 item; index 3 is past its end"])
  })

  it("the closest path keeps the given list indices", () => {
    expect(closestPath(Scenario.ast, ["phases", 2, "actions", 1, "requst", "verb"])).toEqual(["phases", 2, "actions", 1, "request", "verb"])
  })

  it("a list or mapping value is a YAML flow value where the field may take one: a threshold's expressions, a free-form field", () => {
    const e = (...sets: Array<string>) => effective(...sets).effective as { thresholds: Record<string, unknown>; cluster: { nodeAgent?: { config?: Record<string, unknown> } } }
    expect(e("thresholds.not_ready_nodes=[count == 2, rate > 0]").thresholds.not_ready_nodes).toEqual(["count == 2", "rate > 0"])
    expect(e('thresholds.not_ready_nodes={threshold: "count == 2", allowNoData: true}').thresholds.not_ready_nodes).toEqual({ threshold: "count == 2", allowNoData: true })
    expect(e("thresholds.not_ready_nodes=count == 2").thresholds.not_ready_nodes).toBe("count == 2")
    expect(e("cluster.nodeAgent.config.evictionHard={memory.available: 10%}").cluster.nodeAgent!.config!.evictionHard).toEqual({ "memory.available": "10%" })
    expect(errors("thresholds.not_ready_nodes=[count == 2, rat > 0]")).toEqual([
      's.yaml: --set thresholds.not_ready_nodes=[count == 2, rat > 0]: thresholds.not_ready_nodes[1]: invalid threshold "rat > 0": unknown aggregation (expected p(N), avg, min, med, max, count, rate) "rat"'
    ])
  })

  it("a field missing because a --set changed its sibling names that --set", () => {
    const withFault = text.replace("phases:", "faults:\n  - { type: stop-nodes, at: 10s, nodes: [node-1] }\nphases:")
    const r = parseScenario(withFault, "s.yaml", undefined, { env: {}, sets: [Either.getOrThrow(parseSetOverride("faults[0].type=partition")), Either.getOrThrow(parseSetOverride("seed=4"))] })
    expect(Either.isLeft(r) && r.left.message.split("\n")).toEqual(["s.yaml: --set faults[0].type=partition: faults[0].for: required field is missing"])
  })
})

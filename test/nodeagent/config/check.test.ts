import { describe, it, expect } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { checkNodeAgentConfiguration } from "../../../simulator/nodeagent/config/check.js"
import { defaultNodeAgentConfiguration } from "../../../simulator/nodeagent/config/defaults.js"

const scenario = (name: string) => {
  const file = `scenarios/nodeagent/${name}`
  return { file, text: readFileSync(fileURLToPath(new URL(`../../../${file}`, import.meta.url)), "utf8") }
}
const header = "apiVersion: nodeagent.config.platform/v1beta1\nkind: NodeAgentConfiguration\n"
const ic = (m: string) => `invalid configuration: ${m}`

describe("checkNodeAgentConfiguration", () => {
  it("accepts the minimal example as the default configuration", () => {
    const { file, text } = scenario("default.yaml")
    const r = checkNodeAgentConfiguration(text, file)
    expect(r.errors).toStrictEqual([])
    expect(r.warnings).toStrictEqual([])
    expect(r.config).toStrictEqual(defaultNodeAgentConfiguration)
  })

  it("reports every mistake of the invalid example, and its unknown field as a warning", () => {
    const { file, text } = scenario("invalid.yaml")
    const r = checkNodeAgentConfiguration(text, file)
    expect(r.errors).toStrictEqual([
      ic("nodeLeaseDurationSeconds must be greater than 0"),
      ic("imageGCLowThresholdPercent (--image-gc-low-threshold) 60 must be less than imageGCHighThresholdPercent (--image-gc-high-threshold) 50"),
      ic("oomScoreAdj (--oom-score-adj) 2000 must be between -1000 and 1000, inclusive"),
      ic("port (--port) 70000 must be between 1 and 65535, inclusive"),
      ic("shutdownGracePeriod 500ms must be either zero or otherwise >= 1 sec"),
      ic('option "bridge" specified for hairpinMode (--hairpin-mode). Valid options are "none", "hairpin-veth" or "promiscuous-bridge"'),
      "grace period must be specified for the soft eviction threshold memory.available"
    ])
    expect(r.warnings).toStrictEqual([`${file}:14:1: maxPod: unknown field "maxPod"`])
    expect(r.config?.port).toBe(70000)
  })

  it("locates decode errors by file, line, column and field path", () => {
    const r = checkNodeAgentConfiguration(header + "port: 10250\nauthentication:\n  webhook:\n    cacheTTL: 2 min\n", "a.yaml")
    expect(r.config).toBeUndefined()
    expect(r.errors).toStrictEqual(['a.yaml:6:15: authentication.webhook.cacheTTL: time: unknown unit " min" in duration "2 min"'])
  })

  it("reports decode errors that have no place in the file as upstream's text", () => {
    expect(checkNodeAgentConfiguration("", "e.yaml").errors).toStrictEqual(['node agent config file "e.yaml" was empty'])
    expect(checkNodeAgentConfiguration("kind: Pod\napiVersion: v1\n", "p.yaml").errors).toStrictEqual([
      'failed to decode: no kind "Pod" is registered for version "v1" in scheme "k8s.io/platform/pkg/nodeagent/apis/config/scheme/scheme.go:32"'
    ])
  })

  it("gives duplicate fields as warnings with their position", () => {
    const r = checkNodeAgentConfiguration(header + "maxPods: 10\nmaxPods: 20\n", "d.yaml")
    expect(r.errors).toStrictEqual([])
    expect(r.warnings).toStrictEqual(['d.yaml:4:1: maxPods: duplicate field "maxPods"'])
    expect(r.config?.maxPods).toBe(20)
  })

  it("reports a feature gate error alone", () => {
    const r = checkNodeAgentConfiguration(header + "featureGates: {Bogus: true}\nport: 70000\nevictionHard: {x: '1'}\n", "g.yaml")
    expect(r.errors).toStrictEqual(["unrecognized feature gate: Bogus"])
  })

  it("passes on feature gate warnings", () => {
    const r = checkNodeAgentConfiguration(header + "featureGates: {CPUManager: true}\n", "g.yaml")
    expect(r.errors).toStrictEqual([])
    expect(r.warnings).toStrictEqual(["Setting GA feature gate CPUManager=true. It will be removed in a future release."])
  })

  it("adds the eviction error after validation errors", () => {
    const r = checkNodeAgentConfiguration(header + "port: 70000\nevictionHard: {memory.available: '0'}\n", "v.yaml")
    expect(r.errors).toStrictEqual([
      ic("port (--port) 70000 must be between 1 and 65535, inclusive"),
      "eviction threshold memory.available must be positive: 0"
    ])
  })
})

import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { checkNodeAgentConfiguration } from "../../../simulator/nodeagent/config/check.js"
import { defaultNodeAgentConfiguration } from "../../../simulator/nodeagent/config/defaults.js"
import { validateFiles } from "../../../app/cli/validate.js"

const header = "apiVersion: nodeagent.config.platform/v1beta1\nkind: NodeAgentConfiguration\n"
const logging = "logging:\n  format: text\n  flushFrequency: 5000000000\n  verbosity: 0\n  vmodule: []\n  options:\n    json:\n      splitStream: false\n      infoBufferSize: '0'\n"
const complete = `${header}enableServer: true\nreservedSystemCPUs: ""\n${logging}`
const required = (text: string) => checkNodeAgentConfiguration(text, "n.yaml", { requireFields: true }).errors

describe("required fields of NodeAgentConfiguration (spec 001: fields marked required must be present)", () => {
  it("a file with every required field passes and equals the defaults", () => {
    const r = checkNodeAgentConfiguration(complete, "n.yaml", { requireFields: true })
    expect(r.errors).toStrictEqual([])
    // the same configuration; the written quantity "0" only differs in its cached text
    const withoutBuffer = (c: typeof defaultNodeAgentConfiguration) => ({ ...c, logging: { ...c.logging, options: { json: { ...c.logging.options.json, infoBufferSize: c.logging.options.json.infoBufferSize.isZero() } } } })
    expect(withoutBuffer(r.config!)).toStrictEqual(withoutBuffer(defaultNodeAgentConfiguration))
    const shipped = "scenarios/nodeagent/default.yaml"
    expect(checkNodeAgentConfiguration(readFileSync(shipped, "utf8"), shipped, { requireFields: true }).errors).toStrictEqual([])
  })

  it("only enableServer: each missing top-level field is named, at the document", () => {
    expect(required(`${header}enableServer: true\n`)).toStrictEqual(["n.yaml:1:1: reservedSystemCPUs: Required value", "n.yaml:1:1: logging: Required value"])
    expect(required(`${header}reservedSystemCPUs: "0-1"\n${logging}`)).toStrictEqual(["n.yaml:1:1: enableServer: Required value"])
    expect(required(`${header}enableServer: null\nreservedSystemCPUs: ""\n${logging}`)).toStrictEqual(["n.yaml:1:1: enableServer: Required value"])
  })

  it("nested fields of logging, located at the object lacking them", () => {
    const partial = `${header}enableServer: true\nreservedSystemCPUs: ""\nlogging:\n  format: json\n  options:\n    json: {}\n`
    expect(required(partial)).toStrictEqual([
      "n.yaml:6:3: logging.flushFrequency: Required value",
      "n.yaml:6:3: logging.verbosity: Required value",
      "n.yaml:6:3: logging.vmodule: Required value",
      "n.yaml:8:11: logging.options.json.splitStream: Required value",
      "n.yaml:8:11: logging.options.json.infoBufferSize: Required value"
    ])
  })

  it("fields of list items: reservedMemory[i] and shutdownGracePeriodByPodPriority[i]", () => {
    const text = `${complete}reservedMemory:\n  - numaNode: 1\n    limits: { memory: 1Gi }\n  - limits: { memory: 1Gi }\nshutdownGracePeriodByPodPriority:\n  - priority: 100\n`
    expect(required(text)).toStrictEqual([
      "n.yaml:17:5: reservedMemory[1].numaNode: Required value",
      "n.yaml:19:5: shutdownGracePeriodByPodPriority[0].shutdownGracePeriodSeconds: Required value"
    ])
  })

  it("is off unless asked (a scenario's inline configuration overrides defaults piecemeal)", () => {
    expect(checkNodeAgentConfiguration(`${header}enableServer: true\n`, "n.yaml").errors).toStrictEqual([])
  })

  it("clustersim validate asks for them", () => {
    const err: Array<string> = []
    expect(validateFiles(["scenarios/nodeagent/default.yaml", "scenarios/nodeagent/credential-providers.yaml"], () => {}, (s) => void err.push(s))).toBe(0)
    expect(err).toStrictEqual([])
  })
})

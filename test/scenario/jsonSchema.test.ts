import { readFileSync } from "node:fs"
import { describe, expect, it } from "@effect/vitest"
import { scenarioJsonSchema } from "../../app/scenario/jsonSchema.js"

describe("scenarios/scenario.schema.json", () => {
  it("is the schema the loader decodes with (regenerate: clustersim schema > scenarios/scenario.schema.json)", () => {
    const shipped = JSON.parse(readFileSync(new URL("../../scenarios/scenario.schema.json", import.meta.url), "utf8"))
    expect(shipped).toEqual(scenarioJsonSchema())
  })

  it("refuses unknown keys in every simulated section", () => {
    const schema = scenarioJsonSchema() as { $defs: Record<string, { additionalProperties?: boolean }> }
    for (const def of ["Cluster", "SchedulerSection", "EvictionSection", "NodeAgentSource"]) {
      expect(schema.$defs[def]?.additionalProperties, def).toBe(false)
    }
  })
})

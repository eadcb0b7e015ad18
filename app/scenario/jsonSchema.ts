/**
 * The JSON Schema editors use for scenario files (`scenarios/scenario.schema.json`), generated from the
 * same effect Schema the loader decodes with: `clustersim schema > scenarios/scenario.schema.json`.
 * Refinements (durations, resource names, thresholds) are checked by `clustersim validate`, not here.
 */
import { JSONSchema } from "effect"
import { Scenario } from "./Scenario.js"

export const scenarioJsonSchema = (): Record<string, unknown> => {
  const schema = JSONSchema.make(Scenario) as unknown as Record<string, unknown>
  return {
    ...schema,
    $id: "https://clustersim.dev/schemas/scenario.schema.json",
    title: "clustersim scenario (apiVersion clustersim/v1, kind Scenario)"
  }
}

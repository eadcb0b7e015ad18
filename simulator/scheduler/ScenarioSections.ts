/**
 * Entry point for the scenario runner: runs the `scheduler:` and `eviction:` sections of a scenario document
 * (each in its own simulation, virtual time). The section's `seed` and `duration` default to the document's.
 */
import { runEvictionScenario, type EvictionScenarioInput, type EvictionScenarioResult } from "../nodeagent/eviction/EvictionScenario.js"
import { runSchedulerScenario, type SchedulerScenarioInput, type SchedulerScenarioResult } from "./SchedulerScenario.js"

export interface ScenarioSectionsResult {
  readonly scheduler?: SchedulerScenarioResult
  readonly eviction?: EvictionScenarioResult
}

const inherit = <T extends object>(section: T, doc: Record<string, unknown>): T => ({
  ...(typeof doc.seed === "number" ? { seed: doc.seed } : {}),
  ...(typeof doc.duration === "string" ? { duration: doc.duration } : {}),
  ...section
})

/** `doc` is the parsed scenario file (plain YAML value). Sections that are absent are skipped. */
export const runScenarioSections = (doc: Record<string, unknown>): ScenarioSectionsResult => {
  const out: { scheduler?: SchedulerScenarioResult; eviction?: EvictionScenarioResult } = {}
  if (doc.scheduler && typeof doc.scheduler === "object") out.scheduler = runSchedulerScenario(inherit(doc.scheduler as SchedulerScenarioInput, doc))
  if (doc.eviction && typeof doc.eviction === "object") out.eviction = runEvictionScenario(inherit(doc.eviction as EvictionScenarioInput, doc))
  return out
}

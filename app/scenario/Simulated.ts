/**
 * The sections of a scenario that run in virtual time — `cluster` with its `faults`, `scheduler`, `eviction` —
 * and the load phases, all in ONE simulation (`runSimulation` in simulator/cluster/ClusterRun.ts): the scheduler
 * places pods on the cluster's nodes, the node agents start them, the phases load the same API server.
 * A new section is one field in `Scenario.ts`'s `SimulatedSections` and one entry in `simulatedSections` below
 * (docs/scenarios.md "One simulation").
 */
import { Either } from "effect"
import type { SimulatedSection, SimulationOptions } from "../../simulator/cluster/ClusterRun.js"
import { defaultFeatureGates, setFromMap } from "../../src/api/FeatureGates.js"
import { DefaultEvictionDurationMs, evictionScenarioEffect } from "../../simulator/nodeagent/eviction/EvictionScenario.js"
import { DefaultSchedulerDurationMs, schedulerScenarioEffect } from "../../simulator/scheduler/SchedulerScenario.js"
import type { ApiServerConfig } from "../../simulator/apiserver/ApiServer.js"
import { ms, withClientGates } from "./Run.js"
import type { Scenario } from "./Scenario.js"

interface SectionEntry {
  readonly name: string
  /** The section's own length (ms), when it has one: the simulation runs at least that long. */
  readonly durationMs: (s: Scenario) => number | undefined
  readonly section: (s: Scenario, scenarioMs: number | undefined) => SimulatedSection | undefined
}

/** Every section that is a part of the simulation besides the cluster itself. */
export const simulatedSections: ReadonlyArray<SectionEntry> = [
  {
    name: "scheduler",
    durationMs: (s) => (s.scheduler ? (s.scheduler.duration ?? DefaultSchedulerDurationMs) : undefined),
    section: (s, scenarioMs) =>
      s.scheduler && { name: "scheduler", run: schedulerScenarioEffect({ ...s.scheduler, duration: s.scheduler.duration ?? scenarioMs ?? DefaultSchedulerDurationMs }) }
  },
  {
    name: "eviction",
    durationMs: (s) => (s.eviction ? (s.eviction.duration ?? DefaultEvictionDurationMs) : undefined),
    section: (s, scenarioMs) =>
      s.eviction && {
        name: "eviction",
        // beside a node lifecycle controller the eviction node needs a heartbeat (it has no node agent)
        run: evictionScenarioEffect({ ...s.eviction, duration: s.eviction.duration ?? scenarioMs ?? DefaultEvictionDurationMs }, { heartbeat: s.cluster !== undefined })
      }
  }
]

/** Whether the scenario runs in virtual time (any simulated section) rather than against a target in real time. */
export const isSimulated = (s: Scenario): boolean => s.cluster !== undefined || simulatedSections.some((e) => e.section(s, undefined) !== undefined)

/** Time after the last phase a cluster keeps running, so the phases' last requests are answered. */
const ClusterTailMs = 10_000

/** The simulation's length: the scenario's `duration`, else the longest of the phases and the sections. */
export const simulatedDurationMs = (s: Scenario): number => {
  if (s.duration !== undefined) return ms(s.duration, 0)
  const phases = s.phases.reduce((n, p) => n + ms(p.duration, 0), 0) + (s.cluster !== undefined ? ClusterTailMs : 0)
  return Math.max(phases, ...simulatedSections.map((e) => e.durationMs(s) ?? 0))
}

/** The scenario's `server:` section as settings of the simulated API server. */
export const serverSettings = (s: Scenario): Partial<ApiServerConfig> => ({
  ...(s.server?.historyWindow !== undefined ? { historyWindowMs: ms(s.server.historyWindow, 0) } : {}),
  ...(s.server?.bookmarkInterval !== undefined ? { bookmarkIntervalMs: ms(s.server.bookmarkInterval, 0) } : {}),
  ...(s.server?.watchBufferSize !== undefined ? { watchBufferSize: s.server.watchBufferSize } : {}),
  // validated when the scenario was decoded (`ServerFeatureGates`)
  ...(s.server?.featureGates !== undefined ? { featureGates: Either.getOrThrow(setFromMap(defaultFeatureGates, s.server.featureGates)) } : {})
})

/** The simulation of a scenario, without its workload (the phases) and progress wiring, which the runner adds. */
export const simulationOf = (s: Scenario, seed: number, baseDir: string): SimulationOptions => {
  const scenarioMs = s.duration !== undefined ? ms(s.duration, 0) : undefined
  const sections = simulatedSections.flatMap((e) => e.section(s, scenarioMs) ?? []).map((section) => ({ ...section, run: withClientGates(s)(section.run) }))
  const server = serverSettings(s)
  return {
    spec: s.cluster,
    faults: s.faults ?? [],
    seed,
    durationMs: simulatedDurationMs(s),
    baseDir,
    sections,
    ...(Object.keys(server).length > 0 ? { server } : {})
  }
}

/** `clustersim job`: the scenario read and checked, its manifests printed (./job.ts). */
import { Either } from "effect"
import { readFileSync } from "node:fs"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { parseScenario } from "../scenario/load.js"
import { isSimulated } from "../scenario/Simulated.js"
import { jobManifests, renderManifests } from "./job.js"

export interface JobCommandOptions {
  readonly file: string
  readonly segments: number
  readonly image: string
  readonly name: string | undefined
  readonly namespace: string | undefined
  readonly stdout?: (s: string) => void
  readonly stderr?: (s: string) => void
}

export const jobCommand = (o: JobCommandOptions): number => {
  const out = o.stdout ?? ((s: string) => void process.stdout.write(s))
  const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
  if (o.segments < 1 || o.segments > 1000) {
    err(`clustersim job: --segments: must be from 1 to 1000, got ${o.segments}\n`)
    return ExitCode.InvalidInput
  }
  let text: string
  try {
    text = readFileSync(o.file, "utf8")
  } catch (e) {
    err(`clustersim job: cannot read ${o.file}: ${(e as Error).message}\n`)
    return ExitCode.InvalidInput
  }
  const loaded = parseScenario(text, o.file)
  if (Either.isLeft(loaded)) {
    err(loaded.left.message + "\n")
    return ExitCode.InvalidInput
  }
  // what runs against a target (app/cli/drivers/RealTimeDriver.ts): load phases, and a "cluster" with its "scheduler"
  const scenario = loaded.right.scenario
  if (isSimulated(scenario) && (scenario.cluster === undefined || scenario.eviction !== undefined)) {
    err(
      scenario.cluster === undefined
        ? `clustersim job: ${o.file}: its simulated sections run against a target only beside a "cluster" section; this scenario has none\n`
        : `clustersim job: ${o.file}: "eviction": the eviction section runs only in virtual time, not against a target\n`
    )
    return ExitCode.InvalidInput
  }
  out(renderManifests(jobManifests({ scenario: loaded.right.scenario, text, segments: o.segments, image: o.image, ...(o.name !== undefined ? { name: o.name } : {}), ...(o.namespace !== undefined ? { namespace: o.namespace } : {}) })))
  return ExitCode.Pass
}

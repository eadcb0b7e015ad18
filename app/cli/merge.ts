/**
 * `clustersim merge DIR|run.json… [--out DIR] [--junit FILE]`: the segments of one distributed run
 * (`run --segment i/n`, docs/distributed.md) made into one run artifact — figures merged exactly
 * (src/loadgen/SegmentMerge.ts), thresholds judged once on the merged figures, the reports written as `run` writes
 * them, each segment's own figures beside the whole. Exit codes as `run`'s: 0 pass, 99 thresholds breached, 1 a
 * segment missing or failed (named), 2 artifacts that are not segments of one run.
 */
import { existsSync, statSync } from "node:fs"
import { join } from "node:path"
import { renderOutputFiles, renderSummary } from "../../reports/summary.js"
import { ArtifactReadError, defaultOutDir, readArtifact, type RunArtifact, withScenarioInputs, writeArtifact } from "../../src/loadgen/Artifact.js"
import { mergeSegments } from "../../src/loadgen/SegmentMerge.js"
import { placeOf } from "../../src/loadgen/ExecutionSegment.js"
import { clusterFigures } from "../../simulator/cluster/ClusterFigures.js"
import { mergeRealTimeClusters, type RealTimeClusterPart } from "../../simulator/cluster/ClusterResultMerge.js"
import { agentChecks } from "./drivers/RealTimeDriver.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { parseScenario } from "../scenario/load.js"
import { makeRunState } from "../scenario/Run.js"
import { assembleArtifact, type StopSignal } from "./artifact.js"
import { outDirProblem, outFileProblem, reasonOf } from "./outDir.js"
import { writeReports } from "./reportFiles.js"

export interface MergeOptions {
  readonly paths: ReadonlyArray<string>
  readonly outDir?: string
  readonly junit?: string
  /**
   * The stop the caller passed on to the segments (`run --segments n` on Ctrl-C): segments that ended on it are
   * partial, and the merged run is interrupted (exit 130 / 143), as one process's run is (docs/distributed.md).
   */
  readonly stoppedBy?: StopSignal
  readonly stdout?: (s: string) => void
  readonly stderr?: (s: string) => void
}

/** A directory stands for its run.json. */
const artifactPath = (path: string): string => (existsSync(path) && statSync(path).isDirectory() ? join(path, "run.json") : path)

/** The merged artifact, judged as `run` judges one (undefined: the segments' scenario no longer decodes, said in `problem`). */
export const mergedArtifact = (all: ReadonlyArray<{ readonly path: string; readonly artifact: RunArtifact }>, stoppedBy?: StopSignal): { readonly artifact: RunArtifact } | { readonly problem: string } => {
  const merged = mergeSegments(all, stoppedBy)
  if ("refused" in merged) return { problem: merged.refused }
  const first = merged.first
  // the scenario as every segment decoded it (after --set and ${VAR}): JSON is YAML
  const text = first.scenario.effective !== undefined ? JSON.stringify(first.scenario.effective) : first.scenario.text
  const loaded = parseScenario(text, first.scenario.file)
  if (loaded._tag === "Left") return { problem: `${all[0]!.path}: its scenario does not decode here: ${loaded.left.message}` }
  const state = makeRunState(merged.startAtMs)
  state.actions.push(...merged.actions)
  state.progress.errors = merged.errors.total
  for (const m of merged.errors.messages) state.progress.errorMessages.set(m.message, m.count)
  // a segment's setup stopped midway (only the first segment runs it): its row says how many creates were left
  state.progress.setupUnfinished = all.reduce((n, { artifact }) => n + (artifact.thresholds.find((t) => t.condition === "unfinished setup creates == 0")?.observed ?? 0), 0)
  const assembled = assembleArtifact({
    scenario: loaded.right.scenario,
    file: first.scenario.file,
    text: first.scenario.text,
    target: first.target,
    seed: first.seed,
    startedAt: new Date(merged.startedAt),
    endedAt: new Date(merged.endedAt),
    collected: { series: merged.series, intervals: merged.intervals, intervalMs: merged.intervalMs },
    state,
    health: merged.health,
    outcome: merged.failures.length > 0 ? { error: merged.failures.join("; ") } : merged.interruptedBy !== undefined ? { interrupted: merged.interruptedBy } : "completed",
    ...realTimeCluster(all.map((n) => n.artifact)),
    // the target's histograms count every segment's requests, and the segments' phases start together: the first
    // segment's readings around its phases cover the others' requests of those phases too
    ...(first.server !== undefined ? { server: first.server } : {})
  })
  const inputs = { effective: first.scenario.effective, sets: first.scenario.sets ?? [], variables: first.scenario.variables ?? [] }
  return { artifact: { ...withScenarioInputs(assembled, inputs), segments: merged.spread } }
}

/**
 * A real-time cluster's segments (each ran its own nodes, the first the singletons): their cluster results as one
 * (simulator/cluster/ClusterResultMerge.ts), its figures for the thresholds, the failed agent requests judged again.
 */
const realTimeCluster = (artifacts: ReadonlyArray<RunArtifact>) => {
  const parts = artifacts.flatMap((a) => (a.cluster !== undefined && "realTime" in a.cluster && a.segment !== undefined ? [{ segment: placeOf(a.segment), cluster: a.cluster as unknown as RealTimeClusterPart }] : []))
  if (parts.length === 0) return {}
  const cluster = mergeRealTimeClusters(parts)
  const sections = artifacts.find((a) => a.sections !== undefined && Object.keys(a.sections).length > 0)?.sections
  return { clock: "real" as const, cluster, clusterFigures: clusterFigures(cluster), checks: agentChecks({ realTime: cluster.realTime }), ...(sections ? { sections: { ...sections } } : {}) }
}

export const mergeCommand = (o: MergeOptions): number => {
  const out = o.stdout ?? ((s: string) => void process.stdout.write(s))
  const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
  const all: Array<{ path: string; artifact: RunArtifact }> = []
  for (const given of o.paths) {
    const path = artifactPath(given)
    try {
      all.push({ path, artifact: readArtifact(path) })
    } catch (e) {
      if (!(e instanceof ArtifactReadError)) throw e
      err(`clustersim merge: ${e.message}\n`)
      return ExitCode.InvalidInput
    }
  }
  const now = new Date()
  const result = mergedArtifact(all, o.stoppedBy)
  if ("problem" in result) {
    err(`clustersim merge: ${result.problem}\n`)
    return ExitCode.InvalidInput
  }
  const artifact = result.artifact
  const outDir = o.outDir ?? defaultOutDir(`${artifact.scenario.name}-merged`, now)
  const problem = outDirProblem(outDir)
  if (problem !== undefined) {
    err(`clustersim merge: ${o.outDir !== undefined ? "--out " : ""}${outDir}: cannot write run.json there: ${problem}\n`)
    return ExitCode.InvalidInput
  }
  const junitProblem = o.junit === undefined ? undefined : outFileProblem(o.junit)
  if (junitProblem !== undefined) {
    err(`clustersim merge: --junit ${o.junit}: cannot write there: ${junitProblem}\n`)
    return ExitCode.InvalidInput
  }
  let path: string | undefined
  try {
    path = writeArtifact(outDir, artifact)
  } catch (e) {
    err(`clustersim merge: could not write ${join(outDir, "run.json")}: ${reasonOf(e, outDir)}\n`)
  }
  const written = writeReports(outDir, artifact, o.junit, err, { besideRunJson: path !== undefined })
  out(renderSummary(artifact) + "\n")
  out(renderOutputFiles({ ...written, ...(path !== undefined ? { runJson: path } : {}) }))
  // a junit file asked for and not written fails a merge that passed, as it fails a run (./run.ts)
  return path === undefined || (o.junit !== undefined && written.junit === undefined && artifact.exitCode === ExitCode.Pass) ? ExitCode.RunError : artifact.exitCode
}

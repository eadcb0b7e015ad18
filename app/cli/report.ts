/**
 * `clustersim report RUN.json [--html [--out FILE]] [--junit FILE]`: re-render a stored run, and exit as the run did.
 * Given two or more runs it prints their comparison (as `clustersim compare` of stored files, without writing
 * compare.json), since that is what someone passing several runs wants to see.
 */
import { Effect } from "effect"
import { dirname, join } from "node:path"
import { renderComparisonHtml, renderRunHtml } from "../../reports/html.js"
import { renderJunit } from "../../reports/junit.js"
import { renderSummary } from "../../reports/summary.js"
import { ExitCode } from "../../src/loadgen/Thresholds.js"
import { ArtifactReadError, processExitCode, readArtifact, type RunArtifact, writeAtomically } from "../../src/loadgen/Artifact.js"
import { compareCommand } from "./compare.js"
import { outFileProblem } from "./outDir.js"

export interface ReportOptions {
  readonly file: string
  readonly html?: boolean
  readonly out?: string | undefined
  readonly junit?: string | undefined
  readonly stdout?: (s: string) => void
  readonly stderr?: (s: string) => void
}

/** A scenario given where a run artifact belongs: say what to do with it. */
const hintFor = (file: string): string =>
  /\.ya?ml$/i.test(file) ? ` (a scenario file? "clustersim run ${file}" runs it and writes the run.json that report reads)` : ""

export const reportCommand = (o: ReportOptions): number => {
  const out = o.stdout ?? ((s: string) => void process.stdout.write(s))
  const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
  let artifact: RunArtifact
  try {
    artifact = readArtifact(o.file)
  } catch (e) {
    if (!(e instanceof ArtifactReadError)) throw e
    err(`clustersim report: ${e.message}${hintFor(o.file)}\n`)
    return ExitCode.InvalidInput
  }
  // the files are checked before anything is printed, as run checks --out and --junit (./outDir.ts)
  const htmlPath = o.html ? (o.out ?? join(dirname(o.file), "report.html")) : undefined
  const files = [
    ...(htmlPath !== undefined ? [{ flag: o.out !== undefined ? "--out " : "", path: htmlPath }] : []),
    ...(o.junit !== undefined ? [{ flag: "--junit ", path: o.junit }] : [])
  ]
  for (const { flag, path } of files) {
    const problem = outFileProblem(path)
    if (problem !== undefined) {
      err(`clustersim report: ${flag}${path}: cannot write there: ${problem}\n`)
      return ExitCode.InvalidInput
    }
  }
  out(renderSummary(artifact) + "\n")
  if (htmlPath !== undefined) {
    writeAtomically(htmlPath, renderRunHtml(artifact))
    out(`report: ${htmlPath}\n`)
  }
  if (o.junit !== undefined) {
    writeAtomically(o.junit, renderJunit(artifact))
    out(`junit: ${o.junit}\n`)
  }
  // the stored verdict, not a new one: the summary's last line names it with this code (a CI step that re-renders a
  // failed run must fail as the run did); thresholds are not judged again, the artifact's results are the run's
  return processExitCode(artifact)
}

export interface ReportRunsOptions extends Omit<ReportOptions, "file"> {
  readonly files: ReadonlyArray<string>
}

/** `report` of one run or, given several, their comparison; resolves to the exit code. */
export const reportRuns = (o: ReportRunsOptions): Effect.Effect<number> => {
  const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
  const [first, ...rest] = o.files
  if (first === undefined) return Effect.sync(() => (err("clustersim report: give a run.json file\n"), ExitCode.InvalidInput))
  if (rest.length === 0) return Effect.sync(() => reportCommand({ ...o, file: first }))
  if (o.junit !== undefined)
    return Effect.sync(() => (err(`clustersim report: --junit writes the thresholds of one run; got ${o.files.length} files\n`), ExitCode.InvalidInput))
  err(`clustersim report: ${o.files.length} runs given, comparing them (clustersim compare ${o.files.join(" ")} also writes compare.json)\n`)
  return Effect.map(
    compareCommand({
      stored: o.files,
      writeJson: false,
      ...(o.html ? { html: renderComparisonHtml, htmlFile: o.out ?? join(dirname(first), "compare.html") } : {}),
      ...(o.stdout ? { stdout: o.stdout } : {}),
      stderr: err
    }),
    (r) => r.exitCode
  )
}

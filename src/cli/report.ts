/** `clustersim report RUN.json [--html [--out FILE]] [--junit FILE]`: re-render a stored run. */
import { dirname, join } from "node:path"
import { renderJunit } from "../../reports/junit.js"
import { renderSummary } from "../../reports/summary.js"
import { ExitCode } from "../loadgen/Thresholds.js"
import { ArtifactReadError, readArtifact, type RunArtifact, writeAtomically } from "../scenario/Artifact.js"
import { renderRunHtml } from "../../reports/html.js"

export interface ReportOptions {
  readonly file: string
  readonly html?: boolean
  readonly out?: string | undefined
  readonly junit?: string | undefined
  readonly stdout?: (s: string) => void
  readonly stderr?: (s: string) => void
}

export const reportCommand = (o: ReportOptions): number => {
  const out = o.stdout ?? ((s: string) => void process.stdout.write(s))
  const err = o.stderr ?? ((s: string) => void process.stderr.write(s))
  let artifact: RunArtifact
  try {
    artifact = readArtifact(o.file)
  } catch (e) {
    if (!(e instanceof ArtifactReadError)) throw e
    err(`clustersim report: ${e.message}\n`)
    return ExitCode.InvalidInput
  }
  out(renderSummary(artifact) + "\n")
  if (o.html) {
    const path = o.out ?? join(dirname(o.file), "report.html")
    writeAtomically(path, renderRunHtml(artifact))
    out(`report: ${path}\n`)
  }
  if (o.junit !== undefined) {
    writeAtomically(o.junit, renderJunit(artifact))
    out(`junit: ${o.junit}\n`)
  }
  return ExitCode.Pass
}

/** The files written beside `run.json`: `latency.svg`, `report.html`, and junit.xml when asked for. */
import { join } from "node:path"
import { renderRunHtml } from "../../reports/html.js"
import { renderJunit } from "../../reports/junit.js"
import { renderLatencySvg } from "../../reports/plot.js"
import { type RunArtifact, writeAtomically } from "../../src/loadgen/Artifact.js"

/**
 * `besideRunJson: false` (run.json could not be written): only the junit file, which lives elsewhere. Answers the
 * files written (the run's last lines name them).
 */
export const writeReports = (
  outDir: string,
  artifact: RunArtifact,
  junit: string | undefined,
  err: (s: string) => void,
  o: { readonly besideRunJson: boolean } = { besideRunJson: true }
): WrittenReports => {
  const written: { -readonly [K in keyof WrittenReports]: WrittenReports[K] } = {}
  const files: Array<[keyof WrittenReports, string, () => string]> = [
    ...(o.besideRunJson
      ? ([
          ["svg", join(outDir, "latency.svg"), () => renderLatencySvg(artifact)],
          ["html", join(outDir, "report.html"), () => renderRunHtml(artifact)]
        ] as Array<[keyof WrittenReports, string, () => string]>)
      : []),
    ...(junit !== undefined ? [["junit", junit, () => renderJunit(artifact)] as [keyof WrittenReports, string, () => string]] : [])
  ]
  for (const [kind, path, render] of files) {
    try {
      writeAtomically(path, render())
      written[kind] = path
    } catch (e) {
      // a report that cannot be written must not lose the run: run.json is already there
      err(`clustersim: could not write ${path}: ${(e as Error).message}\n`)
    }
  }
  return written
}

export interface WrittenReports {
  readonly svg?: string
  readonly html?: string
  readonly junit?: string
}

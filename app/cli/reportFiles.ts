/** The files written beside `run.json`: `latency.svg`, `report.html`, and junit.xml when asked for. */
import { join } from "node:path"
import { renderRunHtml } from "../../reports/html.js"
import { renderJunit } from "../../reports/junit.js"
import { renderLatencySvg } from "../../reports/plot.js"
import { type RunArtifact, writeAtomically } from "../../src/loadgen/Artifact.js"

/** `besideRunJson: false` (run.json could not be written): only the junit file, which lives elsewhere. */
export const writeReports = (outDir: string, artifact: RunArtifact, junit: string | undefined, err: (s: string) => void, o: { readonly besideRunJson: boolean } = { besideRunJson: true }): void => {
  const files: Array<[string, () => string]> = [
    ...(o.besideRunJson
      ? ([
          [join(outDir, "latency.svg"), () => renderLatencySvg(artifact)],
          [join(outDir, "report.html"), () => renderRunHtml(artifact)]
        ] as Array<[string, () => string]>)
      : []),
    ...(junit !== undefined ? [[junit, () => renderJunit(artifact)] as [string, () => string]] : [])
  ]
  for (const [path, render] of files) {
    try {
      writeAtomically(path, render())
    } catch (e) {
      // a report that cannot be written must not lose the run: run.json is already there
      err(`clustersim: could not write ${path}: ${(e as Error).message}\n`)
    }
  }
}

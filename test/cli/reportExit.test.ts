/** `clustersim report run.json` exits as the stored run did: the code its summary's last line names. */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { reportCommand } from "../../app/cli/report.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { syntheticRun } from "../support/syntheticRun.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-report-exit-"))
const key = { metric: "api_call", operation: "LIST", resource: "configmaps", scope: "namespace", phase: "steady", name: "list" }

const stored = (name: string, end: Partial<RunArtifact>): string => {
  const file = join(dir, `${name}.json`)
  writeFileSync(file, JSON.stringify({ ...syntheticRun({ seed: 1, series: [{ key, medianMs: 5, samples: 20 }] }), ...end }))
  return file
}

describe("report's exit code", () => {
  const ends: ReadonlyArray<readonly [string, Partial<RunArtifact>, number, string]> = [
    ["pass", { outcome: "pass", exitCode: 0 }, 0, "PASS (exit 0)"],
    ["breached", { outcome: "thresholds-breached", exitCode: 99 }, 99, "FAIL: thresholds breached (exit 99)"],
    ["run-error", { outcome: "run-error", exitCode: 1, partial: true, runError: "target went away" }, 1, "RUN ERROR: target went away (exit 1)"],
    ["sigint", { outcome: "interrupted", exitCode: 130, partial: true, interruptedBy: "SIGINT" }, 130, "INTERRUPTED: partial results (exit 130)"],
    ["sigterm", { outcome: "interrupted", exitCode: 143, partial: true, interruptedBy: "SIGTERM" }, 143, "INTERRUPTED: partial results (exit 143)"],
    // a segment's own thresholds await the merge: it exits 0 as its process did (Artifact.ts processExitCode)
    ["segment", { outcome: "thresholds-breached", exitCode: 99, segment: { index: 0, count: 2, startAtMs: 0, startLagMs: 0 } }, 0, "(exit 0)"]
  ]
  for (const [name, end, code, lastLine] of ends)
    it(`a stored ${name} run: exit ${code}, as its summary's last line says, with --html and --junit too`, () => {
      const file = stored(name, end)
      for (const extra of [{}, { html: true, out: join(dir, `${name}.html`) }, { junit: join(dir, `${name}.xml`) }]) {
        const stdout: Array<string> = []
        expect(reportCommand({ file, ...extra, stdout: (s) => void stdout.push(s), stderr: () => {} })).toBe(code)
        expect(stdout.join("").split("\n").find((l) => l.includes("(exit "))).toContain(lastLine)
      }
    })
})

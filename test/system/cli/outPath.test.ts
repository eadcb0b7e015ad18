/**
 * `clustersim run --out` in its own process: a directory where run.json cannot be written is refused before the
 * run starts (exit 2, the message names the path and why), not found after a whole scenario (issue 36, item 8).
 * The pieces are tested in-process in test/cli/outDir.test.ts.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"

const dir = mkdtempSync(join(tmpdir(), "clustersim-outpath-"))

describe("clustersim run --out (own process)", () => {
  it("exits 2 before a 1-hour scenario starts when --out cannot be written, naming the path and why", () => {
    const scenario = join(dir, "hour.yaml")
    writeFileSync(
      scenario,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: hour }
phases:
  - name: p1
    duration: 1h
    actions:
      - { type: constant-arrival-rate, name: list, rate: 1, request: { verb: list, resource: configmaps, namespace: default } }
`
    )
    const r = spawnSync("node_modules/.bin/vite-node", ["test/support/cliProcess.ts", "run", scenario, "--target", "in-process", "--out", "/sys/clustersim-out"], {
      encoding: "utf8",
      timeout: 25_000
    })
    expect(r.status).toBe(2)
    // The target line comes first (docs/credentials.md), then the refusal: nothing ran.
    expect(r.stderr).toBe("target: in-process simulated server\nclustersim: --out /sys/clustersim-out: cannot write run.json there: permission denied\n")
    expect(r.stdout).toBe("")
  })
})

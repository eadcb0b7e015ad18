/**
 * `clustersim run` without --out writes under runs/ in the working directory, never under reports/ (the renderers'
 * sources); git ignores runs/ and a comparison's runs/compare/, and not reports/*.ts.
 */
import { execFileSync, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "@effect/vitest"

const root = resolve(".")

describe("run output folder", () => {
  it("git ignores runs/ and runs/compare/, not the report sources", () => {
    const ignored = (path: string) => spawnSync("git", ["check-ignore", "-q", path], { cwd: root }).status === 0
    expect(ignored("runs/2026-11-25T22-30-00Z-quickstart/run.json")).toBe(true)
    expect(ignored("runs/compare/2026-11-25T22-30-00Z/compare.json")).toBe(true)
    expect(ignored("reports/summary.ts")).toBe(false)
    expect(ignored("reports/html.ts")).toBe(false)
    // nothing but sources is tracked in reports/
    const tracked = execFileSync("git", ["ls-files", "reports"], { cwd: root, encoding: "utf8" }).trim().split("\n")
    expect(tracked.filter((f) => !f.endsWith(".ts"))).toEqual([])
  })

  it("a run without --out: runs/<timestamp>-<name>/ with run.json and report.html; no reports/ folder", () => {
    const dir = mkdtempSync(join(tmpdir(), "clustersim-out-"))
    try {
      writeFileSync(
        join(dir, "tiny.yaml"),
        "apiVersion: clustersim/v1\nkind: Scenario\nmetadata: { name: tiny }\nphases:\n  - name: p\n    duration: 1s\n    actions:\n      - { type: constant-arrival-rate, rate: 5, request: { verb: list, resource: configmaps } }\n"
      )
      const r = spawnSync(join(root, "node_modules/.bin/vite-node"), ["--root", root, join(root, "test/support/cliProcess.ts"), "run", "--target", "in-process", "tiny.yaml"], {
        cwd: dir,
        encoding: "utf8",
        timeout: 110_000
      })
      expect(r.status, r.stderr).toBe(0)
      const runs = readdirSync(join(dir, "runs"))
      expect(runs).toHaveLength(1)
      expect(runs[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ-tiny$/)
      expect(existsSync(join(dir, "runs", runs[0]!, "run.json"))).toBe(true)
      expect(existsSync(join(dir, "runs", runs[0]!, "report.html"))).toBe(true)
      expect(existsSync(join(dir, "reports"))).toBe(false)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})

import { Effect } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "@effect/vitest"
import { renderJunit } from "../../reports/junit.js"
import { runCommand } from "../../app/cli/run.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { syntheticRun } from "../support/syntheticRun.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-junit-"))

/** The test cases of a junit document: name, and failure/error type if any. */
const cases = (xml: string) =>
  [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)].map((m) => ({
    classname: m[1],
    name: m[2],
    failure: /<failure type="([^"]+)" message="([^"]*)"/.exec(m[3]!)?.slice(1) ?? /<error type="([^"]+)" message="([^"]*)"/.exec(m[3]!)?.slice(1)
  }))

describe("junit.xml of thresholds", () => {
  it("a real run with a breached threshold: one case per threshold, the breach a failure with the observed value and unit", async () => {
    const scenario = join(dir, "j.yaml")
    writeFileSync(
      scenario,
      `apiVersion: clustersim/v1
kind: Scenario
metadata: { name: junit }
setup:
  namespaces: [j]
phases:
  - name: steady
    duration: 500ms
    actions:
      - { type: constant-arrival-rate, name: list, rate: 10, request: { verb: list, resource: configmaps, namespace: j } }
thresholds:
  "latency{name:list}": ["p(99) < 1us", "count >= 1"]
`
    )
    const junit = join(dir, "junit.xml")
    const r = await Effect.runPromise(runCommand({ file: scenario, target: { _tag: "in-process" }, outDir: join(dir, "run"), junit, tty: false, stdout: () => {}, stderr: () => {} }))
    expect(r.exitCode).toBe(99)
    const xml = readFileSync(junit, "utf8")
    expect(xml).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="clustersim" tests="(\d+)" failures="1" errors="0"/)
    expect(xml).toContain('<testsuite name="clustersim run junit"')
    expect(xml).toContain('<property name="exitCode" value="99"/>')
    const all = cases(xml)
    expect(Number(/tests="(\d+)"/.exec(xml)![1])).toBe(all.length)
    expect(all[0]).toMatchObject({ classname: "junit.thresholds", name: "latency{name:list}: p(99) &lt; 1us" })
    expect(all[0]!.failure![0]).toBe("ThresholdBreached")
    expect(all[0]!.failure![1]).toMatch(/^p\(99\) &lt; 1us \(observed [\d.]+ ms\)$/)
    expect(all[1]).toMatchObject({ name: "latency{name:list}: count &gt;= 1", failure: undefined })
    expect(all.filter((c) => c.failure === undefined).map((c) => c.name)).toContain("outcome:error-rate [metric=api_call]: rate &lt;= 0.1")
  }, 60_000)

  it("a run error is an error case; a pass has no failures", () => {
    const pass = syntheticRun({ seed: 1, series: [] })
    expect(renderJunit(pass)).toContain('tests="0" failures="0" errors="0"')
    const failed: RunArtifact = { ...pass, outcome: "run-error", exitCode: 1, runError: "connect ECONNREFUSED 127.0.0.1:1" }
    const xml = renderJunit(failed)
    expect(xml).toContain('tests="1" failures="0" errors="1"')
    expect(cases(xml)).toEqual([{ classname: "synthetic.run", name: "run completes", failure: ["run-error", "run error: connect ECONNREFUSED 127.0.0.1:1"] }])
  })
})

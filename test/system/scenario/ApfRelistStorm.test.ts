/**
 * The shipped APF scenarios pass or fail on their cluster thresholds (issue 20's done-when): with APF the storm is
 * throttled in global-default and the leases keep renewing; without it the leases starve and the run breaches.
 * The same runs give the artifacts recorded in test/fixtures/shipped-scenarios.json (virtual time: the same for the
 * same seed; ShippedArtifacts.test.ts checks the other long simulations): one simulation each for both checks.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { runCommand } from "../../../app/cli/run.js"
import type { RunArtifact } from "../../../src/loadgen/Artifact.js"
import type { ThresholdResult } from "../../../src/loadgen/Thresholds.js"
import { expectShipped } from "./shippedCases.js"

const run = async (file: string) => {
  const out: Array<string> = []
  const outDir = mkdtempSync(join(tmpdir(), "apf-storm-"))
  const r = await Effect.runPromise(runCommand({ file, target: { _tag: "in-process" }, outDir, tty: false, stdout: (s) => void out.push(s), stderr: () => {} }))
  // the artifact as written, as test/support/shippedScenarios.ts's runShipped reads it
  expectShipped(file, JSON.parse(readFileSync(join(outDir, "run.json"), "utf8")) as RunArtifact, "simulated")
  rmSync(outDir, { recursive: true, force: true })
  const byName = new Map<string, ThresholdResult>((r.artifact?.thresholds ?? []).map((t) => [t.threshold, t]))
  return { exitCode: r.exitCode, summary: out.join(""), threshold: (name: string) => byName.get(name) }
}

describe("scenarios/apf-relist-storm*.yaml", () => {
  it("APF on passes: leases keep renewing, node-high rejects nothing, the storm gets 429s; APF off breaches (exit 99): the leases starve", async () => {
    const on = await run("scenarios/apf-relist-storm.yaml")
    expect(on.exitCode).toBe(0)
    expect(on.threshold("lease_writes")).toMatchObject({ passed: true })
    expect(on.threshold("lease_writes")!.observed).toBeGreaterThan(90)
    expect(on.threshold("lease_renew_latency")).toMatchObject({ passed: true, unit: "ms" })
    expect(on.threshold("not_ready_nodes")).toMatchObject({ observed: 0, passed: true })
    expect(on.threshold("apf_rejected{priority_level:node-high}")).toMatchObject({ observed: 0, passed: true })
    expect(on.threshold("apf_rejected{priority_level:global-default}")!.observed).toBeGreaterThan(1000)
    expect(on.summary).toContain("✓ lease_writes: rate >= 80")

    const off = await run("scenarios/apf-relist-storm-no-apf.yaml")
    expect(off.exitCode).toBe(99)
    expect(off.threshold("lease_writes")).toMatchObject({ passed: false })
    expect(off.threshold("lease_writes")!.observed).toBeLessThan(20)
    expect(off.threshold("lease_renew_latency")).toMatchObject({ passed: false })
    expect(off.threshold("lease_renew_latency")!.observed).toBeGreaterThan(60_000)
    // no priority levels without APF: the 429 thresholds have no data
    expect(off.threshold("apf_rejected{priority_level:node-high}")).toMatchObject({ noData: true, passed: true })
    expect(off.summary).toContain("✗ lease_writes: rate >= 80")
    expect(off.summary).toContain("FAIL: thresholds breached (exit 99)")
  }, 600_000)
})

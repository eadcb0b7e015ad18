/**
 * Two runs in one process are independent: a scenario run through `clustersim run`'s pipeline (`runCommand`) after
 * other runs in the same process gives the artifact it gives alone — in virtual time the same artifact for the same
 * seed (the fingerprints of test/fixtures/shipped-scenarios.json, recorded alone), the same thresholds judged —
 * and `compare`, which runs its sides one after another in its process, gets the same artifact on every side and
 * round. quickstart.yaml is a load run on the real clock; here it runs in virtual time (a one-node cluster beside it,
 * its `drop-watches` step, which a cluster scenario takes as a fault, made a second watch action), so its artifact can
 * be compared whole. What a closed server used to leave in the process: test/loadgen/ProcessMetrics.test.ts.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { compareCommand } from "../../../app/cli/compare.js"
import { runCommand } from "../../../app/cli/run.js"
import type { RunArtifact } from "../../../src/loadgen/Artifact.js"
import { fingerprint, readFixtures } from "../../support/shippedScenarios.js"

const dir = mkdtempSync(join(tmpdir(), "clustersim-two-runs-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

let runs = 0
/** One run as `clustersim run FILE [--set …]` makes it, in this process. */
const run = async (file: string, sets: ReadonlyArray<string> = []): Promise<RunArtifact> => {
  const outDir = join(dir, `run-${++runs}`)
  const r = await Effect.runPromise(runCommand({ file, target: { _tag: "in-process" }, outDir, sets, tty: false, stdout: () => {}, stderr: () => {} }))
  expect(r.exitCode, file).not.toBe(2)
  return JSON.parse(readFileSync(join(outDir, "run.json"), "utf8")) as RunArtifact
}

const quickstart = "scenarios/quickstart.yaml"
const inVirtualTime = [
  "cluster.nodes=1",
  "phases[1].actions[8]={type: watch, name: watchers-2, resource: configmaps, namespace: load, count: 1}",
  // shorter: the phases' shape is what matters here
  "phases[0].duration=1s",
  "phases[1].duration=2s"
]

/** Shipped simulations with a fixture recorded alone (the quick ones; the five in a row: ShippedArtifacts.test.ts). */
const shipped = ["scenarios/memory-pressure.yaml", "scenarios/expired-credentials.yaml", "scenarios/leader-failover.yaml", "scenarios/cluster/scheduled-pods.yaml"]

describe("two runs in one process", () => {
  it("quickstart.yaml judges its 12 thresholds and gives the same artifact before and after the other runs; each of them its own alone", async () => {
    const first = fingerprint(await run(quickstart, inVirtualTime), "simulated")
    expect(first.thresholds).toBe(12)
    const fixtures = readFixtures()
    for (const [i, file] of shipped.entries()) {
      expect(fingerprint(await run(file), "simulated"), `${file} after other runs`).toEqual(fixtures[file])
      if (i === 0 || i === shipped.length - 1) expect(fingerprint(await run(quickstart, inVirtualTime), "simulated"), `quickstart.yaml after ${file}`).toEqual(first)
    }
  }, 120_000)

  it("compare: every side and round of one scenario in this process gives the artifact it gives alone", async () => {
    const file = "scenarios/cluster/node-death.yaml"
    const outDir = join(dir, "compare")
    const r = await Effect.runPromise(
      compareCommand({ scenario: file, targets: [{ _tag: "in-process" }, { _tag: "in-process" }], rounds: 1, warmupRounds: 1, outDir, stdout: () => {}, stderr: () => {} })
    )
    expect(r.exitCode).toBe(0)
    const artifacts = ["warmup-1/A", "warmup-1/B", "round-1/A", "round-1/B"].map((side) => join(outDir, side, "run.json"))
    expect(readdirSync(join(outDir, "round-1")).sort()).toEqual(["A", "B"])
    for (const a of artifacts) expect(fingerprint(JSON.parse(readFileSync(a, "utf8")) as RunArtifact, "simulated"), a).toEqual(readFixtures()[file])
  }, 120_000)
})

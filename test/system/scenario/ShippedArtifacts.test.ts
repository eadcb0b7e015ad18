/**
 * The shipped scenarios not in the fast tier's test/scenario/ShippedArtifacts.test.ts: the long simulations (the
 * same artifact and cluster result hash for the same seed) and the load-only runs on the real clock against the
 * in-process server (the same shape: scenario, target, series keys, actions, thresholds judged), as recorded in
 * test/fixtures/shipped-scenarios.json. `RECORD_SHIPPED=1` records again.
 */
import { describe, expect, it } from "@effect/vitest"
import { fingerprint, readFixtures, recordFixture, runShipped, type Mode } from "../../support/shippedScenarios.js"

const runs: ReadonlyArray<readonly [string, Mode]> = [
  ["scenarios/apf-relist-storm.yaml", "simulated"],
  ["scenarios/apf-relist-storm-no-apf.yaml", "simulated"],
  ["scenarios/cluster/realtime-5000.yaml", "simulated"],
  ["scenarios/everything.yaml", "simulated"],
  ["scenarios/registry-outage.yaml", "simulated"],
  ["scenarios/relist-watchlist.yaml", "simulated"],
  ["scenarios/compare-list.yaml", "load-only"],
  ["scenarios/expired-continue-token.yaml", "load-only"],
  ["scenarios/expired-token.yaml", "load-only"],
  ["scenarios/list-watch-relist.yaml", "load-only"],
  ["scenarios/quickstart.yaml", "load-only"],
  ["scenarios/relist-storm.yaml", "load-only"],
  ["scenarios/relist-storm-150.yaml", "load-only"]
]

describe("shipped scenarios: the same artifact for the same seed (virtual time), the same shape (real clock)", () => {
  it.each(runs)("%s (%s)", async (file, mode) => {
    const got = fingerprint(await runShipped(file), mode)
    if (process.env.RECORD_SHIPPED === "1") return recordFixture(file, got)
    const want = readFixtures()[file]!
    // on the real clock a busy machine may breach a latency threshold: the shape is what a refactoring must keep
    expect(mode === "load-only" ? { ...got, outcome: want.outcome, exitCode: want.exitCode } : got).toEqual(want)
  }, 240_000)
})

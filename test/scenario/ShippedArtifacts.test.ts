/**
 * The shipped scenarios that take a few seconds in virtual time give the same artifact and the same cluster result
 * hash for the same seed as recorded in test/fixtures/shipped-scenarios.json (the longer ones, and the load-only
 * runs on the real clock: test/system/scenario/ShippedArtifacts*.test.ts). A change of the run pipeline that
 * changes a figure fails here; a deliberate change records again: `RECORD_SHIPPED=1 npx vitest run` on these files.
 */
import { describe, expect, it } from "@effect/vitest"
import { fingerprint, readFixtures, recordFixture, runShipped } from "../support/shippedScenarios.js"

const simulated = [
  "scenarios/cluster/node-death.yaml",
  "scenarios/cluster/scheduled-pods.yaml",
  "scenarios/expired-credentials.yaml",
  "scenarios/leader-failover.yaml",
  "scenarios/memory-pressure.yaml"
]

describe("shipped scenarios in virtual time: the same artifact for the same seed", () => {
  it.each(simulated)("%s", async (file) => {
    const got = fingerprint(await runShipped(file), "simulated")
    if (process.env.RECORD_SHIPPED === "1") return recordFixture(file, got)
    expect(got).toEqual(readFixtures()[file])
  }, 60_000)
})

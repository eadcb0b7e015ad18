/**
 * The system tier's shipped-scenario checks (test/support/shippedScenarios.ts), shared by the files that split them
 * so that vitest's two workers run them side by side (ShippedArtifacts*.test.ts, ApfRelistStorm.test.ts): a run's
 * fingerprint equals the one recorded in test/fixtures/shipped-scenarios.json (virtual time: the whole artifact;
 * load-only on the real clock: its shape). `RECORD_SHIPPED=1` records again.
 *
 * Within a file the runs go one after another, in this process: two runs in one process are not independent (the
 * run pipeline keeps state in the process: side by side, quickstart.yaml's artifact judged a 13th threshold), and
 * several load-only runs at once on a busy machine changed relist-storm-150.yaml's shape.
 */
import { describe, expect, it } from "@effect/vitest"
import type { RunArtifact } from "../../../src/loadgen/Artifact.js"
import { fingerprint, readFixtures, recordFixture, runShipped, type Mode } from "../../support/shippedScenarios.js"

/** Checks (or with `RECORD_SHIPPED=1` records) a run's fingerprint. */
export const expectShipped = (file: string, artifact: RunArtifact, mode: Mode): void => {
  const got = fingerprint(artifact, mode)
  if (process.env.RECORD_SHIPPED === "1") return recordFixture(file, got)
  const want = readFixtures()[file]!
  // on the real clock a busy machine may breach a latency threshold: the shape is what a refactoring must keep
  expect(mode === "load-only" ? { ...got, outcome: want.outcome, exitCode: want.exitCode } : got).toEqual(want)
}

/** A test per shipped scenario, in order: its run's fingerprint is the recorded one. */
export const describeShipped = (files: ReadonlyArray<string>, mode: Mode): void => {
  const title = mode === "simulated" ? "shipped scenarios in virtual time: the same artifact for the same seed" : "shipped load-only scenarios on the real clock: the same shape"
  describe(title, () => {
    // a simulation keeps a core busy: on a loaded machine beside other files, minutes (everything.yaml: 53 s
    // alone at load 15, over 240 s beside two other files at load 30)
    it.each(files)(`%s (${mode})`, async (file) => expectShipped(file, await runShipped(file), mode), mode === "simulated" ? 480_000 : 240_000)
  })
}

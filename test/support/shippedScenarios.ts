/**
 * The deterministic part of a shipped scenario's run artifact, for tests that a refactoring of the run pipeline keeps
 * every run the same (test/scenario/ShippedArtifacts.test.ts, test/system/scenario/ShippedArtifacts.test.ts): the
 * fingerprint of src/loadgen/ArtifactFingerprint.ts (what the host decides left out), with the cluster result's own.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { runCommand } from "../../app/cli/run.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"
import { artifactFingerprint, clusterWithoutWall, type FingerprintMode, jsonSha256 } from "../../src/loadgen/ArtifactFingerprint.js"

export type Mode = FingerprintMode

export interface Fingerprint {
  readonly mode: Mode
  /** sha256 of the deterministic part (below). */
  readonly artifact: string
  /** sha256 of the cluster result without `wall` (the figure `bench/resultHash.ts` prints), with a cluster section. */
  readonly cluster?: string
  readonly outcome: RunArtifact["outcome"]
  readonly exitCode: number
  readonly thresholds: number
}

export const fingerprint = (a: RunArtifact, mode: Mode): Fingerprint => {
  return {
    mode,
    artifact: artifactFingerprint(a, mode),
    ...(a.cluster ? { cluster: jsonSha256(clusterWithoutWall(a.cluster)) } : {}),
    outcome: a.outcome,
    exitCode: a.exitCode,
    thresholds: a.thresholds.length
  }
}

/** Runs a shipped scenario as `clustersim run FILE` does (virtual time for simulated sections, else in-process). */
export const runShipped = (file: string): Promise<RunArtifact> => {
  const outDir = mkdtempSync(join(tmpdir(), "shipped-"))
  return Effect.runPromise(runCommand({ file, target: { _tag: "in-process" }, outDir, tty: false, stdout: () => {}, stderr: () => {} })).then((r) => {
    const artifact = JSON.parse(readFileSync(join(outDir, "run.json"), "utf8")) as RunArtifact
    rmSync(outDir, { recursive: true, force: true })
    if (r.exitCode === 2) throw new Error(`${file}: invalid input`)
    return artifact
  })
}

export const fixturesFile = "test/fixtures/shipped-scenarios.json"

export const readFixtures = (): Record<string, Fingerprint> => JSON.parse(readFileSync(fixturesFile, "utf8")) as Record<string, Fingerprint>

/** Records fingerprints (before a refactoring): `RECORD_SHIPPED=1 npx vitest run …`. */
export const recordFixture = (file: string, f: Fingerprint): void => {
  let all: Record<string, Fingerprint> = {}
  try {
    all = readFixtures()
  } catch {
    // first record
  }
  all[file] = f
  writeFileSync(fixturesFile, JSON.stringify(Object.fromEntries(Object.entries(all).sort(([a], [b]) => (a < b ? -1 : 1))), null, 2) + "\n")
}

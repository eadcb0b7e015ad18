/**
 * The deterministic part of a shipped scenario's run artifact, for tests that a refactoring of the run pipeline keeps
 * every run the same (test/scenario/ShippedArtifacts.test.ts, test/system/scenario/ShippedArtifacts.test.ts).
 *
 * In virtual time (a scenario with simulated sections, no `--target`) the whole artifact is the same for the same seed
 * but for what the host decides: the wall-clock times, the environment, the cluster's `wall` figures. Load-only runs
 * are on the real clock: only their shape is the same (scenario, target, series keys, actions, thresholds judged).
 */
import { createHash } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { runCommand } from "../../app/cli/run.js"
import type { RunArtifact } from "../../src/loadgen/Artifact.js"

export type Mode = "simulated" | "load-only"

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

const sha = (v: unknown): string => createHash("sha256").update(JSON.stringify(v)).digest("hex")

const byJson = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)

/** The artifact without the host's part (virtual time: everything else is the seed's). */
export const deterministicArtifact = (a: RunArtifact, mode: Mode): unknown => {
  if (mode === "simulated") {
    const { environment: _e, startedAt: _s, endedAt: _x, durationMs: _d, health: _h, cluster, ...rest } = a
    const { wall: _w, ...clusterRest } = (cluster ?? {}) as Record<string, unknown>
    return { ...rest, ...(cluster ? { cluster: clusterRest } : {}) }
  }
  // the real clock decides counts and latencies: the shape only
  return {
    format: a.format,
    scenario: a.scenario,
    target: a.target,
    seed: a.seed,
    intervalMs: a.intervalMs,
    seriesKeys: [...new Set(a.series.map((s) => JSON.stringify(s.key)))].sort(),
    actions: a.actions.map((x) => ({ phase: x.phase, action: x.action, type: x.type })).sort(byJson),
    thresholds: a.thresholds.map((t) => ({ threshold: t.threshold, condition: t.condition, group: t.group })).sort(byJson)
  }
}

export const fingerprint = (a: RunArtifact, mode: Mode): Fingerprint => {
  const cluster = a.cluster as Record<string, unknown> | undefined
  const { wall: _w, ...clusterRest } = cluster ?? {}
  return {
    mode,
    artifact: sha(deterministicArtifact(a, mode)),
    ...(cluster ? { cluster: sha(clusterRest) } : {}),
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

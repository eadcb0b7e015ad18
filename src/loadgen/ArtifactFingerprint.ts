/**
 * A run's result fingerprint: sha256 of its artifact without what the host decides, so two runs of the same scenario
 * and seed can be told equal or not at a glance (`clustersim sweep`'s table, docs/sweep.md; the shipped scenarios'
 * fixtures, test/support/shippedScenarios.ts).
 *
 * In virtual time (a scenario with simulated sections, no `--target`) the whole artifact is the same for the same seed
 * but for what the host decides: the wall-clock times, the environment, the cluster's `wall` figures. Load-only runs
 * are on the real clock: only their shape is the same (scenario, target, series keys, actions, thresholds judged).
 */
import { createHash } from "node:crypto"
import type { RunArtifact } from "./Artifact.js"

/** `simulated`: the run was in virtual time, its figures are the seed's; `load-only`: on the real clock, the shape only. */
export type FingerprintMode = "simulated" | "load-only"

/** How much of the artifact the seed decides: all of it in virtual time (the simulated cluster's target), else its shape. */
export const fingerprintModeOf = (a: RunArtifact): FingerprintMode => (a.target.kind === "simulated-cluster" ? "simulated" : "load-only")

export const jsonSha256 = (v: unknown): string => createHash("sha256").update(JSON.stringify(v)).digest("hex")

const byJson = (a: unknown, b: unknown) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1)

/** The artifact without the host's part (virtual time: everything else is the seed's). */
export const deterministicArtifact = (a: RunArtifact, mode: FingerprintMode): unknown => {
  if (mode === "simulated") {
    const { environment: _e, startedAt: _s, endedAt: _x, durationMs: _d, health: _h, cluster, ...rest } = a
    return { ...rest, ...(cluster ? { cluster: clusterWithoutWall(cluster) } : {}) }
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

/** The cluster result without its `wall` figures (the host's time per virtual second). */
export const clusterWithoutWall = (cluster: Readonly<Record<string, unknown>>): Record<string, unknown> => {
  const { wall: _w, ...rest } = cluster
  return rest
}

/** sha256 of the deterministic part of the artifact, as `mode` reads it. */
export const artifactFingerprint = (a: RunArtifact, mode: FingerprintMode = fingerprintModeOf(a)): string => jsonSha256(deterministicArtifact(a, mode))

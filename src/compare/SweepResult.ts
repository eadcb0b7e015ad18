/**
 * `sweep.json`, what `clustersim sweep` writes (docs/sweep.md): the varied parameters, and per point its values,
 * its run's exit code and verdict, figures (./SweepFigures.ts), result fingerprint
 * (../loadgen/ArtifactFingerprint.ts) and artifact directory. Points are in the order of the product, whatever
 * order they finished in.
 */
import type { FingerprintMode } from "../loadgen/ArtifactFingerprint.js"
import type { Figure } from "./SweepFigures.js"

export const SweepFormat = "clustersim/sweep-v1"

export type SweepVerdict = "PASS" | "FAIL" | "ERROR" | "INVALID" | "STOPPED" | "NOT RUN"

export interface SweepPointResult {
  readonly index: number
  /** One per parameter, in `--vary` order. */
  readonly values: ReadonlyArray<string>
  /** The `--set`s that made the point, after the sweep's own. */
  readonly sets: ReadonlyArray<string>
  /** Relative to the sweep's directory. */
  readonly dir: string
  /** The run's exit code; absent when the point never started (the sweep was stopped first). */
  readonly exitCode?: number
  readonly verdict: SweepVerdict
  readonly wallMs?: number
  readonly figures: ReadonlyArray<Figure>
  /** The thresholds the run breached, as its summary lists them (`not_ready_nodes: count == 5 (observed 4)`). */
  readonly breached?: ReadonlyArray<string>
  /** sha256 of the run's artifact without the host's part; absent when the run wrote none. */
  readonly fingerprint?: string
  /** `simulated`: the whole result is the seed's; `load-only`: real clock, the fingerprint covers the shape only. */
  readonly fingerprintMode?: FingerprintMode
}

export interface SweepResult {
  readonly format: typeof SweepFormat
  readonly scenario: { readonly name: string; readonly file: string }
  readonly seed: number
  /** The sweep's own `--set`s, every point's. */
  readonly sets: ReadonlyArray<string>
  readonly parameters: ReadonlyArray<{ readonly path: string; readonly values: ReadonlyArray<string> }>
  /** Points run at once. */
  readonly workers: number
  readonly startedAt: string
  readonly durationMs: number
  /** Stopped by a signal: the points not finished are `STOPPED` or `NOT RUN`. */
  readonly interruptedBy?: "SIGINT" | "SIGTERM"
  /** The headline figures' labels: the table's columns and the plots, in order. */
  readonly headline: ReadonlyArray<string>
  readonly points: ReadonlyArray<SweepPointResult>
  readonly exitCode: number
}

/** A run's exit code as a word (k6's codes, docs/scenarios.md): only a run that exits 0 passed. */
export const verdictOfExit = (code: number | undefined): SweepVerdict => {
  switch (code) {
    case undefined:
      return "NOT RUN"
    case 0:
      return "PASS"
    case 99:
      return "FAIL"
    case 2:
      return "INVALID"
    case 130:
    case 143:
      return "STOPPED"
    default:
      return "ERROR"
  }
}

/** A sweep's result with known figures (2 × 2 points, one not run), for the sweep's report tests. */
import { headlineLabels } from "../../src/compare/SweepFigures.js"
import { SweepFormat, type SweepResult } from "../../src/compare/SweepResult.js"

const figures = (renewP99: number, notReady: number, apf429s?: number) => [
  { label: "lease renew latency p99", unit: "ms" as const, value: renewP99 },
  { label: "lease writes", unit: "per-second" as const, value: 5 },
  { label: "not-ready nodes, most at once", unit: "nodes" as const, value: notReady },
  ...(apf429s === undefined ? [] : [{ label: "APF 429s, all levels", unit: "count" as const, value: apf429s }])
]

export const parameters = [
  { path: "cluster.nodes", values: ["50", "500"] },
  { path: "cluster.serviceTime.apf", values: ["true", "false"] }
]

export const result: SweepResult = {
  format: SweepFormat,
  scenario: { name: "node-death", file: "scenarios/cluster/node-death.yaml" },
  seed: 1,
  sets: [],
  parameters,
  workers: 2,
  startedAt: "2026-11-30T12:00:00.000Z",
  durationMs: 9000,
  headline: headlineLabels([figures(2, 5, 0), figures(3.01, 4)]),
  points: [
    { index: 1, values: ["50", "true"], sets: [], dir: "1-nodes=50_apf=true", exitCode: 0, verdict: "PASS", wallMs: 3400, figures: figures(2, 5, 0), fingerprint: "891f51b2bac6aa", fingerprintMode: "simulated" },
    { index: 2, values: ["50", "false"], sets: [], dir: "2-nodes=50_apf=false", exitCode: 0, verdict: "PASS", wallMs: 3300, figures: figures(2, 5), fingerprint: "a0ad7f4e23f6bb", fingerprintMode: "simulated" },
    { index: 3, values: ["500", "true"], sets: [], dir: "3-nodes=500_apf=true", exitCode: 99, verdict: "FAIL", wallMs: 8400, figures: figures(1210, 40, 12), breached: ["lease_renew_latency: p(99) < 1s (observed 1.21s)", "not_ready_nodes: count <= 10 (observed 40)"], fingerprint: "f5251c22c109cc", fingerprintMode: "simulated" },
    { index: 4, values: ["500", "false"], sets: [], dir: "4-nodes=500_apf=false", verdict: "NOT RUN", figures: [] }
  ],
  exitCode: 99
}

